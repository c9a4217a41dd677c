"""The protect step: spans and names swapped for what the model copies, and put back."""

from __future__ import annotations

from dataclasses import dataclass

from mt.decode.placeholders import (
    Protectable,
    Slots,
    protect,
    protect_spans,
    restore,
    restore_spans,
)
from mt.errors import MtError


@dataclass(frozen=True)
class ProtectSpans:
    """With placeholder tokens (`span_tokens`) every protected span and chosen name goes through a
    token, else names and numbers through name stand-ins; `enabled` False: none (benchmarks)."""

    enabled: bool
    span_tokens: bool
    protectable: Protectable
    keep: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.keep and not self.span_tokens:
            raise MtError(
                "--keep needs a model whose tokenizers have placeholder tokens (prepared and "
                "trained with them); this one has none"
            )

    def apply(self, text: str, fixed: tuple[str, ...] = ()) -> tuple[str, Slots]:
        """`fixed`: placeholder tokens already in `text` that pass through as themselves (a
        glossary's); the others (a document's) are numbered again with the text's own spans."""
        if not self.enabled:
            return text, ()
        if self.span_tokens:
            return protect_spans(text, self.protectable, self.keep, fixed)
        return protect(text, self.protectable)

    def reverse(self, text: str, slots: Slots, source: str = "") -> tuple[str, int]:
        """The text with its spans back, and how many the translation lost (put back at the
        end of the sentence); `source`: the text `apply` gave, to count each span's tokens."""
        if not self.span_tokens:
            return restore(text, slots), 0
        restored = restore_spans(text, slots, source)
        return restored.text, restored.lost
