"""A sentence's "!" or "?" kept in its translation: "Help!" gave "Ayuda.", "Let me out!" "Déjame
salir.", where Spanish writes "¡Ayuda!" and "¡Déjame salir!".

The model drops a source's exclamation mark in a third of the Tatoeba selection part's lines
that end in one (18 of 58). Where a sentence ends in "!" or "?" and its translation has neither
that mark nor its opening one ("¡", "¿"), the translation's last sentence gets both: its final
period (or its last word, where it has no mark) is followed by the mark, and the opening one
goes before its first word: inside the quotes where the mark goes inside closing ones
('"¡Ayuda!"'), before them where it goes after ('¡«Ayuda»!'). A translation that already has
either mark is the model's own choice and stays; so does one that ends in another mark (an
ellipsis, a colon), and a source whose mark is inside quotes ('He said "Stop!"') or doubled
("Really?!").
"""

from __future__ import annotations

import re

OPENING = {"!": "¡", "?": "¿"}
_CLOSERS = "\"'”’»)]"
_OPENERS = "\"'“‘«(["
_BREAK = re.compile(r"[.!?…:;]\s+")
"""Where a sentence (or a clause that may take its own "¡") ends inside a translation."""


def with_end_mark(source: str, translation: str) -> str:
    """`translation` with the "!" or "?" that `source` ends in, where it lost it."""
    source = source.rstrip()
    mark = source[-1:]
    if mark not in OPENING or source[-2:-1] in ("!", "?"):
        return translation
    if mark in translation or OPENING[mark] in translation:
        return translation
    end = stripped = len(translation.rstrip())
    while end and translation[end - 1] in _CLOSERS:
        end -= 1
    inside = end < stripped  # the mark goes inside closing quotes: the opening one inside too
    if end == 0:
        return translation
    last = translation[end - 1]
    if last == "." and translation[end - 2 : end - 1] != ".":
        body_end, after = end - 1, end  # the period becomes the mark
    elif last.isalnum():
        body_end, after = end, end
    else:
        return translation
    starts = [m.end() for m in _BREAK.finditer(translation, 0, body_end)]
    start = starts[-1] if starts else 0
    while start < body_end and (
        translation[start].isspace() or (inside and translation[start] in _OPENERS)
    ):
        start += 1
    if start >= body_end:
        return translation
    return (
        translation[:start]
        + OPENING[mark]
        + translation[start:body_end]
        + mark
        + translation[after:]
    )
