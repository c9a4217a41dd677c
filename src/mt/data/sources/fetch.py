"""`mt download --recipe`: every source of the registry into a data root laid out like
../shared/data, each checked against the digests its README records.

A file already there with its digest is skipped, one with another digest reported and left alone.
Downloads go to ROOT/.downloads/SOURCE/NAME.part (resumed with HTTP Range; a wrong digest removes
it), conversions write to a staging folder and move each file to its name only once checked, so no
name under the root ever holds a partial or unchecked file. No network is one error that ends the
run; other failures are one line each and the run goes on.
"""

from __future__ import annotations

import contextlib
import lzma
import os
import shutil
import tarfile
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Protocol

from mt.data.sources.digests import digest_of
from mt.data.sources.http import GONE, ByteProgress, Cut, HttpFailure, Unreachable, download
from mt.data.sources.registry import Convert, Download, Output, Source
from mt.errors import MtError
from mt.storage.checksums import file_sha256

DOWNLOADS = ".downloads"
SHARED = "../shared/data"
CONVERSION_ERRORS = (
    MtError, OSError, EOFError, ValueError, KeyError, tarfile.TarError, zipfile.BadZipFile,
    lzma.LZMAError, zlib.error,
)  # fmt: skip
"""What a broken or unexpected download makes a conversion raise."""


class Status(Enum):
    PRESENT = "present"
    FETCHED = "fetched"
    BY_HAND = "by hand"
    FAILED = "failed"


@dataclass(frozen=True)
class Outcome:
    source: str
    status: Status
    line: str


class Report(ByteProgress, Protocol):
    def outcome(self, outcome: Outcome) -> None: ...


class _Failed(Exception):
    """One source could not be fetched; the message is its line."""


def fetch_sources(
    root: Path, sources: Sequence[Source], *, report: Report, timeout: float = 60.0
) -> list[Outcome]:
    """Each source in turn, its outcome reported as it is known; Offline ends the run."""
    outcomes = []
    for source in sources:
        try:
            outcome = fetch_source(source, root, report=report, timeout=timeout)
        except Unreachable as error:
            raise MtError(_offline(source, error, root), exit_code=1) from None
        report.outcome(outcome)
        outcomes.append(outcome)
    with contextlib.suppress(OSError):  # empty once every download is in place
        (root / DOWNLOADS).rmdir()
    return outcomes


def fetch_source(source: Source, root: Path, *, report: Report, timeout: float) -> Outcome:
    found = {output.path: digest_of(root / output.path) for output in source.outputs}
    wrong = [o for o in source.outputs if found[o.path] not in (None, o.sha256)]
    if wrong:
        line = f"{source.name}: {_present_but_wrong(root, wrong[0], found)}"
        return Outcome(source.name, Status.FAILED, line)
    if all(found[output.path] for output in source.outputs):
        return Outcome(source.name, Status.PRESENT, f"{source.name}: present and verified")
    if not source.reproducible or source.convert is None:
        return Outcome(source.name, Status.BY_HAND, _by_hand(source, root))
    try:
        _fetch_and_convert(source, source.convert, root, report=report, timeout=timeout)
    except _Failed as failure:
        return Outcome(source.name, Status.FAILED, f"{source.name}: {failure}")
    where = ", ".join(str(root / output.path) for output in source.outputs)
    return Outcome(source.name, Status.FETCHED, f"{source.name}: fetched and verified: {where}")


def _fetch_and_convert(
    source: Source, convert: Convert, root: Path, *, report: Report, timeout: float
) -> None:
    work = root / DOWNLOADS / source.name
    files = [
        _download(source, item, work, report=report, timeout=timeout) for item in source.downloads
    ]
    staging = work / "staging"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        convert(files, staging)
    except CONVERSION_ERRORS as error:
        _discard(source, work)
        raise _Failed(f"cannot convert its downloads ({error}); nothing was written") from None
    for output in source.outputs:
        made = digest_of(staging / output.path)
        if made != output.sha256:
            _discard(source, work)
            raise _Failed(
                f"{root / output.path}: sha256 mismatch: expected {output.sha256}, found {made}; "
                "nothing was written under that name"
            )
    for output in source.outputs:
        target = root / output.path
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / output.path, target)
    shutil.rmtree(work)


def _download(
    source: Source, item: Download, work: Path, *, report: Report, timeout: float
) -> Path:
    final, part = work / item.name, work / f"{item.name}.part"
    if final.is_file() and item.sha256 in (None, file_sha256(final)):
        return final
    label = f"{source.name}: {item.name}"
    for number, url in enumerate(item.urls, start=1):
        try:
            download(url, part, label=label, progress=report, timeout=timeout)
            break
        except HttpFailure as error:
            if error.status in GONE and number < len(item.urls):
                part.unlink(missing_ok=True)  # the next address's bytes may differ
                continue
            raise _Failed(str(error)) from None
        except Cut as error:
            raise _Failed(str(error)) from None
    found = file_sha256(part)
    if item.sha256 is not None and found != item.sha256:
        part.unlink()
        raise _Failed(
            f"{part.with_suffix('')}: sha256 mismatch: expected {item.sha256}, found {found}; "
            f"the download ({url}) was removed"
        )
    os.replace(part, final)
    return final


def _discard(source: Source, work: Path) -> None:
    """The staging folder, and the downloads whose digest no README records (a new download may
    differ); checked ones are kept for the next run."""
    shutil.rmtree(work / "staging", ignore_errors=True)
    for item in source.downloads:
        if item.sha256 is None:
            (work / item.name).unlink(missing_ok=True)


def _present_but_wrong(root: Path, output: Output, found: dict[str, str | None]) -> str:
    return (
        f"{root / output.path}: present, but its sha256 is {found[output.path]}, not the "
        f"recorded {output.sha256}; left as it is (move it away to fetch it again)"
    )


def _by_hand(source: Source, root: Path) -> str:
    files = " and ".join(output.path for output in source.outputs)
    return (
        f"{source.name}: not fetched: it cannot be rebuilt exactly from its source "
        f"({source.home}, {source.version}): {source.why_not}. Copy {files} from {SHARED} into "
        f"{root} if you have it; the recipe goes on without it"
    )


def _offline(source: Source, error: Unreachable, root: Path) -> str:
    return (
        f"{source.name}: cannot reach {error.url} ({error.reason}): no network? Put ../shared "
        f"beside the checkout (make model then uses {SHARED}), copy its files into {root}, or "
        "run this again once online (what is fetched is kept, a partial download goes on)"
    )
