"""Stage 4 of `mt prepare`: every part's TSV encoded with the new tokenizers into the token arrays
`mt train` reads (train and selection), with word-piece length statistics of every part and the
word-piece filter `--max-length` applied on the encoded ids."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from mt.data.prepare.paragraphs import WholeParagraphs
from mt.data.prepare.partition import pair_hashes
from mt.data.prepare.stages import Stages
from mt.data.prepared_dir import ARRAY_PARTS, PART_FILES, SIDES
from mt.data.readers.corpus import PARTS
from mt.data.tokenarrays import TokenArrayWriter, open_column
from mt.data.tokenization import WordPieceCodec

CHUNK = 100_000  # pairs read, written or encoded at a time


def line_chunks(path: Path, size: int = CHUNK) -> Iterator[list[str]]:
    with path.open(encoding="utf-8", newline="\n") as file:
        while lines := list(itertools.islice(file, size)):
            yield lines


def too_long_reason(max_length: int) -> str:
    return f"more than {max_length} labels"


def encode_parts(
    tmp: Path,
    *,
    source: WordPieceCodec,
    target: WordPieceCodec,
    max_length: int,
    stages: Stages,
    whole: WholeParagraphs,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], int]:
    """Token arrays of train and selection, word-piece length statistics of every part, the pair
    counts of every part, and how many pairs `max_length` left out."""
    arrays: dict[str, Any] = {"parts": {}}
    lengths: dict[str, Any] = {}
    parts: dict[str, Any] = {}
    too_long = 0
    counts = {name: count_lines(tmp / PART_FILES[name]) for name in PARTS}
    stages.start("encode", sum(counts.values()))
    for name in PARTS:
        encoded = EncodedPart(tmp, name, source, target, whole)
        encoded.run(max_length, stages)
        too_long += encoded.too_long
        if max_length:
            counts[name] = int(encoded.entries["source"]["sentences"])
        lengths[name] = {
            side: _length_stats(open_column(tmp, entry).sizes())
            for side, entry in encoded.entries.items()
        }
        parts[name] = {"pairs": counts[name], "distinct_english": encoded.distinct_english()}
        if name in ARRAY_PARTS:
            arrays["parts"][name] = encoded.entries
        else:  # the test part is read as text by `mt evaluate`: its arrays were for the figures
            for entry in encoded.entries.values():
                (tmp / entry["ids"]).unlink()
                (tmp / entry["offsets"]).unlink()
    arrays["dtype"] = {side: arrays["parts"]["train"][side]["dtype"] for side in SIDES}
    return arrays, lengths, parts, too_long


class EncodedPart:
    """One part's TSV encoded into token arrays. The word-piece filter (`--max-length`) is its own
    step on the encoded ids: a pair it leaves out leaves the part's TSV too, so the text and the
    arrays stay row for row the same."""

    def __init__(
        self,
        tmp: Path,
        name: str,
        source: WordPieceCodec,
        target: WordPieceCodec,
        whole: WholeParagraphs,
    ) -> None:
        self.whole = whole
        self.part_file = tmp / PART_FILES[name]
        self.codecs = (source, target)
        self.writers = {
            side: TokenArrayWriter(tmp, f"{name}.{suffix}", vocab_size=codec.vocab_size)
            for (side, suffix), codec in zip(SIDES.items(), self.codecs, strict=True)
        }
        self.entries: dict[str, Any] = {}
        self.english_hashes: list[np.ndarray] = []
        self.too_long = 0

    def run(self, max_length: int, stages: Stages) -> None:
        kept_file = self.part_file.with_suffix(".kept")
        try:
            with contextlib.ExitStack() as stack:
                kept = (
                    stack.enter_context(kept_file.open("w", encoding="utf-8", newline="\n"))
                    if max_length
                    else None
                )
                for lines in line_chunks(self.part_file):
                    stages.advance(len(lines))
                    lines, en_ids, es_ids = self._encode(lines, max_length)
                    if kept is not None:
                        kept.write("".join(lines))
                    self.english_hashes.append(
                        pair_hashes([line.split("\t", 1)[0] for line in lines])
                    )
                    self.writers["source"].add(en_ids)
                    self.writers["target"].add(es_ids)
            self.entries = {side: writer.finish() for side, writer in self.writers.items()}
        except BaseException:
            for writer in self.writers.values():
                writer.abort()
            raise
        if max_length:
            kept_file.replace(self.part_file)

    def _encode(self, lines: list[str], max_length: int) -> tuple[list[str], list, list]:
        split = [line.rstrip("\n").split("\t", 1) for line in lines]
        en_ids = self.codecs[0].encode_batch([pair[0] for pair in split])
        es_ids = self.codecs[1].encode_batch([pair[1] for pair in split])
        if not max_length:
            return lines, en_ids, es_ids
        fits = [
            len(a) <= max_length and len(b) <= max_length
            for a, b in zip(en_ids, es_ids, strict=True)
        ]
        self.too_long += fits.count(False)
        self.whole.note_dropped([line for line, fit in zip(lines, fits, strict=True) if not fit])
        kept = (list(itertools.compress(items, fits)) for items in (lines, en_ids, es_ids))
        return next(kept), next(kept), next(kept)

    def distinct_english(self) -> int:
        hashes = self.english_hashes
        return len(np.unique(np.concatenate(hashes))) if hashes else 0


def count_lines(path: Path) -> int:
    with path.open("rb") as file:
        return sum(block.count(b"\n") for block in iter(lambda: file.read(1 << 20), b""))


def _length_stats(counts: np.ndarray) -> dict[str, float]:
    """Word-pieces per sentence (no BOS/EOS)."""
    if len(counts) == 0:
        return {"mean": 0.0, "p95": 0.0, "p99": 0.0, "max": 0}
    return {
        "mean": round(float(counts.mean()), 2),
        "p95": float(np.percentile(counts, 95)),
        "p99": float(np.percentile(counts, 99)),
        "max": int(counts.max()),
    }
