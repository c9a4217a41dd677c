"""The files mt writes, named once: directory layouts, JSON reading and writing, and the one check
of a stored format version. No torch here: `mt prepare` uses it and must start fast.

A prepared directory (`mt prepare`): prepare.json, train.tsv, selection.tsv, test.tsv, the two
tokenizers, the token arrays of train and selection (PART.en.ids, PART.en.offsets, the same for
.es; see tokenarrays.py), lexicon.tsv (how the training part writes each capitalised English
word; see mt.text.lexicon) and checksums.sha256. A run directory (`mt train`), everything needed
to translate, resume or inspect it:

RUN/model.json            format version + model config
RUN/train.json            format version + training config + where the prepared data was
RUN/source-tokenizer.json, RUN/target-tokenizer.json
RUN/lexicon.tsv           the prepared directory's, for the name-and-number stand-ins
RUN/words.tsv             the prepared directory's, for normalising casual input
RUN/last.safetensors, RUN/best.safetensors   weights (best = lowest selection loss)
RUN/checkpoints/step-N.safetensors + step-N.json   resumable state, the two newest kept
RUN/metrics.csv, RUN/curves.png
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from mt.errors import MtError
from mt.storage.atomic import atomic_write_text

RUN_FORMAT = 2
"""Version of the run and export layout, in model.json and train.json: 2 has lexicon.tsv and
words.tsv with its table of pairs. Another version is refused with the advice to use the mt
that wrote it."""
WEIGHTS_FORMAT = 1
"""Version of the weights and checkpoint files (safetensors metadata, checkpoints/step-N.json):
unchanged since the first runs."""
PREPARED_FORMAT = 2
"""Version of the prepared-directory layout."""

SOURCE_TOKENIZER = "source-tokenizer.json"
TARGET_TOKENIZER = "target-tokenizer.json"
LEXICON = "lexicon.tsv"
CALIBRATION_JSON = "calibration.json"  # `mt calibrate`: evidence -> confidence
DECODE_JSON = "decode.json"  # the length penalty a model decodes with unless told (chosen on dev)
WORD_STATS = "words.tsv"
PREPARE_JSON = "prepare.json"
MODEL_JSON = "model.json"
TRAIN_JSON = "train.json"
BEST_WEIGHTS = "best.safetensors"
LAST_WEIGHTS = "last.safetensors"
CHECKPOINTS = "checkpoints"
SNAPSHOTS = "snapshots"  # the last evaluations' weights, averaged when the run ends
METRICS_CSV = "metrics.csv"
CURVES_PNG = "curves.png"
CPU_LEDGER = "cpu.json"  # the CPU time a long run's processes spent (benchmarks/quality/student.py)
CHECKSUMS = "checksums.sha256"  # in prepared and export directories, `sha256sum -c` reads it
RUN_MARKERS = (MODEL_JSON, TRAIN_JSON, CHECKPOINTS)
EXPORT_FORMAT = "mt-ctranslate2"  # model.json's "format" in an `mt export` directory
CT2_MODEL = "ctranslate2"  # the CTranslate2 model folder inside an export
"""What only `mt train` writes (a prepared directory has tokenizers too)."""


def write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MtError(f"{path}: file is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise MtError(f"{path}: not a readable JSON file ({error})") from None


def listed_lines(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(line number, text stripped) of each entry of a list file (--keep, --corpus-list): one
    rule for all of them, blank lines and lines starting with "#" skipped."""
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if text and not text.startswith("#"):
            yield number, text


def check_format(found: object, expected: int, *, what: str, advice: str = "") -> None:
    """The one format-version check: ``what`` names the file and its kind ("x/model.json: run"),
    ``advice`` says what to do about another version."""
    if found != expected and found != str(expected):
        tail = f"; {advice}" if advice else ""
        raise MtError(f"{what} format version {found}, this mt reads version {expected}{tail}")


def read_text_file(
    path: Path, *, what: str, known_binaries: dict[bytes, str] | None = None
) -> bytes:
    """The bytes of a corpus or test file, with every reason it cannot be text named in one line:
    a directory, missing, unreadable, empty, a known binary format (file signature -> advice), or
    other binary data (a NUL byte, with its line). A UTF-8 byte order mark is dropped."""
    if path.is_dir():
        raise MtError(f"{path} is a directory, not a {what}")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise MtError(f"{what} {path} does not exist") from None
    except OSError as error:
        raise MtError(f"cannot read {path}: {error.strerror}") from None
    data = data.removeprefix(b"\xef\xbb\xbf")
    if not data.strip():
        raise MtError(f"{path} is empty")
    for signature, advice in (known_binaries or {}).items():
        if data.startswith(signature):
            raise MtError(f"{path} {advice}")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise MtError(f"{path} line {line}: NUL byte, this looks like a binary file, not text")
    return data


def read_metrics(run_dir: Path) -> list[dict[str, float]]:
    """A run's metrics.csv, a dict of its numbers a row; [] before the first row."""
    path = run_dir / METRICS_CSV
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as stream:
        return [{k: float(v) for k, v in row.items() if v != ""} for row in csv.DictReader(stream)]
