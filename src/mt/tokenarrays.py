"""Token ids of a prepared part as two binary files that `mt train` memory-maps.

`PART.SIDE.ids` holds every sentence's ids end to end (uint16 when the vocabulary fits, else
uint32) and `PART.SIDE.offsets` the int64 start of each sentence plus the end of the last: raw
little-endian arrays without a header, nothing to unpickle. This is the layout of fairseq's
indexed datasets and Marian's binary corpora: training reads the offsets at start-up and only the
rows of its own batches after, so start-up time and memory do not grow with the corpus.
prepare.json records the dtype, counts and SHA-256 of each file; `mt train` checks the counts
and sizes (cheap), `sha256sum -c checksums.sha256` in the directory checks the contents.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from mt.errors import MtError

_CHUNK = 1 << 20
_OFFSETS = np.dtype("<i8")


@dataclass(frozen=True)
class TokenColumn:
    """Sentences of label ids end to end: sentence i is ``ids[offsets[i]:offsets[i + 1]]``."""

    ids: np.ndarray  # (tokens,) uint16 / uint32 / int64, often a read-only memory map
    offsets: np.ndarray  # (sentences + 1,) int64, starting at 0

    @classmethod
    def from_lists(cls, sentences: Sequence[Sequence[int]]) -> TokenColumn:
        sizes = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
        offsets = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        ids = np.fromiter(
            itertools.chain.from_iterable(sentences), dtype=np.int64, count=int(offsets[-1])
        )
        return cls(ids=ids, offsets=offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def sizes(self) -> np.ndarray:
        """Labels per sentence (int64)."""
        return np.diff(self.offsets)

    def row(self, index: int) -> np.ndarray:
        return self.ids[self.offsets[index] : self.offsets[index + 1]]


def ids_dtype(vocab_size: int) -> np.dtype:
    return np.dtype("<u2") if vocab_size <= np.iinfo(np.uint16).max + 1 else np.dtype("<u4")


class TokenArrayWriter:
    """Appends encoded sentences to `PART.SIDE.ids`; `finish` writes the offsets and returns the
    entry for prepare.json. Offsets are kept in memory (8 bytes a sentence) until then."""

    def __init__(self, directory: Path, name: str, *, vocab_size: int) -> None:
        self.directory, self.name = directory, name
        self.dtype = ids_dtype(vocab_size)
        self._ids_path = directory / f"{name}.ids"
        self._file: BinaryIO = self._ids_path.open("wb")
        self._hash = hashlib.sha256()
        self._sizes: list[np.ndarray] = []
        self._tokens = 0

    def add(self, sentences: Sequence[Sequence[int]]) -> None:
        sizes = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
        flat = np.fromiter(
            itertools.chain.from_iterable(sentences),
            dtype=self.dtype,
            count=int(sizes.sum()),
        )
        data = flat.tobytes()
        self._file.write(data)
        self._hash.update(data)
        self._sizes.append(sizes)
        self._tokens += len(flat)

    def finish(self) -> dict[str, Any]:
        self._file.flush()
        self._file.close()
        sizes = np.concatenate(self._sizes) if self._sizes else np.zeros(0, dtype=np.int64)
        offsets = np.zeros(len(sizes) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        offsets_path = self.directory / f"{self.name}.offsets"
        offsets.astype(_OFFSETS).tofile(offsets_path)
        return {
            "ids": self._ids_path.name,
            "offsets": offsets_path.name,
            "dtype": self.dtype.str,
            "sentences": len(sizes),
            "tokens": self._tokens,
            "sha256": {
                self._ids_path.name: self._hash.hexdigest(),
                offsets_path.name: sha256(offsets_path),
            },
        }

    def abort(self) -> None:
        self._file.close()


def open_column(directory: Path, entry: dict[str, Any]) -> TokenColumn:
    """The column `entry` (from prepare.json) describes, memory-mapped read-only; sizes and
    counts are checked so that a truncated or replaced file is a clear error, not wrong data."""
    try:
        ids_path = directory / entry["ids"]
        offsets_path = directory / entry["offsets"]
        dtype = np.dtype(entry["dtype"])
        sentences, tokens = int(entry["sentences"]), int(entry["tokens"])
    except (KeyError, TypeError, ValueError) as error:
        raise MtError(
            f"{directory}: prepare.json token arrays are damaged ({error}); run `mt prepare` again"
        ) from None
    for path in (ids_path, offsets_path):
        if not path.is_file():
            raise MtError(f"{path} is missing; run `mt prepare` again")
    expected = tokens * dtype.itemsize
    actual = ids_path.stat().st_size
    if actual != expected:
        raise MtError(
            f"{ids_path} has {actual:,} bytes, prepare.json says {expected:,}; "
            "run `mt prepare` again"
        )
    if offsets_path.stat().st_size != (sentences + 1) * _OFFSETS.itemsize:
        raise MtError(
            f"{offsets_path} does not match {ids_path.name} ({sentences:,} sentences, "
            f"{tokens:,} ids in prepare.json); run `mt prepare` again"
        )
    offsets = np.memmap(offsets_path, dtype=_OFFSETS, mode="r", shape=(sentences + 1,))
    if offsets.shape != (sentences + 1,) or int(offsets[0]) != 0 or int(offsets[-1]) != tokens:
        raise MtError(
            f"{offsets_path} does not match {ids_path.name} ({sentences:,} sentences, "
            f"{tokens:,} ids in prepare.json); run `mt prepare` again"
        )
    ids = (
        np.memmap(ids_path, dtype=dtype, mode="r", shape=(tokens,))
        if tokens
        else np.zeros(0, dtype=dtype)
    )
    return TokenColumn(ids=ids, offsets=offsets)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while block := file.read(_CHUNK):
            digest.update(block)
    return digest.hexdigest()
