"""How well a run's tokenizers cover new data (pieces per word, unknown labels on a sample), beside
the same figures on the run's own training part: whether `mt prepare --tokenizers-from` is sound.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

from mt.data.tokenization import UNK, WordPieceCodec

SAMPLE = 20_000
"""Pairs measured on each side: the figures settle long before, and encoding stays quick."""


def side_coverage(texts: Sequence[str], codec: WordPieceCodec) -> dict[str, float]:
    """Word-pieces per whitespace-separated word, and the share of pieces that are unknown."""
    encoded = codec.encode_batch(texts)
    pieces = sum(len(ids) for ids in encoded)
    words = sum(len(text.split()) for text in texts)
    unknown = sum(ids.count(UNK) for ids in encoded)
    return {
        "pieces_per_word": round(pieces / max(words, 1), 4),
        "unknown_share": round(unknown / max(pieces, 1), 6),
        "words": words,
    }


def coverage(
    english: Sequence[str],
    spanish: Sequence[str],
    *,
    source: WordPieceCodec,
    target: WordPieceCodec,
    base_train: Path | None,
) -> dict[str, object]:
    """Both sides' figures on (a sample of) the new data, and on the base data where its
    training part can still be read (else None)."""
    new = new_coverage(english, spanish, source=source, target=target)
    base = None
    if base_train is not None and base_train.is_file():
        base_en, base_es = _sample_pairs(base_train)
        base = {"source": side_coverage(base_en, source), "target": side_coverage(base_es, target)}
    return {"new": new, "base": base, "base_data": str(base_train) if base_train else None}


def new_coverage(
    english: Sequence[str],
    spanish: Sequence[str],
    *,
    source: WordPieceCodec,
    target: WordPieceCodec,
) -> dict[str, dict[str, float]]:
    """Both sides' figures on (a sample of) the new data."""
    english, spanish = evenly(english), evenly(spanish)
    return {"source": side_coverage(english, source), "target": side_coverage(spanish, target)}


def evenly(items: Sequence[str], size: int = SAMPLE) -> list[str]:
    """At most `size` items spread evenly over `items` (a corpus sorted by length stays fair)."""
    step = max(len(items) // size, 1)
    return list(items[::step][:size])


def _sample_pairs(path: Path) -> tuple[list[str], list[str]]:
    """An even sample of a prepared english<TAB>spanish part, read in two passes."""
    with path.open("rb") as file:
        count = sum(block.count(b"\n") for block in iter(lambda: file.read(1 << 20), b""))
    step = max(count // SAMPLE, 1)
    english: list[str] = []
    spanish: list[str] = []
    with path.open(encoding="utf-8", newline="\n") as file:
        for line in itertools.islice(file, 0, None, step):
            en, _, es = line.rstrip("\n").partition("\t")
            english.append(en)
            spanish.append(es)
    return english[:SAMPLE], spanish[:SAMPLE]
