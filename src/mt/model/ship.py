"""A trained run made into a model that ships inside the package (src/mt/shipped/NAME/): what a
user needs to translate, fine-tune from and check it (best weights in bfloat16, tokenizers,
tables, configs, metrics.csv, the card, checksums.sha256), no checkpoints or optimizer state.

    python -m mt.cli.ship model runs/model --name NAME
"""

from __future__ import annotations

import shutil
from pathlib import Path

import torch

from mt.catalog.modelinfo import resolve, ship_configs, shipped_root
from mt.model.rundir import load_run, save_weights
from mt.storage.atomic import atomic_write_text
from mt.storage.checksums import write_checksums
from mt.storage.files import (
    BEST_WEIGHTS,
    CALIBRATION_JSON,
    DECODE_JSON,
    LEXICON,
    METRICS_CSV,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    WORD_STATS,
    write_json,
)

COPIED = (SOURCE_TOKENIZER, TARGET_TOKENIZER, LEXICON, WORD_STATS)
OPTIONAL = (CALIBRATION_JSON, DECODE_JSON, METRICS_CSV)


def ship_run(run_dir: Path, name: str, *, root: Path | None = None) -> Path:
    """Write `run_dir`'s best weights and tables as the shipped model `name`; returns its folder.
    An earlier version of the same name is replaced only once the new one is complete."""
    loaded = load_run(resolve(run_dir))  # refused here if incomplete, damaged or of an older format
    folder = (root or shipped_root()) / name
    tmp = folder.with_name(f".{name}.shipping")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_weights(tmp / BEST_WEIGHTS, loaded.model.to(torch.bfloat16))
    for file in COPIED + tuple(f for f in OPTIONAL if (run_dir / f).is_file()):
        shutil.copyfile(run_dir / file, tmp / file)
    ship_configs(tmp, loaded.info)
    write_checksums(tmp)
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
    return folder


def seal(folder: Path, card: dict, card_text: str) -> None:
    """Write the card (card.json and its README.md) into a shipped folder and list every file
    in checksums.sha256 again."""
    from mt.catalog.modelinfo import CARD_JSON, CARD_MD

    write_json(folder / CARD_JSON, card)
    atomic_write_text(folder / CARD_MD, card_text)
    write_checksums(folder)
