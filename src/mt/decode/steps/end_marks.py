"""The end-mark step: a sentence's "!" or "?" given back to a translation that lost it
(mt.text.end_marks), after the stand-ins are restored and the first letter is a capital again."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mt.decode.steps.search import Found
from mt.text.end_marks import with_end_mark


@dataclass(frozen=True)
class KeepEndMarks:
    """`enabled` False: the translations stay as the model wrote them."""

    enabled: bool

    def reverse(self, found: Found, source: str) -> Found:
        """The piece's hypotheses, each with the end mark of `source`, the piece as given."""
        if not self.enabled:
            return found
        hypotheses = tuple((with_end_mark(source, text), score) for text, score in found.hypotheses)
        return replace(found, hypotheses=hypotheses)
