"""The one SHA-256 helper: `checksums.sha256` listings that `sha256sum -c` reads, written with a
prepared or export directory and checked where mt must not trust a file blindly."""

from __future__ import annotations

import hashlib
from pathlib import Path

from mt.atomic import atomic_write_text
from mt.errors import MtError
from mt.files import CHECKSUMS

_BLOCK = 1 << 20


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def write_checksums(
    directory: Path, known: dict[str, str] | None = None, *, skip: tuple[str, ...] = ()
) -> None:
    """List every file below `directory` but those in its folders `skip` (`mt upgrade`'s
    backups, which may be deleted); `known` digests (taken while a file was written) are used as
    they are rather than read back."""
    known = known or {}
    files = sorted(
        p
        for p in directory.rglob("*")
        if p.is_file() and p.name != CHECKSUMS and p.relative_to(directory).parts[0] not in skip
    )
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
    for number, line in enumerate(listing.read_text(encoding="utf-8").splitlines(), start=1):
        expected, _, name = line.partition("  ")
        path = directory / name
        if not name or len(expected) != 64 or ".." in Path(name).parts:
            raise MtError(f"{listing}:{number}: not a 'sha256  file' line")
        if not path.is_file():
            raise MtError(f"{directory}: {what} is incomplete: missing {name}; {remedy}")
        if file_sha256(path) != expected:
            raise MtError(f"{path}: checksum mismatch; the file is corrupt, {remedy}")
