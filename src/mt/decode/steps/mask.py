"""Glossary and protect toward the model, restore back: a piece as the model sees it, and the
piece's output with everything swapped put back. Terms go first (their stand-ins are then
taken) and come back first (a placeholder token left over after the spans' would be dropped)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mt.decode.glossary import Glossary
from mt.decode.glossary import Slots as TermSlots
from mt.decode.placeholders import Slots
from mt.decode.results import Counts, TermCounts
from mt.decode.steps.protect import ProtectSpans
from mt.decode.steps.search import Found
from mt.decode.steps.terms import PlaceTerms


@dataclass(frozen=True)
class Masked:
    """A piece as the model sees it: its stand-ins for spans and names (`slots`) and for
    glossary terms (`terms`); `unplaced` terms found no free stand-in."""

    text: str
    slots: Slots
    terms: TermSlots
    unplaced: int
    original: str
    glossary: Glossary | None
    counts: Counts  # the terms found and unplaced


@dataclass(frozen=True)
class Mask:
    terms: PlaceTerms
    spans: ProtectSpans

    def apply(self, piece: str, glossary: Glossary | None) -> Masked:
        text, terms, unplaced = self.terms.apply(piece, glossary)
        text, slots = self.spans.apply(text, fixed=tuple(token for token, _ in terms))
        found = TermCounts(found=len(terms) + unplaced, unplaced=unplaced)
        return Masked(text, slots, terms, unplaced, piece, glossary, Counts(terms=found))

    def reverse(self, found: Found, masked: Masked) -> Found:
        """Terms, then spans, put back; the spans lost and the terms found added to the counts."""
        texts = [
            self.terms.reverse(text, masked.terms, masked.glossary) for text, _ in found.hypotheses
        ]
        restored = [self.spans.reverse(text, masked.slots, masked.text) for text in texts]
        lost = restored[0][1] if restored else 0
        hypotheses = tuple(
            (text, score) for (text, _), (_, score) in zip(restored, found.hypotheses, strict=True)
        )
        counts = found.counts + masked.counts + Counts(lost_spans=lost)
        return replace(found, hypotheses=hypotheses, counts=counts)
