"""Normalise and segment: a line as the pieces the model translates, and the way back."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mt.data.tokenization import PLACEHOLDERS, WordPieceCodec
from mt.decode.segment import Alternatives, Segmented, join_alternatives, segment
from mt.text.cleaning import clean_text
from mt.text.spans import find_spans, replace_spans


@dataclass(frozen=True)
class Segment:
    """Cuts a line into sentences (with `split`), each normalised by `normalise` if given, then into
    pieces of `limit` source pieces at most; with `span_tokens` a protected span counts as one."""

    source: WordPieceCodec
    limit: int
    split: bool
    normalise: Callable[[str], str] | None
    span_tokens: bool
    keep: tuple[str, ...]
    language: str = "en"  # the source's (mt.catalog.direction): the sentence splitter's rules

    def fits(self, text: str) -> bool:
        """Fewer than `limit` source pieces; with span tokens, no more spans than there are
        tokens (a line of twenty emoji is cut, so that each keeps one)."""
        if self.span_tokens:
            spans = find_spans(text, self.keep)
            if len(spans) > len(PLACEHOLDERS):
                return False
            text = replace_spans(text, spans, {span.text: PLACEHOLDERS[0] for span in spans})
        return len(self.source.encode(clean_text(text))) < self.limit

    def apply(self, line: str) -> Segmented:
        return segment(
            line, split=self.split, fits=self.fits, normalize=self.normalise, language=self.language
        )

    def reverse(self, segmented: Segmented, parts: list[Alternatives]) -> Alternatives:
        """The line's alternatives from its pieces' (mt.decode.segment.join_alternatives)."""
        return join_alternatives(segmented, parts)
