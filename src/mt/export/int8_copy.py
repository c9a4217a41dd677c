"""The shipped model's CTranslate2 int8 copy: what `mt translate` and `mt serve` search with by
default (the same BLEU as the stored bf16 at 1.6x the speed on 2 AVX2 cores, and no torch import).

Both in the package would pass the 40 MB a version may add, so the copy is converted once, on first
use, into ModelInfo.writable_directory, stamped with what it was made from (model, mt, CTranslate2).
It is a cache that mends itself: each use checks every byte against its checksums.sha256 (9 ms,
where sizes and times would miss a byte changed in place); a copy that fails or does not load is
made again once, with one note, else the caller searches with PyTorch. Concurrent starts convert in
folders of their own and rename into place; the loser of the race uses the winner's copy.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from pathlib import Path

from mt._version import __version__
from mt.catalog.modelinfo import ModelInfo
from mt.decode.ct2_engine import CannotLoad, export_device, require_ctranslate2
from mt.decode.options import TranslateOptions
from mt.decode.translator import Translator, open_translator
from mt.errors import MtError
from mt.notes import note
from mt.storage.atomic import replace_directory
from mt.storage.checksums import first_failure, write_checksums
from mt.storage.files import CHECKSUMS

COPY = "ctranslate2-int8"
STAMP = "made-from.json"
LAYOUT = 2
"""The stamp's "layout": 2 lists the copy's checksums. An older copy is made again without a
note, as for a new mt."""


def int8_copy(info: ModelInfo) -> Path | None:
    """The int8 CTranslate2 model of the shipped model `info`, converted now if no current and
    whole copy exists; None where it can't be written (a read-only home)."""
    if not info.read_only:
        raise MtError(f"{info.label}: only a shipped model gets an int8 copy (`mt export` a run)")
    directory = info.writable_directory / COPY
    stamp = _stamp(info)
    found = _read_stamp(directory)
    if not directory.is_dir() or (found is not None and found != stamp):
        return directory if _make(info, directory, stamp) is None else None
    damage = first_failure(directory) or (None if found else f"no readable {STAMP}")
    return directory if damage is None else _remade(info, directory, stamp, damage=damage)


def searched_copy(
    info: ModelInfo, *, precision: str, device: str, checkpoint: str, compute_type: str
) -> Path | None:
    """The copy to search `info` with when the options leave the engine to mt (precision auto,
    best weights, a CPU), made on first use and again, with a note, when damaged. None: PyTorch
    (asked for, a run, a GPU, or a home where the copy can't be made)."""
    asked = (precision, checkpoint, compute_type) != ("auto", "best", "default")
    if not info.read_only or asked or device not in ("auto", "cpu"):
        return None
    if export_device(device) != "cpu":
        return None  # a GPU searches the bf16 weights with PyTorch
    return int8_copy(info)


def open_with_copy(
    info: ModelInfo,
    options: TranslateOptions,
    *,
    copy: Path | None,
    device: str = "auto",
    checkpoint: str = "best",
    threads: int | None = None,
    compute_type: str = "default",
) -> Translator:
    """open_translator, searching with `copy` (searched_copy's) where there is one: a copy that
    CTranslate2 cannot load is made again once, and where it can't be PyTorch searches."""

    def opened(model: Path | None) -> Translator:
        return open_translator(
            info,
            options,
            device=device,
            checkpoint=checkpoint,
            threads=threads,
            compute_type=compute_type,
            ct2_model=model,
        )

    if copy is None:
        return opened(None)
    try:
        return opened(copy)
    except CannotLoad as error:
        # checksums that pass over a bad file (listed again after it was damaged); a load error
        # of any other CTranslate2 model is the caller's
        if copy != info.writable_directory / COPY:
            raise
        damage = f"CTranslate2 cannot load it: {error.reason}"
        remade = _remade(info, copy, _stamp(info), damage=damage)
    return opened(remade)  # None where it can't be made again: PyTorch searches


def _remade(info: ModelInfo, directory: Path, stamp: dict[str, str], *, damage: str) -> Path | None:
    """The damaged copy `directory` made again, with one note either way."""
    started = time.perf_counter()
    failure = _make(info, directory, stamp)
    if failure is None:
        seconds = time.perf_counter() - started
        note(f"{directory} was damaged ({damage}); made it again ({seconds:.1f} s)")
        return directory
    note(
        f"{directory} is damaged ({damage}) and cannot be made again ({failure}): make "
        f"{directory.parent} writable, or remove that folder; searching with PyTorch meanwhile"
    )
    return None


def _make(info: ModelInfo, directory: Path, stamp: dict[str, str]) -> str | None:
    """Convert `info` into a folder of this process's own and rename it to `directory`: None
    when done (or when another process put a whole copy there meanwhile), else why it could not
    be."""
    before = _identity(directory)
    tmp = directory.with_name(f".{COPY}.converting-{os.getpid()}")
    _remove_abandoned(directory)
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)  # a read-only home fails here, before torch is imported
        tmp.rmdir()  # the converter makes its folder itself
        from mt.export.writer import convert_weights  # torch: only when the copy is made

        convert_weights(info, tmp, quantization="int8", checkpoint="best")
        (tmp / STAMP).write_text(json.dumps(stamp, indent=1, sort_keys=True), encoding="utf-8")
        write_checksums(tmp)
        replace_directory(tmp, directory)
    except (OSError, MtError) as error:  # MtError: the listing's atomic write, on a full disk
        if _identity(directory) != before and _whole(directory, stamp):
            return None  # another process won the race
        return getattr(error, "strerror", None) or str(error)
    finally:  # whatever stopped it, nothing half-made is left (after the rename, nothing is)
        shutil.rmtree(tmp, ignore_errors=True)
    return None


def _remove_abandoned(directory: Path) -> None:
    """The conversion folders of processes that are gone (killed while converting): a folder
    whose process still runs is another conversion, left to it."""
    for folder in directory.parent.glob(f".{COPY}.converting-*"):
        pid = folder.name.rsplit("-", 1)[-1]
        if pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    return True


def _identity(directory: Path) -> tuple[int, int] | None:
    """Which folder is at `directory` (a rename puts another there), or None."""
    try:
        found = directory.stat()
    except OSError:
        return None
    return found.st_ino, found.st_ctime_ns


def _whole(directory: Path, stamp: dict[str, str]) -> bool:
    return _read_stamp(directory) == stamp and first_failure(directory) is None


def _stamp(info: ModelInfo) -> dict[str, str]:
    """What the copy is made from: the model's files (their checksums file, verified when the
    model was resolved), and the versions of mt and CTranslate2 that converted it."""
    checksums = (info.directory / CHECKSUMS).read_bytes()
    return {
        "layout": str(LAYOUT),
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
