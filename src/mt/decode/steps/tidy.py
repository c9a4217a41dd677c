"""The tidy step: a piece's hypotheses edited against its source once the stand-ins are restored,
each edit a pure function (source, translation) -> translation: a word the model stuttered
written once (mt.text.stutters), then a lost "!" or "?" given back (mt.text.end_marks)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from mt.decode.steps.search import Found

Edit = Callable[[str, str], str]


@dataclass(frozen=True)
class Tidy:
    """`edits`, in order; none: the translations stay as the model wrote them."""

    edits: tuple[Edit, ...]

    def reverse(self, found: Found, source: str) -> Found:
        """The piece's hypotheses, each through every edit against `source`, the piece as
        given."""
        if not self.edits:
            return found
        return replace(
            found, hypotheses=tuple((self._edited(source, t), s) for t, s in found.hypotheses)
        )

    def _edited(self, source: str, text: str) -> str:
        for edit in self.edits:
            text = edit(source, text)
        return text
