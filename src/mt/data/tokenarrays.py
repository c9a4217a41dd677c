"""Token ids of a prepared part as two binary files that `mt train` reads row by row.

`PART.SIDE.ids` holds every sentence's ids end to end (uint16 when the vocabulary fits, else
uint32) and `PART.SIDE.offsets` the int64 start of each sentence plus the end of the last: raw
little-endian arrays without a header, as fairseq's indexed datasets, so start-up reads lengths
only. prepare.json records dtype, counts and SHA-256; `mt train` checks counts and sizes.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from mt.errors import MtError
from mt.storage.checksums import file_sha256

_CHUNK = 1 << 20
_OFFSETS = np.dtype("<i8")


@dataclass(frozen=True)
class TokenColumn:
    """Sentences of label ids end to end: sentence i is ``ids[offsets[i]:offsets[i + 1]]``.

    ``lengths`` (int32, one per sentence) is what batch planning reads; `open_column` fills it by
    reading the offsets file in chunks, so the whole offsets map is never paged in.
    """

    ids: np.ndarray  # (tokens,) uint16 / uint32 / int64, in memory
    offsets: np.ndarray  # (sentences + 1,) int64, starting at 0
    lengths: np.ndarray | None = None  # (sentences,) int32

    @classmethod
    def from_lists(cls, sentences: Sequence[Sequence[int]]) -> TokenColumn:
        sizes = np.fromiter((len(s) for s in sentences), dtype=np.int64, count=len(sentences))
        offsets = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        ids = np.fromiter(
            itertools.chain.from_iterable(sentences), dtype=np.int64, count=int(offsets[-1])
        )
        return cls(ids=ids, offsets=offsets, lengths=sizes.astype(np.int32))

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def sizes(self) -> np.ndarray:
        """Labels per sentence (int32)."""
        if self.lengths is not None:
            return self.lengths
        return np.diff(self.offsets).astype(np.int32)

    def row(self, index: int) -> np.ndarray:
        return self.ids[self.offsets[index] : self.offsets[index + 1]]

    @property
    def dtype(self) -> np.dtype:
        return self.ids.dtype


class FileColumn:
    """A prepared column read row by row from its files with `os.pread`: nothing is mapped, so
    resident memory grows with the batches read, not with the corpus (a memory map would count
    every page the kernel maps around a touched row, 64 KiB at a time, against this process).
    Sentence lengths are in memory, 4 bytes a sentence, for batch planning."""

    def __init__(self, ids_path: Path, offsets_path: Path, *, dtype: np.dtype, lengths: np.ndarray):
        self.dtype, self.lengths = dtype, lengths
        self._ids = os.open(ids_path, os.O_RDONLY)
        self._offsets = os.open(offsets_path, os.O_RDONLY)
        weakref.finalize(self, _close, self._ids, self._offsets)

    def __len__(self) -> int:
        return len(self.lengths)

    def sizes(self) -> np.ndarray:
        return self.lengths

    def start(self, index: int) -> int:
        return int.from_bytes(os.pread(self._offsets, 8, 8 * index), "little", signed=True)

    def row(self, index: int) -> np.ndarray:
        size = int(self.lengths[index]) * self.dtype.itemsize
        data = os.pread(self._ids, size, self.start(index) * self.dtype.itemsize)
        return np.frombuffer(data, dtype=self.dtype)


def _close(*descriptors: int) -> None:
    for descriptor in descriptors:
        os.close(descriptor)


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
                offsets_path.name: file_sha256(offsets_path),
            },
        }

    def abort(self) -> None:
        self._file.close()


def open_column(directory: Path, entry: dict[str, Any]) -> FileColumn:
    """The column `entry` (from prepare.json) describes, read from its files; sizes and
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
    lengths = _lengths(offsets_path, sentences)
    column = FileColumn(ids_path, offsets_path, dtype=dtype, lengths=lengths)
    if column.start(0) != 0 or column.start(sentences) != tokens:
        raise MtError(
            f"{offsets_path} does not match {ids_path.name} ({sentences:,} sentences, "
            f"{tokens:,} ids in prepare.json); run `mt prepare` again"
        )
    return column


def _lengths(offsets_path: Path, sentences: int) -> np.ndarray:
    """Sentence lengths from the offsets file, read a chunk at a time (file reads leave the page
    cache shared; a full pass over the memory map would count against this process)."""
    lengths = np.empty(sentences, dtype=np.int32)
    with offsets_path.open("rb") as file:
        previous = int(np.fromfile(file, dtype=_OFFSETS, count=1)[0])
        for start in range(0, sentences, _CHUNK):
            block = np.fromfile(file, dtype=_OFFSETS, count=min(_CHUNK, sentences - start))
            lengths[start : start + len(block)] = np.diff(block, prepend=previous)
            previous = int(block[-1])
    return lengths
