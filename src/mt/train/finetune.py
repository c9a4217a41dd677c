"""Fine-tuning: a new run from a trained run's weights (`mt train --init-from RUN`), optionally
rehearsing the base data (`--mix BASE_PREPARED:FRACTION`).

As Marian's --pretrained-model: weights and model settings from RUN, optimizer and steps afresh.
Everything is checked before the run directory is claimed (RUN's vocabulary, appended labels get
new rows: mt.train.vocab_rows), and train.json records the base run and its weights' SHA-256.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from mt.config import TrainConfig
from mt.data.feed.batching import EncodedPairs
from mt.data.feed.rehearsal import Mix, mixed_pairs
from mt.data.prepare.base_run import check_extends_vocabulary, read_base_run
from mt.data.prepared_dir import Prepared, load_prepared
from mt.errors import MtError
from mt.model.checkpoint import load_tensors
from mt.model.rundir import check_fits
from mt.model.transformer import make_model
from mt.storage.checksums import file_sha256
from mt.storage.files import BEST_WEIGHTS
from mt.train.depth_growth import grow_depth
from mt.train.run_config import RunConfig, finetune_run_config
from mt.train.vocab_rows import grow_vocabulary_rows
from mt.train.width_growth import grow_width

Rehearsal = Callable[[EncodedPairs, int], EncodedPairs]


@dataclass(frozen=True)
class FineTuning:
    """What a fine-tuning run starts with: its configs, the base weights, the lineage."""

    config: RunConfig
    weights: dict[str, Tensor]
    lineage: dict[str, Any] = field(default_factory=dict)
    decoding: dict[str, Any] = field(default_factory=dict)  # the base's decode.json, inherited


def fine_tuning(
    prepared: Prepared,
    *,
    init_from: str | Path,
    preset: str | None,
    changes: Mapping[str, object],
) -> FineTuning:
    """The checked starting point of a run fine-tuned from `init_from`: a run directory or a
    shipped model's name (mt.catalog.modelinfo)."""
    option = f"--init-from {init_from}"
    if preset:
        raise MtError(f"{option} takes its model and training settings from that run; no --preset")
    base = read_base_run(init_from, option="--init-from")
    info = base.info
    check_extends_vocabulary(
        (prepared.source, prepared.target),
        (base.source, base.target),
        what=f"{option} and prepared data {prepared.root}",
        remedy=f"prepare the data with `mt prepare ... --tokenizers-from {init_from}`",
    )
    base_train = info.train
    sizes = {"source": prepared.source.vocab_size, "target": prepared.target.vocab_size}
    model = dataclasses.replace(base.config, src_vocab=sizes["source"], tgt_vocab=sizes["target"])
    config = finetune_run_config(base_model=model, base_train=base_train, changes=changes)
    path = info.directory / BEST_WEIGHTS
    if not path.is_file():
        raise MtError(f"{option}: the run has no {BEST_WEIGHTS} yet (no evaluation finished)")
    weights, _ = load_tensors(path)
    # a shipped model stores bfloat16 (mt.model.ship): training starts from float32 weights
    weights = {k: v.float() if v.is_floating_point() else v for k, v in weights.items()}
    with torch.random.fork_rng():  # the new layers of a deeper model are drawn from the seed
        torch.manual_seed(config.train.seed)
        expected = make_model(config.model).state_dict()
    old = {"source": base.config.src_vocab, "target": base.config.tgt_vocab}
    growth = {(old[side], sizes[side]) for side in old if sizes[side] != old[side]}
    weights = grow_vocabulary_rows(weights, expected, growth=growth)
    depths = {"encoder": base.config.encoder_depth, "decoder": base.config.decoder_depth}
    weights, wider = grow_width(weights, expected, ff=base.config.ff)
    weights, deeper = grow_depth(weights, expected, depths=depths)
    check_fits(path, weights, expected)
    lineage: dict[str, Any] = {
        "init_from": {
            "run": info.name or str(info.directory.resolve()),
            "weights": BEST_WEIGHTS,
            "sha256": file_sha256(path),
        }
    }
    if growth:  # the labels after the base's are new, their rows made by mt.train.vocab_rows
        lineage["init_from"]["vocabulary"] = {side: [old[side], sizes[side]] for side in old}
    if deeper:  # layers on top of the base's, the identity at first (mt.train.depth_growth)
        lineage["init_from"]["layers"] = deeper
    if wider:  # perceptron units beside the base's, silent at first (mt.train.width_growth)
        lineage["init_from"]["ff"] = wider
    return FineTuning(config=config, weights=weights, lineage=lineage, decoding=info.decoding)


def rehearsal(prepared: Prepared, mix: Mix, config: TrainConfig) -> Rehearsal:
    """Each epoch's training pairs with `mix.fraction` of base pairs (mt.data.feed.rehearsal); the
    base data's vocabulary must be the prepared data's or its first ids."""
    base = load_prepared(mix.prepared)
    check_extends_vocabulary(
        (prepared.source, prepared.target),
        (base.source, base.target),
        what=f"--mix {mix.prepared} and prepared data {prepared.root}",
        remedy="rehearse the data the base run was trained on",
    )
    pairs = base.encoded("train", max_src_len=config.max_src_len, max_tgt_len=config.max_tgt_len)

    def draw(new: EncodedPairs, epoch: int) -> EncodedPairs:
        return mixed_pairs(new, pairs, fraction=mix.fraction, seed=config.seed, epoch=epoch)

    return draw


def stored_mix(lineage: Mapping[str, Any]) -> Mix | None:
    """The --mix a run was started with, from its train.json lineage (for --resume)."""
    stored = lineage.get("mix")
    if not stored:
        return None
    return Mix(prepared=Path(stored["prepared"]), fraction=float(stored["fraction"]))
