"""What is derived from a model's tables (the normaliser from words.tsv, the lexicon from
lexicon.tsv) kept as JSON in the user's cache, so that a translation's start-up reads it back in
tens of milliseconds instead of parsing and deriving it again (1.8 s and 0.8 s for the shipped
model on a 2-core AVX2 EPYC; docs/performance.md).

An entry is found by the SHA-256 of the table file and of the source of the module that derives
it: a changed table or a changed derivation misses, never returns a stale result. A cache that
cannot be read or written costs only the derivation.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

from mt.atomic import atomic_write_text

CACHE_ENV = "MT_CACHE"
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
    left it there; `code` are the modules whose source decides the result."""
    path = cache_home() / "derived" / f"{kind}-{_key(table, code)}.json"
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        return decode(json.loads(path.read_text(encoding="utf-8")))
    result = build()
    with contextlib.suppress(OSError):  # a read-only home only costs the next start the build
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(encode(result), ensure_ascii=False))
    return result


def _key(table: Path, code: tuple[ModuleType, ...]) -> str:
    digest = hashlib.sha256(table.read_bytes())
    for module in code:
        source = getattr(module, "__file__", None)
        if source:
            digest.update(Path(source).read_bytes())
    return digest.hexdigest()[:24]
