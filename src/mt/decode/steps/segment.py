"""Normalise and segment: a line as the pieces the model translates, and the way back to one
line (mt.decode.segment does the cutting; this step decides what fits)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mt.data.tokenization import PLACEHOLDERS, WordPieceCodec
from mt.decode.segment import Alternatives, Segmented, join_alternatives, segment
from mt.text.cleaning import clean_text
from mt.text.spans import mask_spans


@dataclass(frozen=True)
class Segment:
    """Cuts a line into sentences (with `split`), each normalised by `normalise` when given,
    then into pieces the model can take: `limit` source pieces at most. Where spans go through
    placeholder tokens (`span_tokens`) a protected span counts as the one token it becomes, so
    a long URL does not get its sentence cut (and itself cut in two) for the pieces it would
    spell."""

    source: WordPieceCodec
    limit: int
    split: bool
    normalise: Callable[[str], str] | None
    span_tokens: bool
    keep: tuple[str, ...]
    language: str = "en"  # the source's (mt.direction): the sentence splitter's rules

    def fits(self, text: str) -> bool:
        if self.span_tokens:
            text = mask_spans(text, PLACEHOLDERS[0], self.keep)
        return len(self.source.encode(clean_text(text))) < self.limit

    def apply(self, line: str) -> Segmented:
        return segment(
            line, split=self.split, fits=self.fits, normalize=self.normalise, language=self.language
        )

    def reverse(self, segmented: Segmented, parts: list[Alternatives]) -> Alternatives:
        """The line's alternatives from its pieces' (mt.decode.segment.join_alternatives)."""
        return join_alternatives(segmented, parts)
