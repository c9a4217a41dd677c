"""English as people type it: a casual variant of a sentence, a pure function of a seed.

What people type is often lower case, unpunctuated, without apostrophes ("dont") and with a few
keyboard slips. `casual_variant` makes that variant; the evaluation variants
(benchmarks/text/bench_text.py) and the `--source-noise` kinds (mt.data.feed.noise) are made by
it too, so training and evaluation share one definition. Its choices come from `random.Random`
seeded with (seed, text): the same in every process, whatever PYTHONHASHSEED says.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from mt.text.words import LETTERS

FINAL_PUNCTUATION = ".!?"
TYPO_RATE = 0.04
"""Share of words (of three letters or more) given one keyboard slip: a few per hundred words."""
WORDS_PER_TYPO = 4
"""At most one slip per this many words of a sentence (and none in a one-word sentence): a typo
in every word would be noise no reader writes."""

_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
NEIGHBOURS = {
    key: "".join(
        _ROWS[r][c]
        for r in range(3)
        for c in range(len(_ROWS[r]))
        if abs(r - row) + abs(c - col) == 1
    )
    for row, keys in enumerate(_ROWS)
    for col, key in enumerate(keys)
}
"""Keys next to each key of a QWERTY keyboard (same row either side, the row above and below)."""
_APOSTROPHE_IN_WORD = re.compile(r"(?<=\w)['’](?=\w)")


@dataclass(frozen=True)
class CasualStyle:
    """How casual: the chances of lower case, no final mark, no apostrophes; the typos per word."""

    lower: float = 1.0
    punctuation: float = 1.0
    apostrophes: float = 1.0
    typos: float = TYPO_RATE


EVALUATION = CasualStyle()
"""The evaluation variant: every sentence all of it, and typos at TYPO_RATE."""


def casual_variant(text: str, seed: int, style: CasualStyle = EVALUATION) -> str:
    """`text` as typed casually; the same (text, seed, style) always gives the same variant."""
    rng = random.Random(f"casual\t{seed}\t{text}")
    draws = [rng.random() for _ in range(3)]  # drawn first, so each choice keeps its own draw
    if draws[2] < style.apostrophes:
        text = without_apostrophes(text)
    if style.typos:
        text = with_typos(text, rng, style.typos)
    if draws[0] < style.lower:
        text = text.lower()
    if draws[1] < style.punctuation:
        text = without_final_punctuation(text)
    return text


def casual_variants(texts: list[str], seed: int, style: CasualStyle = EVALUATION) -> list[str]:
    return [casual_variant(text, seed, style) for text in texts]


def without_apostrophes(text: str) -> str:
    """ "I don't know Tom's car." -> "I dont know Toms car."; quotes are left alone."""
    return _APOSTROPHE_IN_WORD.sub("", text)


def without_final_punctuation(text: str) -> str:
    stripped = text.rstrip()
    while stripped and stripped[-1] in FINAL_PUNCTUATION:
        stripped = stripped[:-1].rstrip()
    return stripped if stripped else text


def with_typos(text: str, rng: random.Random, rate: float) -> str:
    """Some words of three letters or more of `text` with one keyboard slip each, at most one per
    WORDS_PER_TYPO words."""
    words = list(LETTERS.finditer(text))
    allowed = max(len(words) // WORDS_PER_TYPO, 1) if len(words) > 1 else 0
    pieces, end = [], 0
    for match in words:
        word = match.group()
        if allowed and len(word) >= 3 and rng.random() < rate:
            word = _slip(word, rng)
            allowed -= 1
        pieces += [text[end : match.start()], word]
        end = match.end()
    return "".join(pieces) + text[end:]


def _slip(word: str, rng: random.Random) -> str:
    kind = rng.randrange(4)
    at = rng.randrange(1, len(word))  # the first letter stays: people rarely miss it
    letter = word[at]
    if kind == 0:
        near = NEIGHBOURS.get(letter.lower(), "")
        if near:
            typed = rng.choice(near)
            return word[:at] + (typed.upper() if letter.isupper() else typed) + word[at + 1 :]
        kind = 1
    if kind == 1:
        return word[:at] + word[at + 1 :]
    if kind == 2:
        return word[:at] + letter + word[at:]
    if word[at - 1] == letter:  # swapping two equal letters changes nothing: drop one instead
        return word[:at] + word[at + 1 :]
    return word[: at - 1] + letter + word[at - 1] + word[at + 1 :]
