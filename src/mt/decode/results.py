"""What a translation call gives back: each line's Translation, carrying its own `counts` (tokens
decoded, spans lost, what its glossary terms went through), so a caller that streams adds up what
it has read (`total`), and two calls never share a counter.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import Protocol

from mt.quality.confidence import Evidence

Alternatives = tuple[tuple[str, float], ...]  # (detokenized text, score), best first


@dataclass(frozen=True)
class TermCounts:
    """Glossary terms found in the sources, those that found no free stand-in (more terms in one
    sentence than stand-ins), and the pieces that needed more than one search to keep them."""

    found: int = 0
    unplaced: int = 0
    searched_again: int = 0  # pieces whose best hypothesis lost a stand-in
    translated_around: int = 0  # pieces translated stretch by stretch around their terms
    already_there: int = 0  # lines whose translation without stand-ins had every term

    def __add__(self, other: TermCounts) -> TermCounts:
        return TermCounts(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(self)))


@dataclass(frozen=True)
class Counts:
    """What translating a line (or, added up, many lines) took and met."""

    decoded_tokens: int = 0  # target tokens searched, [EOS] included, every search counted
    lost_spans: int = 0  # protected spans whose token a translation lost (put back at the end)
    terms: TermCounts = field(default_factory=TermCounts)

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            self.decoded_tokens + other.decoded_tokens,
            self.lost_spans + other.lost_spans,
            self.terms + other.terms,
        )


class Counted(Protocol):
    @property
    def counts(self) -> Counts: ...


def total(counted: Iterable[Counted]) -> Counts:
    """The counts of several translations (or pieces) added up."""
    result = Counts()
    for item in counted:
        result = result + item.counts
    return result


@dataclass(frozen=True)
class Translation:
    source: str
    hypotheses: Alternatives
    pieces: int = 1  # sentences (and parts of too-long ones) translated for this line
    evidence: Evidence | None = None  # what the search saw of the best translation
    confidence: float | None = None  # in [0, 1] (mt.quality.confidence); None: not computed
    flags: tuple[str, ...] = ()  # mt.quality.flags: copy, repetition, cut, not_english
    counts: Counts = field(default_factory=Counts)

    @property
    def text(self) -> str:
        return self.hypotheses[0][0] if self.hypotheses else ""
