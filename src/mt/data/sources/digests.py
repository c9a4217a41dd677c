"""The digests the data READMEs record: a file's SHA-256, and a folder's tree digest, the output of

    find <dir> -type f | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum

run in the folder's parent: one `sha256sum` line per file, named `<dir>/<path below it>`, in byte
order, and the SHA-256 of that listing.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mt.storage.checksums import file_sha256


def tree_digest(folder: Path) -> str:
    paths = sorted(
        (path for path in folder.rglob("*") if path.is_file()),
        key=lambda path: _name(folder, path).encode("utf-8", "surrogateescape"),
    )
    listing = hashlib.sha256()
    for path in paths:
        listing.update(_sha256sum_line(file_sha256(path), _name(folder, path)).encode())
    return listing.hexdigest()


def digest_of(path: Path) -> str | None:
    """A file's SHA-256 or a folder's tree digest; None when nothing is there."""
    if path.is_dir():
        return tree_digest(path)
    return file_sha256(path) if path.is_file() else None


def _name(folder: Path, path: Path) -> str:
    return f"{folder.name}/{path.relative_to(folder).as_posix()}"


def _sha256sum_line(digest: str, name: str) -> str:
    """As GNU sha256sum writes it: a name holding a backslash or a line break is escaped and the
    line starts with a backslash."""
    if "\\" in name or "\n" in name:
        escaped = name.replace("\\", "\\\\").replace("\n", "\\n")
        return f"\\{digest}  {escaped}\n"
    return f"{digest}  {name}\n"
