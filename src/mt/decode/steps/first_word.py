"""The first-word step: a sentence's first word given to the model in the spelling it knows
("Happy birthday!" as "happy birthday!", mt.text.first_words), and the translation's first
letter made a capital again."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from mt.decode.segment import Segmented
from mt.decode.steps.search import Found
from mt.text.first_words import FirstWords, capitalised_first

_SENTENCE_END = re.compile(r"[.!?…:][\"'”’»)\]]*\s*$")
"""A piece that ends a sentence: the next piece begins one. A long sentence cut at a comma or a
conjunction goes on in its next piece, whose first word is no sentence's first."""


@dataclass(frozen=True)
class LowerFirstWords:
    """`words` None: every piece goes to the model as written (the step is off)."""

    words: FirstWords | None

    def apply(self, cut: Segmented) -> tuple[tuple[str, ...], tuple[bool, ...]]:
        """The pieces with each sentence's first word lowered where fit, and which were lowered."""
        if self.words is None:
            return cut.pieces, (False,) * len(cut.pieces)
        pieces, lowered = [], []
        for i, piece in enumerate(cut.pieces):
            starts = i == 0 or _SENTENCE_END.search(cut.pieces[i - 1] + cut.gaps[i]) is not None
            lower = self.words.lowered(piece) if starts else None
            pieces.append(piece if lower is None else lower)
            lowered.append(lower is not None)
        return tuple(pieces), tuple(lowered)

    @staticmethod
    def reverse(found: Found, lowered: bool) -> Found:
        """A lowered piece's hypotheses with their first letter a capital again."""
        if not lowered:
            return found
        hypotheses = tuple((capitalised_first(text), score) for text, score in found.hypotheses)
        return replace(found, hypotheses=hypotheses)
