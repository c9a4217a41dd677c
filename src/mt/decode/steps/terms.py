"""The glossary step: a piece's terms swapped for stand-ins the model copies, and the Spanish
terms put in their place in its output (mt.decode.glossary holds the matching and the casing)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mt.decode.glossary import Glossary, Slots, place, restore, with_terms
from mt.decode.results import Counts, TermCounts, Translation


@dataclass(frozen=True)
class PlaceTerms:
    """`stand_ins`: the placeholder tokens where the model has them, else names it copies."""

    stand_ins: tuple[str, ...]

    def apply(self, piece: str, glossary: Glossary | None) -> tuple[str, Slots, int]:
        """The piece with its terms replaced, the slots, and how many terms found no stand-in."""
        if glossary is None:
            return piece, (), 0
        return place(piece, glossary, self.stand_ins)

    def reverse(self, text: str, slots: Slots, glossary: Glossary | None = None) -> str:
        """The output with the terms back, their articles agreeing with the terms' genders."""
        return restore(text, slots, None if glossary is None else glossary.genders)[0]

    @staticmethod
    def already_there(
        line: str, translation: Translation, glossary: Glossary, found: int
    ) -> Translation | None:
        """The translation of `line` made without the glossary, if it already has every term's
        Spanish (`found` terms counted); None when stand-ins must force them."""
        written = with_terms(line, translation.text, glossary)
        if written is None:
            return None
        hypotheses = translation.hypotheses
        counted = Counts(terms=TermCounts(found=found, already_there=1))
        return replace(
            translation,
            hypotheses=((written, hypotheses[0][1]), *hypotheses[1:]),
            counts=translation.counts + counted,
        )
