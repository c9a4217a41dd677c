"""The casual variant: a pure function of (text, seed) that does each thing casual typing does."""

from __future__ import annotations

import random

from mt.text.casual import (
    WORDS_PER_TYPO,
    CasualStyle,
    casual_variant,
    casual_variants,
    with_typos,
    without_apostrophes,
    without_final_punctuation,
)

LONG = "Yesterday Tom told Mary that he wouldn't travel through Germany without his brother."
NO_TYPOS = CasualStyle(typos=0.0)


def test_the_variant_is_a_pure_function_of_the_seed() -> None:
    texts = [LONG, "I'm sure it's Tom's.", "Where are you going?"] * 20
    first = casual_variants(texts, seed=7)
    assert casual_variants(texts, seed=7) == first
    assert casual_variants(texts, seed=8) != first  # typos land elsewhere


def test_the_variant_lowercases_drops_final_punctuation_and_apostrophes() -> None:
    assert casual_variant("I'm sure it's Tom's.", 0, NO_TYPOS) == "im sure its toms"
    assert casual_variant("Where are you going?", 0, NO_TYPOS) == "where are you going"
    assert casual_variant("Stop!!", 0, NO_TYPOS) == "stop"


def test_each_part_can_be_turned_off() -> None:
    style = CasualStyle(lower=0.0, punctuation=0.0, apostrophes=0.0, typos=0.0)
    assert casual_variant(LONG, 3, style) == LONG
    assert casual_variant(LONG, 3, CasualStyle(lower=0.0, typos=0.0))[0] == "Y"


def test_apostrophes_go_but_quotes_stay() -> None:
    assert without_apostrophes("He said 'no'; I don't know Tom's car.") == (
        "He said 'no'; I dont know Toms car."
    )
    assert without_final_punctuation("Really?!") == "Really"
    assert without_final_punctuation("?") == "?"


def test_typos_are_few_one_edit_each_and_never_in_every_word() -> None:
    rng = random.Random(0)
    words = LONG.split()
    slipped = 0
    for _ in range(300):
        typed = with_typos(LONG, rng, rate=0.5).split()
        assert len(typed) == len(words)
        changed = [(a, b) for a, b in zip(words, typed, strict=True) if a != b]
        assert len(changed) <= len(words) // WORDS_PER_TYPO
        for right, wrong in changed:
            assert abs(len(wrong) - len(right)) <= 1 and wrong.lower() != right.lower()
        slipped += len(changed)
    assert slipped > 300  # at a rate of one half, most sentences got their slips
    assert with_typos("Hello", random.Random(0), rate=1.0) == "Hello"  # one word: never
    kinds = {len(w) - len(r) for _ in range(50) for r, w in _slips(rng)}
    assert kinds == {-1, 0, 1}  # a letter dropped, changed or swapped, doubled


def _slips(rng: random.Random) -> list[tuple[str, str]]:
    typed = with_typos(LONG, rng, rate=1.0).split()
    return [(a, b) for a, b in zip(LONG.split(), typed, strict=True) if a != b]
