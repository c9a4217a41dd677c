"""Growing a trained run's vocabularies for new data (`mt prepare --tokenizers-from RUN`).

A run trained on everyday sentences reads "<", "{" or "|" as [UNK], so every HTML tag or
`{{placeholder}}` of a manual is lost. Each character the new text holds `min_count` times and the
run cannot spell gets a word-start and a "##" piece, and missing placeholders are added. New labels
go after the run's, so old ids keep their meaning for `mt train --init-from` (mt.train.finetune).
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from mt.data.tokenization import CONTINUE, PLACEHOLDERS, SPACE, WordPieceCodec


@dataclass(frozen=True)
class Growth:
    """What one side's vocabulary gained, for prepare.json."""

    placeholders: tuple[str, ...] = ()
    characters: tuple[str, ...] = ()
    pieces: tuple[str, ...] = ()  # the character pieces appended, in id order

    @property
    def added(self) -> int:
        return len(self.pieces) + len(self.placeholders)

    def to_dict(self) -> dict[str, object]:
        return {
            "added": self.added,
            "placeholders": len(self.placeholders),
            "characters": "".join(self.characters),
            "pieces": list(self.pieces),
        }


def missing_characters(texts: Sequence[str], codec: WordPieceCodec, *, min_count: int) -> list[str]:
    """Characters seen at least `min_count` times in `texts` that `codec` cannot spell in every
    place, the most frequent first."""
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(text)
    missing = [
        char
        for char, count in counts.items()
        if count >= min_count and not char.isspace() and char != SPACE and _lacks(codec, char)
    ]
    return sorted(missing, key=lambda char: (-counts[char], char))


def _lacks(codec: WordPieceCodec, char: str) -> list[str]:
    """The pieces `codec` needs to spell `char` anywhere: "c" where nothing is glued before it,
    "##c" inside a word. A mark or digit is always a word of its own ("▁<" or "<"), so after a
    space a "▁<" piece serves as well as "▁" + "##<"."""
    lacking = [] if codec.knows(char) else [char]
    isolated = unicodedata.category(char)[0] in "PS" or char.isdigit()
    if not codec.knows(CONTINUE + char) and not (isolated and codec.knows(SPACE + char)):
        lacking.append(CONTINUE + char)
    return lacking


def grow(
    codec: WordPieceCodec, texts: Sequence[str], *, min_count: int
) -> tuple[WordPieceCodec, Growth]:
    """`codec` with the pieces `texts` needs appended (itself when it needs none)."""
    placeholders = tuple(p for p in PLACEHOLDERS if not codec.knows(p))
    characters = tuple(missing_characters(texts, codec, min_count=min_count))
    pieces = tuple(piece for char in characters for piece in _lacks(codec, char))
    growth = Growth(placeholders=placeholders, characters=characters, pieces=pieces)
    if not growth.added:
        return codec, growth
    return codec.extended(pieces=pieces, placeholders=placeholders), growth


def grow_pair(
    source: WordPieceCodec,
    target: WordPieceCodec,
    texts: tuple[Sequence[str], Sequence[str]],
    *,
    shared: bool,
    min_count: int,
) -> tuple[WordPieceCodec, WordPieceCodec, Growth, Growth]:
    """Both sides grown on their own text; a shared vocabulary grows once, on both texts, and
    stays shared."""
    english, spanish = texts
    if shared:
        grown, growth = grow(source, [*english, *spanish], min_count=min_count)
        return grown, grown, growth, growth
    new_source, source_growth = grow(source, english, min_count=min_count)
    new_target, target_growth = grow(target, spanish, min_count=min_count)
    return new_source, new_target, source_growth, target_growth
