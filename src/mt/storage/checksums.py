"""The one SHA-256 helper: `checksums.sha256` listings that `sha256sum -c` reads, written with a
prepared or export directory and checked where mt must not trust a file blindly."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

from mt.errors import MtError
from mt.storage.atomic import atomic_write_text
from mt.storage.files import CHECKSUMS

_BLOCK = 1 << 20


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(directory: Path, known: dict[str, str] | None = None) -> None:
    """List every file below `directory`; `known` digests (taken while a file was written) are
    used as they are rather than read back."""
    known = known or {}
    files = sorted(p for p in directory.rglob("*") if p.is_file() and p.name != CHECKSUMS)
    lines = []
    for path in files:
        name = path.relative_to(directory).as_posix()
        lines.append(f"{known.get(name) or file_sha256(path)}  {name}\n")
    atomic_write_text(directory / CHECKSUMS, "".join(lines))


def verify_checksums(directory: Path, *, what: str, remedy: str) -> None:
    """Every file the listing names exists with its recorded SHA-256, else one clear MtError."""
    listing = directory / CHECKSUMS
    if not listing.is_file():
        raise MtError(f"{directory}: {what} is incomplete: missing {CHECKSUMS}")
    for number, expected, name in _entries(listing.read_text(encoding="utf-8")):
        path = directory / name
        if expected is None:
            raise MtError(f"{listing}:{number}: not a 'sha256  file' line")
        if not path.is_file():
            raise MtError(f"{directory}: {what} is incomplete: missing {name}; {remedy}")
        if file_sha256(path) != expected:
            raise MtError(f"{path}: checksum mismatch; the file is corrupt, {remedy}")


def first_failure(directory: Path) -> str | None:
    """What first fails the listing of a directory mt made itself, in a few words naming the file
    ("model.bin: checksum mismatch", "missing config.json"), for a cache that mends itself rather
    than stop (mt.export.int8_copy); None when every file is listed and as listed. A file the
    listing leaves out fails too: such a directory holds nothing else, so a listing cut short
    (emptied by a full disk) must not pass for one that checks fewer files."""
    listing = directory / CHECKSUMS
    try:
        text = listing.read_text(encoding="utf-8")
    except FileNotFoundError:
        return f"missing {CHECKSUMS}"
    except (OSError, UnicodeDecodeError) as error:
        return f"{CHECKSUMS}: {getattr(error, 'strerror', None) or error}"
    listed: set[str] = set()
    for number, expected, name in _entries(text):
        path = directory / name
        if expected is None:
            return f"{CHECKSUMS}:{number}: not a 'sha256  file' line"
        if not path.is_file():
            return f"missing {name}"
        if file_sha256(path) != expected:
            return f"{name}: checksum mismatch"
        listed.add(name)
    present = (p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file())
    unlisted = sorted(set(present) - listed - {CHECKSUMS})
    return f"{CHECKSUMS} leaves out {unlisted[0]}" if unlisted else None


def _entries(text: str) -> Iterator[tuple[int, str | None, str]]:
    """(line number, digest, file name) of each line of a listing; the digest None where the
    line is not a digest and a name inside the directory."""
    for number, line in enumerate(text.splitlines(), start=1):
        expected, _, name = line.partition("  ")
        well_formed = bool(name) and len(expected) == 64 and ".." not in Path(name).parts
        yield number, expected if well_formed else None, name
