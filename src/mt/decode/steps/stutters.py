"""The stutter step: a word the model repeated back to back written once (mt.text.stutters),
after the stand-ins are restored, before the end marks."""

from __future__ import annotations

from dataclasses import dataclass, replace

from mt.decode.steps.search import Found
from mt.text.stutters import without_stutters


@dataclass(frozen=True)
class DropStutters:
    """`enabled` False: the translations stay as the model wrote them."""

    enabled: bool

    def reverse(self, found: Found, source: str) -> Found:
        """The piece's hypotheses, each without the words it stutters and `source` does not."""
        if not self.enabled:
            return found
        hypotheses = tuple(
            (without_stutters(source, text), score) for text, score in found.hypotheses
        )
        return replace(found, hypotheses=hypotheses)
