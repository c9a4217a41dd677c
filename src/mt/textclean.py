"""The one cleaning of English and Spanish text, shared by `mt prepare` and `mt translate`.

A model only sees text cleaned this way during training, so translation input must be cleaned
the same way: both call `clean_text` (prepare through `clean_texts`, which also counts what each
step changed for prepare's report). No torch or pandas here.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Sequence

_ZERO_WIDTH = re.compile("[\u200b\u200c\u200d\u2060\ufeff]")
_NO_BREAK = re.compile("[\u00a0\u202f\u2007]")
# Whitespace (every character str.isspace() accepts) and control characters (category Cc).
_SPACE_OR_CONTROL = re.compile(r"[\s\x00-\x1f\x7f-\x9f]+")


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text)


STEPS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("zero_width_removed", lambda text: _ZERO_WIDTH.sub("", text)),
    ("nfc_changed", _nfc),  # after zero-width removal, which can leave composable neighbours
    ("no_break_spaces_mapped", lambda text: _NO_BREAK.sub(" ", text)),
    ("whitespace_collapsed", lambda text: _SPACE_OR_CONTROL.sub(" ", text)),
    ("stripped", lambda text: text.strip(" ")),
)
"""Named steps in order; the names are the counters of prepare's report."""


def clean_text(text: str) -> str:
    """No zero-width characters, NFC, one plain space for any run of whitespace or control
    characters, no outer spaces."""
    for _, step in STEPS:
        text = step(text)
    return text


def _clean_counting(text: str) -> tuple[str, list[str]]:
    changed = []
    for name, step in STEPS:
        result = step(text)
        if result != text:
            changed.append(name)
        text = result
    return text, changed


_SEP = "\x00"  # joins texts for one fast scan; callers pass texts without NUL characters
# Any text that clean_text would change holds one of these, or is not NFC.
_SUSPECT = re.compile(
    "[\u200b\u200c\u200d\u2060\ufeff\u00a0\u202f\u2007]"
    r"|[^\S ]|[\x01-\x1f\x7f-\x9f]|  |(?<![^\x00]) | (?![^\x00])"
)


def clean_texts(texts: Sequence[str]) -> tuple[list[str], dict[str, set[int]]]:
    """`clean_text` of each text, and for each step the positions of the texts it changed.

    A scan of all texts joined into one string finds the few that need cleaning, so a clean
    corpus of 100k lines costs two fast passes instead of a regex call per line.
    """
    joined = _SEP.join(texts)
    if joined.count(_SEP) != max(len(texts) - 1, 0):  # a text holds the separator itself
        suspects = set(range(len(texts)))
    else:
        starts = [0]
        for text in texts:
            starts.append(starts[-1] + len(text) + 1)
        suspects = {bisect.bisect_right(starts, m.start()) - 1 for m in _SUSPECT.finditer(joined)}
        if not unicodedata.is_normalized("NFC", joined):
            suspects.update(
                i for i, text in enumerate(texts) if not unicodedata.is_normalized("NFC", text)
            )
    cleaned = list(texts)
    changes: dict[str, set[int]] = {name: set() for name, _ in STEPS}
    for index in suspects:
        cleaned[index], changed = _clean_counting(texts[index])
        for name in changed:
            changes[name].add(index)
    return cleaned, changes
