"""Members out of the archives the sources come in, byte for byte: a zip member, the files of a
tarball (GitHub's archive of a commit: one top folder, cut off here), the data of a Debian
package (an `ar` archive holding `data.tar.xz`)."""

from __future__ import annotations

import io
import shutil
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path, PurePosixPath

from mt.errors import MtError

AR_MAGIC = b"!<arch>\n"
AR_HEADER = 60  # name 16, date 12, owner 6, group 6, mode 8, size 10, magic 2


def zip_member(archive: Path, member: str, out: Path) -> None:
    """Copy `member` of the zip `archive` to `out`."""
    with zipfile.ZipFile(archive) as opened:
        if member not in opened.namelist():
            raise MtError(f"{archive}: no member {member}", exit_code=1)
        out.parent.mkdir(parents=True, exist_ok=True)
        with opened.open(member) as stream, open(out, "wb") as written:
            shutil.copyfileobj(stream, written)


def tar_files(archive: tarfile.TarFile, *, strip: int = 1) -> Iterator[tuple[str, bytes]]:
    """(path below the first `strip` folders, content) of every regular file; a path that would
    leave the archive's tree is an error, not a file written somewhere else."""
    for member in archive:
        if not member.isfile():
            continue
        parts = PurePosixPath(member.name).parts[strip:]
        if not parts:
            continue
        if ".." in parts or member.name.startswith("/"):
            raise MtError(f"{archive.name}: member {member.name} leaves the archive", 1)
        stream = archive.extractfile(member)
        if stream is not None:
            yield "/".join(parts), stream.read()


def extract_files(archive: Path, select: Callable[[str], str | None], out: Path) -> int:
    """Write each file of the tarball `archive` that `select` names a path for (relative to
    `out`); the count written."""
    written = 0
    with tarfile.open(archive) as opened:
        for name, content in tar_files(opened):
            target = select(name)
            if target is not None:
                path = out / target
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(content)
                written += 1
    return written


def deb_files(deb: Path, prefix: str) -> dict[str, bytes]:
    """The files of a Debian package's data below `prefix` (e.g. `usr/share/x/`), by the path
    that follows it."""
    data = _ar_member(deb, "data.tar")
    found = {}
    with tarfile.open(fileobj=io.BytesIO(data)) as opened:
        for name, content in tar_files(opened, strip=0):
            name = name.removeprefix("./")
            if name.startswith(prefix):
                found[name[len(prefix) :]] = content
    return found


def _ar_member(path: Path, stem: str) -> bytes:
    """The first member of an `ar` archive whose name starts with `stem`."""
    data = path.read_bytes()
    if not data.startswith(AR_MAGIC):
        raise MtError(f"{path}: not a Debian package (no ar header)", exit_code=1)
    offset = len(AR_MAGIC)
    while offset + AR_HEADER <= len(data):
        header = data[offset : offset + AR_HEADER]
        name = header[:16].decode("ascii", "replace").strip().rstrip("/")
        size = int(header[48:58].decode("ascii").strip() or 0)
        body = offset + AR_HEADER
        if name.startswith(stem):
            return data[body : body + size]
        offset = body + size + size % 2  # members are aligned to 2 bytes
    raise MtError(f"{path}: no {stem}.* member", exit_code=1)
