"""Names and numbers the model never learned, carried through translation unchanged.

A name or number that is not one piece of the source vocabulary reaches the model as a string of
sub-word pieces it has rarely or never seen, and comes out mangled. Before translation each such
word is swapped for a stand-in the model saw thousands of times and copies ("Tom", "30"), and the
stand-in in the translation is swapped back. Stand-ins already in the sentence are not used.
"""

from __future__ import annotations

import re
from collections.abc import Callable

NAME_STAND_INS = ("Tom", "Mary", "John")
NUMBER_STAND_INS = ("30", "20", "40", "50")
_NAME = re.compile(r"(?<![\w'’-])[A-Z][a-z]+(?:[A-Z][a-z]+)?(?![\w-])")
_NUMBER = re.compile(r"(?<![\w.,:])\d+(?:[.,:]\d+)*(?![\w]|[.,:]\d)")

Slots = tuple[tuple[str, str], ...]  # (stand-in, original)


def protect(text: str, one_piece: Callable[[str], bool]) -> tuple[str, Slots]:
    """`text` with each name and number that is not `one_piece` replaced by a stand-in, and the
    (stand-in, original) pairs; a word seen twice gets the same stand-in."""
    slots: dict[str, str] = {}  # original -> stand-in
    free = {
        "name": [s for s in NAME_STAND_INS if not re.search(rf"\b{s}\b", text)],
        "number": [s for s in NUMBER_STAND_INS if not re.search(rf"(?<![\d.,:]){s}(?![\d])", text)],
    }

    def swap(kind: str) -> Callable[[re.Match], str]:
        def replace(match: re.Match) -> str:
            word = match.group()
            if word in slots:
                return slots[word]
            if one_piece(word) or not free[kind]:
                return word
            slots[word] = free[kind].pop(0)
            return slots[word]

        return replace

    text = _NUMBER.sub(swap("number"), _NAME.sub(swap("name"), text))
    return text, tuple((stand_in, original) for original, stand_in in slots.items())


def restore(text: str, slots: Slots) -> str:
    """The translation with each stand-in put back to the original it stood for."""
    for stand_in, original in slots:
        if stand_in[0].isdigit():
            pattern = rf"(?<![\w.,:]){stand_in}(?![\w]|[.,:]\d)"
        else:
            pattern = rf"\b{stand_in}\b"
        text = re.sub(pattern, lambda _, o=original: o, text)
    return text
