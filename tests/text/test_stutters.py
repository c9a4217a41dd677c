"""A word the model stutters written once (mt.text.stutters)."""

from __future__ import annotations

import pytest

from mt.text.stutters import without_stutters


@pytest.mark.parametrize(
    ("translation", "expected"),
    [
        ("los productos vegetales vegetales y lácteos", "los productos vegetales y lácteos"),
        ("los Juegos Olímpicos Olímpicos Olímpicos en 2018", "los Juegos Olímpicos en 2018"),
        ("un periódico Árabe árabe.", "un periódico Árabe."),  # whatever the capitals: the first
        ("Los Los Ángeles", "Los Ángeles"),
        ("previamente previamente\tpreviamente en 2028.", "previamente en 2028."),
    ],
)
def test_a_word_repeated_back_to_back_is_written_once(translation: str, expected: str) -> None:
    assert without_stutters("The source repeats nothing.", translation) == expected


@pytest.mark.parametrize(
    "translation",
    [
        "de la casa de la ciudad",  # repeated, but not back to back
        "casa casas",  # another word
        "no, no, no.",  # marks between
        "el 500 500 por ciento",  # numbers are left alone
        "www.x.org x",
    ],
)
def test_other_repeats_stay(translation: str) -> None:
    assert without_stutters("The source repeats nothing.", translation) == translation


def test_a_source_that_repeats_a_word_keeps_the_translation_as_it_is() -> None:
    source = "Roger Taylor of Duran Duran was born here."
    assert without_stutters(source, "Roger Taylor de Duran Duran nació aquí.") == (
        "Roger Taylor de Duran Duran nació aquí."
    )
