"""The shipped model's CTranslate2 int8 copy: what `mt translate` and `mt serve` search with by
default.

A shipped model stores bf16 weights (the PyTorch path and `--init-from` need them); int8 in
CTranslate2 gives the same BLEU (11.50 against 11.53 on 1,000 news dev pairs) at 1.6x the
sentences/s on 2 AVX2 cores, and starts without importing torch (docs/release.md). Both in the
package would pass its 25 MB, so the int8 model is converted on first use, once, into the user's
folder beside the model's calibration (ModelInfo.writable_directory), and found there by every
later start. A stamp names what it was made from; a new model, mt or CTranslate2 makes it again.
Where the folder can't be written the caller falls back to PyTorch.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

from mt import __version__
from mt.atomic import atomic_write_text, replace_directory
from mt.decode.ct2_engine import require_ctranslate2
from mt.errors import MtError
from mt.files import CHECKSUMS
from mt.modelinfo import ModelInfo

COPY = "ctranslate2-int8"
STAMP = "made-from.json"


def int8_copy(info: ModelInfo) -> Path | None:
    """The int8 CTranslate2 model of the shipped model `info`, converted now if no current copy
    exists; None where it can't be written (a read-only home)."""
    if not info.read_only:
        raise MtError(f"{info.label}: only a shipped model gets an int8 copy (`mt export` a run)")
    directory = info.writable_directory / COPY
    stamp = _stamp(info)
    if _read_stamp(directory) == stamp:
        return directory
    from mt.export.writer import convert_weights  # torch: only the first time

    tmp = directory.with_name(f".{COPY}.converting-{os.getpid()}")
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.parent.mkdir(parents=True, exist_ok=True)
        convert_weights(info, tmp, quantization="int8", checkpoint="best")
        atomic_write_text(tmp / STAMP, json.dumps(stamp, indent=1, sort_keys=True))
        replace_directory(tmp, directory)
    except OSError:
        return None
    finally:  # whatever stopped it, nothing half-made is left (after the rename, nothing is)
        shutil.rmtree(tmp, ignore_errors=True)
    return directory


def _stamp(info: ModelInfo) -> dict[str, str]:
    """What the copy is made from: the model's files (their checksums file, verified when the
    model was resolved), and the versions of mt and CTranslate2 that converted it."""
    checksums = (info.directory / CHECKSUMS).read_bytes()
    return {
        "model": str(info.name),
        "checksums": hashlib.sha256(checksums).hexdigest(),
        "mt": __version__,
        "ctranslate2": require_ctranslate2("the int8 copy").__version__,
    }


def _read_stamp(directory: Path) -> dict[str, str] | None:
    try:
        return json.loads((directory / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
