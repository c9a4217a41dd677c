"""Files written so that a reader, or a crash, sees the old file or the complete new one: a synced
temporary sibling, ``os.replace``, then a synced directory. Permissions follow the umask as a plain
``open`` would (a group or a service account may serve the run). No torch: `mt prepare` starts fast.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from mt.errors import MtError


@contextlib.contextmanager
def atomic_output(path: Path, *, text: bool = False) -> Iterator[IO[Any]]:
    """A stream whose content replaces ``path`` once the block ends; if the block or the write
    fails, the temporary file goes and ``path`` is left as it was. Errors pass through as raised."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp_name = _create_temporary(path)
    try:
        with open(handle, "w" if text else "wb", encoding="utf-8" if text else None) as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp_name, path)
    except BaseException:
        Path(temp_name).unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)


def _create_temporary(path: Path) -> tuple[int, Path]:
    """A new sibling of ``path``; mode 0o666 lets the kernel apply the umask (``mkstemp`` would
    make it 0o600)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        temp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temp, flags, 0o666), temp
        except FileExistsError:
            continue


def _sync_directory(directory: Path) -> None:
    if os.name != "posix":  # directories cannot be opened for fsync elsewhere
        return
    handle = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically; a full disk or a refused permission is an MtError."""
    atomic_write_chunks(path, [data])


def atomic_write_chunks(path: Path, chunks: Iterable[bytes]) -> None:
    """Write ``chunks`` to ``path`` as they come (a document translated piece by piece), the file
    replaced only once the last has come; a full disk or a refused permission is an MtError."""
    try:
        with atomic_output(path) as stream:
            for chunk in chunks:
                stream.write(chunk)
    except OSError as error:
        raise MtError(f"cannot write {path}: {error.strerror or error}", exit_code=1) from error


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def check_replaceable(
    out: Path, *, force: bool, is_ours: Callable[[Path], bool], refusal: str
) -> None:
    """`--out` may be created, or with --force replaced when it holds what the command wrote
    before; `refusal` ends the message for a directory that holds something else."""
    if not out.exists():
        return
    if not out.is_dir():
        raise MtError(f"--out {out} exists and is not a directory")
    if not force:
        raise MtError(f"--out {out} already exists; use --force to replace it")
    if any(out.iterdir()) and not is_ours(out):
        raise MtError(f"--out {out} {refusal}")


@contextlib.contextmanager
def building_beside(out: Path, *, doing: str) -> Iterator[Path]:
    """Where to build a directory that replace_directory then renames to `out`: `.NAME.DOING-PID`
    beside it, not yet made. If the block fails what was built there goes, and an OSError (a full
    disk, a refused permission) becomes one MtError naming `out`."""
    building = out.with_name(f".{out.name}.{doing}-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    try:
        yield building
    except OSError as error:
        shutil.rmtree(building, ignore_errors=True)
        raise MtError(f"cannot write {out}: {error.strerror or error}", exit_code=1) from None
    except BaseException:
        shutil.rmtree(building, ignore_errors=True)
        raise


def replace_directory(finished: Path, out: Path) -> None:
    """Rename a completely written directory to `out`. An old `out` is renamed away first, put
    back if the second rename fails, and deleted once the new one is in place."""
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if out.exists():
        os.rename(out, old)
    try:
        os.rename(finished, out)
    except OSError:
        if old.exists():
            os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)
