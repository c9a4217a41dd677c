"""Real typing: English as people type it, with misspellings people really made, not our own
noise model (mt.text.casual's four keyboard slips, which the normaliser inverts and the default
recipe trains on, so a casual set made with it measures that generator against itself).

The misspellings are codespell's dictionary (`codespell_lib/data/dictionary.txt`, installed with
`pip install codespell`, in mt's `dev` extra): 65,000 misspellings found in real text and code,
started from Wikipedia's "Lists of common misspellings" (CC BY-SA 3.0). Only entries with one
correction are used, read the other way round: a word -> the ways it was misspelt ("know" ->
"kno", "knwo", "konw", "kwno").

The list is cut in two by a hash of each misspelling: `DEVELOPMENT` builds the variant of the
selection part, where choices are made (and whatever the normaliser may learn from a list), and
`TEST` that of the test part, scored once, so no fix can be tuned to the exact misspellings it is
scored on.

`real_variant(text, seed, half)`: lower case, no final punctuation, and each word that has a
misspelling in `half` replaced by one of them with probability RATE; a pure function of (text,
seed, half).
"""

from __future__ import annotations

import functools
import hashlib
import random
import re
from collections import defaultdict
from importlib import resources

from mt.text.casual import without_final_punctuation

RATE = 0.2
"""Chance that a word with a known misspelling is typed so: with the test half, about 6% of
Tatoeba's words, a misspelling in every third sentence."""
DEVELOPMENT, TEST = 0, 1
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")


@functools.cache
def misspellings(half: int) -> dict[str, tuple[str, ...]]:
    """A correct word -> its misspellings in `half` of codespell's dictionary."""
    try:
        data = resources.files("codespell_lib").joinpath("data", "dictionary.txt")
        lines = data.read_text(encoding="utf-8").splitlines()
    except ModuleNotFoundError:
        raise SystemExit(
            "the real-typing set needs codespell's dictionary: pip install codespell "
            "(it is in mt's dev extra: make setup)"
        ) from None
    found: dict[str, list[str]] = defaultdict(list)
    for line in lines:
        wrong, _, right = line.partition("->")
        corrections = [word.strip() for word in right.split(",") if word.strip()]
        if len(corrections) != 1 or not (
            _WORD.fullmatch(wrong) and _WORD.fullmatch(corrections[0])
        ):
            continue
        if _half(wrong) == half:
            found[corrections[0]].append(wrong)
    return {word: tuple(sorted(wrongs)) for word, wrongs in found.items()}


def _half(wrong: str) -> int:
    return int(hashlib.sha1(f"real-typing:{wrong}".encode()).hexdigest(), 16) % 2


def real_variant(text: str, seed: int, half: int, rate: float = RATE) -> str:
    """`text` lower-cased, without final punctuation, with real misspellings of `half`."""
    rng = random.Random(f"real\t{seed}\t{half}\t{text}")
    table = misspellings(half)
    lowered = without_final_punctuation(text.lower())
    pieces, end = [], 0
    for match in _WORD.finditer(lowered):
        word = match.group()
        wrongs = table.get(word)
        if wrongs and rng.random() < rate:
            word = rng.choice(wrongs)
        pieces += [lowered[end : match.start()], word]
        end = match.end()
    return "".join(pieces) + lowered[end:]


def real_variants(texts: list[str], seed: int, half: int, rate: float = RATE) -> list[str]:
    return [real_variant(text, seed, half, rate) for text in texts]
