"""The words a typed word may be a slip of (mt.text.normalize's typo step), each with the weight
of its kind of edit: a key beside the one meant, a letter dropped, doubled or too many, two
letters swapped, another letter."""

from __future__ import annotations

import string
from collections.abc import Container

from mt.text.casual import NEIGHBOURS

EDIT_WEIGHTS = {
    "slip": 1.0,  # two letters swapped, a letter dropped or doubled
    "key beside": 0.5,  # the key next to the one meant
    "letter too many": 0.05,
    "other letter": 0.01,
    "two slips": 0.002,
}
"""How likely each kind of edit is, against the uses of the word it reaches (chosen on the
real-typing selection set, benchmarks/text/bench_real_typing.py): "ofo" is "of", not "foo", and
"tham" is "than", not "that"."""


def weighted_edits(word: str, *, short: bool) -> dict[str, float]:
    """The words `word` may be one edit of, each with its kind's weight (the likeliest kind when
    one word is reached two ways). A short word's only keyboard slips and a letter too many: too
    many words lie a changed letter from a three-letter one ("lol")."""
    kinds = {
        "letter too many": deletes(word),
        "key beside": _keys_beside(word),
        "slip": _moved(word),
    }
    if not short:
        kinds["other letter"] = {
            a + c + b[1:] for a, b in _splits(word) if b for c in string.ascii_lowercase
        }
    weights: dict[str, float] = {}
    for kind, candidates in kinds.items():
        for candidate in candidates - {word}:
            weights[candidate] = max(weights.get(candidate, 0.0), EDIT_WEIGHTS[kind])
    return weights


def two_slips(word: str, words: Container[str]) -> dict[str, float]:
    """The `words` two keyboard slips or letters too many from `word` ("nkwo" for "know"), none
    two letters shorter ("nkwo" is not "no"); only those of `words` are kept as they are made,
    as all of them are tens of thousands."""
    once = slips_of(word) | deletes(word)
    twice = {w for first in once for w in slips_of(first) | deletes(first) if w in words}
    weight = EDIT_WEIGHTS["two slips"]
    return {w: weight for w in twice - once - {word} if len(w) >= len(word) - 1}


def deletes(word: str) -> set[str]:
    """`word` less one letter: a letter typed too many ("ois" for "is", "myu" for "my")."""
    return {word[:i] + word[i + 1 :] for i in range(len(word))} - {word}


def slips_of(word: str) -> set[str]:
    """The words `word` is one keyboard slip of (the four mt.text.casual makes): narrower than
    `weighted_edits`, for guesses that have less to go on ("seq" is no slip of "see")."""
    return _moved(word) | _keys_beside(word)


def _splits(word: str) -> list[tuple[str, str]]:
    return [(word[:i], word[i:]) for i in range(len(word) + 1)]


def _keys_beside(word: str) -> set[str]:
    """`word` with one letter typed for the key beside it put back."""
    return {a + c + b[1:] for a, b in _splits(word) if b for c in NEIGHBOURS.get(b[0], "")} - {word}


def _moved(word: str) -> set[str]:
    """`word` with a dropped letter, a doubled one or two swapped ones put right."""
    splits = _splits(word)
    undoubled = {a + b[1:] for a, b in splits if b and a[-1:] == b[:1]}
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    dropped = {a + c + b for a, b in splits for c in string.ascii_lowercase}
    return (undoubled | swaps | dropped) - {word}
