"""benchmarks/text/real_typing.py: the real-typing variant is lower case without final punctuation,
misspells only with codespell's real misspellings, is the same for the same seed, and its two
halves (development, test) share no misspelling."""

from __future__ import annotations

import re

import pytest

from benchmarks.text.real_typing import (
    DEVELOPMENT,
    TEST,
    misspellings,
    real_variant,
    real_variants,
)

SENTENCES = [
    "I don't know where Tom is.",
    "Do you know what they want?",
    "We have to tell them the truth!",
    "Please come back tomorrow.",
    "This is the house where my grandmother lived.",
] * 20


def test_the_halves_are_real_misspellings_and_share_none() -> None:
    development, test = misspellings(DEVELOPMENT), misspellings(TEST)
    assert len(development) > 5000 and len(test) > 5000
    assert "knwo" in development.get("know", ()) + test.get("know", ())
    wrongs = [{w for ws in half.values() for w in ws} for half in (development, test)]
    assert not wrongs[0] & wrongs[1]
    assert all(word not in misspelt for word, misspelt in development.items())


@pytest.mark.parametrize("half", [DEVELOPMENT, TEST])
def test_the_variant_is_lower_case_unpunctuated_and_misspelt_from_the_list(half: int) -> None:
    table = misspellings(half)
    typed = real_variants(SENTENCES, 0, half)
    misspelt = 0
    for clean, real in zip(SENTENCES, typed, strict=True):
        plain = clean.lower().rstrip(".!?")
        assert real == real.lower() and real[-1] not in ".!?"
        for right, written in zip(plain.split(), real.split(), strict=True):
            if right != written:
                word = re.sub(r"[^a-z']", "", right)
                assert re.sub(r"[^a-z']", "", written) in table[word], (right, written)
                misspelt += 1
    assert 0 < misspelt < sum(len(s.split()) for s in SENTENCES) / 2


def test_the_same_seed_gives_the_same_variant_and_another_seed_another() -> None:
    assert real_variants(SENTENCES, 3, TEST) == real_variants(SENTENCES, 3, TEST)
    assert real_variants(SENTENCES, 3, TEST) != real_variants(SENTENCES, 4, TEST)
    assert real_variant("Where is it?", 0, TEST, rate=0.0) == "where is it"
