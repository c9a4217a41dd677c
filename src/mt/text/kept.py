"""What a translation carries through as typed, though mt.text.spans reads no URL, code, tag or
number in it: emoji and other symbols, identifiers, tokens longer than any word the model
learned, and runs of another script. The model lost or changed each ("I love 🍕 and 🎉" came
back without either); as protected spans they come out byte for byte, at their place.

Every pattern is a character class repeated, or a token read once: linear in the text
(docs/bad-inputs.md).
"""

from __future__ import annotations

import bisect
import re

KINDS = frozenset(("symbol", "foreign", "identifier", "long"))
"""The kinds of span found here (mt.quality.flags: a line holding one is flagged `kept`)."""
HOLD_NUMBERS = ("identifier", "foreign")  # "3.0.1-rc2", "Привет мир 0 Привет мир": one piece
LONGEST_LEARNED = 31
"""The longest word of the shipped model's training English ("HTTPPasswordMgrWithDefaultRealm",
words.tsv): a run of letters, digits or underscores longer than this is no word the model knows."""
LONG_BLOB = 64
"""A run of non-space characters this long with no span inside (minified code, a pasted blob)
goes through whole too: the model would spend a search on every window of it."""
MIN_FOREIGN = 2
"""Characters a run of another script needs: a lone Greek letter ("α 1.4") is left to the model."""

_SYMBOLS = (
    "\u2190-\u21ff"  # arrows
    "\u2300-\u23ff"  # technical: ⌘ ⌚ ⏰
    "\u2500-\u25ff"  # box drawing, blocks, geometric shapes
    "\u2600-\u27bf"  # miscellaneous symbols, dingbats: ☀ ✓ ❤
    "\u2b00-\u2bff"  # more arrows and symbols: ⭐
    "\U0001f000-\U0001faff"  # emoji, playing cards, flags' letters, skin tones
)
_JOINERS = "\u200d\ufe0e\ufe0f\u20e3\U000e0020-\U000e007f"  # ZWJ, variation selectors, tags
_LETTERS = (
    "\u0370-\u03ff\u1f00-\u1fff"  # Greek
    "\u0400-\u052f"  # Cyrillic
    "\u0530-\u058f"  # Armenian
    "\u0590-\u05ff"  # Hebrew
    "\u0600-\u06ff\u0700-\u074f\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufefc"  # Arabic
    "\u0780-\u07bf"  # Thaana
    "\u0900-\u0dff"  # the scripts of India and Sri Lanka
    "\u0e00-\u0fff"  # Thai, Lao, Tibetan
    "\u1000-\u109f"  # Myanmar
    "\u10a0-\u10ff"  # Georgian
    "\u1100-\u11ff"  # Hangul jamo
    "\u1200-\u137f"  # Ethiopic
    "\u1780-\u17ff"  # Khmer
    "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31f0-\u31ff"  # CJK
    "\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f"
    "\U00020000-\U0002fa1f"
)
_BETWEEN = r"[\s\d.,;:!?'\"()\-\u0300-\u036f«»“”„،؛؟]"  # inside a run: spaces, marks, accents
_KEPT = re.compile(
    rf"(?P<symbol>[{_SYMBOLS}][{_SYMBOLS}{_JOINERS}]*)"
    rf"|(?P<foreign>[{_LETTERS}]+(?:{_BETWEEN}+[{_LETTERS}]+)*)"
)
_UNSPACED = re.compile(r"\S+")
_HEX = re.compile(r"(?=.*\d)(?=.*[a-f])[0-9a-f]{8,}|(?=.*\d)(?=.*[A-F])[0-9A-F]{8,}")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_BASE64 = re.compile(
    r"(?=.*\d)(?=.*[A-Z])(?=.*[a-z])[A-Za-z0-9+/]{16,}={0,2}"  # digits and both cases
    r"|[A-Za-z0-9+/]{12,}==?"  # or its padding
)
_VERSION = re.compile(r"[vV]\d+(?:\.\d+)+(?:[-+][\w.]+)?|\d+(?:\.\d+){1,3}[-+][A-Za-z][\w.]*")
_IDENTIFIERS = (_UUID, _HEX, _BASE64, _VERSION)
_MAY_IDENTIFY = re.compile(r"[\d=]")
_EDGES = "\"'“”‘’«»()[]{}<>.,;:!?"
_WORD_RUN = re.compile(rf"\w{{{LONGEST_LEARNED + 1},}}")


def kept_pieces(
    text: str, taken: list[tuple[int, int]], numbers: list[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """(start, end, kind) of each piece of `text` to carry through, outside the `taken` spans; an
    identifier or a foreign run may hold `numbers` (HOLD_NUMBERS); touching pieces are one; a
    foreign run of fewer than MIN_FOREIGN characters is left to the model."""
    found: list[tuple[int, int, str]] = []
    for match in () if text.isascii() else _KEPT.finditer(text):
        kind = match.lastgroup or ""
        if kind != "foreign" or match.end() - match.start() >= MIN_FOREIGN:
            found.append((match.start(), match.end(), kind))
    for token in _UNSPACED.finditer(text):
        found += _in_token(token.group(), token.start())
    found.sort(key=lambda piece: (piece[0], -piece[1]))  # the longest of those starting together
    taken, numbers = sorted(taken), sorted(numbers)
    everything = sorted(taken + numbers)
    kept: list[tuple[int, int, str]] = []
    end = 0
    for start, stop, kind in found:
        spans = taken if kind in HOLD_NUMBERS else everything
        if start >= end and not overlaps(start, stop, spans):
            if kept and kept[-1][1] == start:  # "Привет😀мир": one piece, kept as it is glued
                before = kept.pop()
                start, kind = before[0], "foreign" if "foreign" in (kind, before[2]) else kind
            kept.append((start, stop, kind))
            end = stop
    return kept


def _in_token(token: str, offset: int) -> list[tuple[int, int, str]]:
    """An identifier the token is (its quotes, brackets and final marks aside), or its runs of
    word characters longer than any learned word, or the whole token when it is a blob."""
    if len(token) < 4 or (len(token) <= LONGEST_LEARNED and not _MAY_IDENTIFY.search(token)):
        return []  # "v1.2" is the shortest identifier, and each has a digit or "=" (or is long)
    core = token.strip(_EDGES) or token  # "!!!!…" is all marks: the token itself
    start = offset + token.index(core)
    if any(pattern.fullmatch(core) for pattern in _IDENTIFIERS):
        return [(start, start + len(core), "identifier")]
    runs = [(offset + m.start(), offset + m.end(), "long") for m in _WORD_RUN.finditer(token)]
    # The whole blob first; where it holds a span of mt.text.spans, its long runs of letters.
    return [(start, start + len(core), "long")] + runs if len(core) >= LONG_BLOB else runs


def overlaps(start: int, end: int, spans: list[tuple[int, int]]) -> bool:
    """Whether [start, end) meets one of `spans` (sorted and apart), in log time."""
    index = bisect.bisect_left(spans, (end,)) - 1  # the last span starting before `end`
    return index >= 0 and spans[index][1] > start
