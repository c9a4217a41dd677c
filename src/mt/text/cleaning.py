"""The one cleaning of English and Spanish text, shared by `mt prepare` and `mt translate`: input
must be cleaned as the training text was (`clean_texts` also counts what each step changed).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

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


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(text: str) -> str:
    """Lone surrogates made U+FFFD: a command line's undecodable bytes arrive as surrogates, which
    the tokenizers refuse."""
    return _LONE_SURROGATE.sub("\ufffd", text)


def clean_text(text: str) -> str:
    """No zero-width characters, NFC, one space for any run of whitespace or controls, trimmed."""
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


# Every character clean_text may change but the plain space: whitespace (str.isspace()),
# controls, zero-width and no-break characters; all in the Basic Multilingual Plane.
_UNCLEAN_RANGES = (
    (0x01, 0x1F),
    (0x7F, 0xA0),
    (0x1680, 0x1680),
    (0x2000, 0x200D),
    (0x2028, 0x2029),
    (0x202F, 0x202F),
    (0x205F, 0x2060),
    (0x3000, 0x3000),
    (0xFEFF, 0xFEFF),
)


@functools.cache
def _unclean_table() -> np.ndarray:
    """UTF-16 code unit -> may clean_text change it (made on first use; translation never does)."""
    import numpy as np

    table = np.zeros(1 << 16, dtype=bool)
    for low, high in _UNCLEAN_RANGES:
        table[low : high + 1] = True
    return table


def clean_texts(texts: Sequence[str]) -> tuple[list[str], dict[str, set[int]]]:
    """`clean_text` of each text, and per step the positions of the texts it changed (an array
    scan finds the few it may change: no regex call per line)."""
    texts = list(texts)
    changes: dict[str, set[int]] = {name: set() for name, _ in STEPS}
    for index in _suspects(texts):
        texts[index], changed = _clean_counting(texts[index])
        for name in changed:
            changes[name].add(index)
    return texts, changes


def _suspects(texts: list[str]) -> list[int]:
    """Texts holding a character or a space that `clean_text` may change, or not NFC: array
    operations over the UTF-16 code units of all texts joined by NUL."""
    if not texts:
        return []
    joined = "\x00".join(texts)
    if joined.count("\x00") != len(texts) - 1:  # a text holds NUL itself: no scan can place it
        return list(range(len(texts)))
    import numpy as np

    codes = np.frombuffer(joined.encode("utf-16-le", "surrogatepass"), dtype=np.uint16)
    nul, space = codes == 0, codes == 32
    beside = np.concatenate(([True], nul | space, [True]))  # a text's edge or a space
    flags = space & (beside[:-2] | beside[2:])
    flags |= (codes - np.uint16(1)) < 0x1F  # ASCII controls but NUL
    beyond_ascii = np.flatnonzero(codes > 0x7E)
    flags[beyond_ascii[_unclean_table()[codes[beyond_ascii]]]] = True
    suspects = set(np.searchsorted(np.flatnonzero(nul), np.flatnonzero(flags)).tolist())
    if not unicodedata.is_normalized("NFC", joined):
        suspects.update(
            i for i, text in enumerate(texts) if not unicodedata.is_normalized("NFC", text)
        )
    return sorted(suspects)
