"""Files written so that a reader, or a crash, sees the old file or the complete new one.

Everything goes to a temporary sibling first and is moved into place with ``os.replace``. No torch
here: `mt prepare` and `mt download` use it and must start fast.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from mt.errors import MtError


@contextlib.contextmanager
def atomic_output(path: Path, *, text: bool = False) -> Iterator[IO[Any]]:
    """A stream whose content replaces ``path`` once the block ends; if the block or the write
    fails, the temporary file goes and ``path`` is left as it was. Errors pass through as raised."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with open(handle, "w" if text else "wb", encoding="utf-8" if text else None) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; a full disk or a refused permission is an MtError."""
    try:
        with atomic_output(path) as stream:
            stream.write(data)
    except OSError as error:
        raise MtError(f"cannot write {path}: {error.strerror or error}", exit_code=1) from error


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))
