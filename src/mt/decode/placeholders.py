"""Names and numbers the model never learned, carried through translation unchanged.

A name or number that is not one piece of the source vocabulary reaches the model as a string of
sub-word pieces it has rarely or never seen, and comes out mangled or translated ("4817" became
"tres" with the bench model, which copies no digits at all). Before translation each such word is
swapped for a name the model saw thousands of times and copies ("Tom", "Mary", "John"), and the
stand-in in the translation is swapped back. Numbers take name stand-ins too, because the bench
model copies those and not digit stand-ins such as "30" (benchmarks/bench_text.py measures it).
Stand-ins already in the sentence are not used; when all are taken, a word is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

STAND_INS = ("Tom", "Mary", "John")
_NAME_OR_NUMBER = re.compile(
    r"(?<![\w'’-])[A-Z][a-z]+(?:[A-Z][a-z]+)?(?![\w-])"  # Kowalski, McDonald
    r"|(?<![\w.,:])\d+(?:[.,:]\d+)*(?!\w|[.,:]\d)"  # 4817, 12.75, 10:30, 1,000
)

Slots = tuple[tuple[str, str], ...]  # (stand-in, original)


def protect(text: str, one_piece: Callable[[str], bool]) -> tuple[str, Slots]:
    """`text` with each name and number that is not `one_piece` replaced by a stand-in, and the
    (stand-in, original) pairs; a word seen twice gets the same stand-in."""
    slots: dict[str, str] = {}  # original -> stand-in
    free = [s for s in STAND_INS if not re.search(rf"\b{s}\b", text)]

    def swap(match: re.Match) -> str:
        word = match.group()
        if word not in slots:
            if one_piece(word) or not free:
                return word
            slots[word] = free.pop(0)
        return slots[word]

    text = _NAME_OR_NUMBER.sub(swap, text)
    return text, tuple((stand_in, original) for original, stand_in in slots.items())


def restore(text: str, slots: Slots) -> str:
    """The translation with each stand-in put back to the original it stood for."""
    for stand_in, original in slots:
        text = re.sub(rf"\b{stand_in}\b", lambda _, o=original: o, text)
    return text
