"""What is derived from a model's tables (the normaliser, the lexicon) cached as JSON, so start-up
reads it in tens of milliseconds, not the 1.8 s and 0.8 s of deriving it for the shipped model.

An entry is keyed by the SHA-256 of the table and of the deriving module's source, so it is never
stale. Its first line holds the SHA-256 of the JSON below, and an entry that fails it is derived
again with one note (mt.notes). A cache that cannot be read or written costs only the derivation.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from mt.notes import note
from mt.storage.atomic import atomic_output

CACHE_ENV = "MT_CACHE"
FORMAT = 2
"""2: a header line with the payload's checksum. Part of the key, so that an entry of another
format is never read (nor taken for a damaged one)."""
T = TypeVar("T")


def cache_home() -> Path:
    """MT_CACHE, else $XDG_CACHE_HOME/mt, else ~/.cache/mt."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "mt"


def derived(
    table: Path,
    *,
    kind: str,
    code: tuple[ModuleType, ...],
    build: Callable[[], T],
    encode: Callable[[T], Any],
    decode: Callable[[Any], T],
) -> T:
    """`build()`'s result for `table` (which must exist), from the cache when an earlier call
    left it there whole; `code` are the modules whose source decides the result."""
    key = _key(table, code)
    path = cache_home() / "derived" / f"{kind}-{key}.json"
    damage: str | None = None
    try:
        return decode(_payload(path.read_bytes()))
    except OSError:  # not made yet, or a cache that can't be read: quietly derived
        pass
    except (ValueError, KeyError, TypeError) as error:
        damage = str(error) if isinstance(error, ValueError) else f"{error!r} in its payload"
    started = time.perf_counter()
    result = build()
    unwritten = _write(path, encode(result), header={"table": str(table), "key": key})
    seconds = time.perf_counter() - started
    if damage is not None and unwritten is None:
        note(f"{path} was damaged ({damage}); derived it again ({seconds:.1f} s)")
    elif damage is not None:  # a read-only cache: the result is still used
        note(
            f"{path} is damaged ({damage}) and cannot be rewritten ({unwritten}): make "
            f"{path.parent} writable, or remove it; derived it again meanwhile ({seconds:.1f} s)"
        )
    return result


def _payload(entry: bytes) -> Any:
    """The JSON an entry holds, once it matches the checksum of its header line; ValueError
    saying what is wrong."""
    header, _, payload = entry.partition(b"\n")
    try:
        recorded = json.loads(header)["sha256"]
    except (ValueError, KeyError, TypeError):
        raise ValueError("no header line with its checksum") from None
    if hashlib.sha256(payload).hexdigest() != recorded:
        raise ValueError("checksum mismatch")
    return json.loads(payload)


def _write(path: Path, data: Any, *, header: dict[str, str]) -> str | None:
    """An entry written whole or not at all: its header (what it was made from and its
    payload's checksum), a newline, the payload. None, or why it could not be written."""
    payload = json.dumps(data, ensure_ascii=False).encode("utf-8")
    header = {**header, "format": str(FORMAT), "sha256": hashlib.sha256(payload).hexdigest()}
    try:
        with atomic_output(path) as stream:
            stream.write(json.dumps(header, sort_keys=True).encode("utf-8") + b"\n" + payload)
    except OSError as error:
        return error.strerror or str(error)
    return None


def _key(table: Path, code: tuple[ModuleType, ...]) -> str:
    digest = hashlib.sha256(table.read_bytes())
    digest.update(f"format {FORMAT}".encode())
    for module in code:
        source = getattr(module, "__file__", None)
        if source:
            digest.update(Path(source).read_bytes())
    return digest.hexdigest()[:24]
