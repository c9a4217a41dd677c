"""Words, measured: which content words a line's reference attests, in which bucket of training
counts, and whether an output carries the same translation; hand-counted on invented lines."""

from __future__ import annotations

import pytest

from mt.evaluate.words import (
    Attested,
    Tally,
    attested,
    bucket_of,
    common_english,
    fold,
    spanish_words,
    tally,
    training_counts,
    word_table,
)
from mt.text.wordstats import Spelling, WordStats

DICTIONARY = {
    "vaccine": {"vacuna"},
    "doctor": {"médico", "doctor"},
    "city": {"ciudad"},
    "trial": {"juicio", "ensayo"},
    "work": {"trabajo", "obra"},
    "cat": {"gato"},
    "actually": {"de hecho", "realmente"},
    "e-mail": {"correo"},
    "Turkey": {"Turquía"},
    "turkey": {"pavo"},
}
TABLE = word_table(DICTIONARY, common={"work", "Said"}, counts={"doctors": 5, "cities": 40})
SOURCE = "Doctors in two cities said the vaccine works: the vaccine! A cat too."
REFERENCE = "Los médicos de dos ciudades dijeron que la vacuna funciona; un gato también."


def test_the_table_folds_headwords_and_keeps_one_word_translations_unaccented() -> None:
    assert TABLE.translations["turkey"] == {"turquia", "pavo"}
    assert TABLE.translations["actually"] == {"realmente"}, "'de hecho' is two words"
    assert TABLE.translations["doctor"] == {"medico", "doctor"}
    assert "e-mail" not in TABLE.translations
    assert TABLE.common == {"work", "said"}


def test_a_lines_attested_words_with_their_buckets_and_matched_translations() -> None:
    # doctors: the plural of "doctor", whose "médico" the reference has as "médicos"; cities:
    # "ciudades"; the vaccine once though written twice; "works" is common (as "work"), "cat"
    # too short, "said" no headword.
    assert attested(SOURCE, REFERENCE, table=TABLE) == [
        Attested("doctors", "1-9", frozenset({"medico"})),
        Attested("cities", "10+", frozenset({"ciudad"})),
        Attested("vaccine", "never", frozenset({"vacuna"})),
    ]


def test_a_word_whose_translations_the_reference_lacks_is_not_attested() -> None:
    assert attested("The trial began.", "La prueba empezó.", table=TABLE) == []


def test_a_possessive_is_its_word() -> None:
    found = attested("The vaccine's maker.", "El fabricante de la vacuna.", table=TABLE)
    assert [word.word for word in found] == ["vaccine"]


def test_an_output_carries_a_word_only_with_a_translation_the_reference_used() -> None:
    lines = [attested(SOURCE, REFERENCE, table=TABLE)]
    # "doctores" translates "doctor" too, but the reference said "médicos": not carried
    ours = tally(lines, ["Los doctores en dos ciudades dicen que las vacunas funcionan."])
    assert ours == {"never": Tally(1, 1), "1-9": Tally(1, 0), "10+": Tally(1, 1)}
    copied = tally(lines, [SOURCE])
    assert copied == {"never": Tally(1, 0), "1-9": Tally(1, 0), "10+": Tally(1, 0)}


def test_accents_are_ignored_but_not_the_tilde_of_n() -> None:
    assert fold("Médico PINGÜINO") == "medico pinguino"
    assert fold("AÑO") == "año" != fold("ano")
    assert spanish_words("¿El año?") == {"el", "año"}


def test_the_share_of_a_tally_and_of_none() -> None:
    assert Tally(4, 1).share == 0.25
    assert Tally(0, 0).share is None


@pytest.mark.parametrize(("count", "bucket"), [(0, "never"), (1, "1-9"), (9, "1-9"), (10, "10+")])
def test_buckets(count: int, bucket: str) -> None:
    assert bucket_of(count) == bucket


def test_training_counts_add_a_words_capitals_and_positions() -> None:
    stats = WordStats(
        spellings={"Vaccine": Spelling(2, 1), "vaccine": Spelling(0, 3), "Tom": Spelling(4, 0)},
        starts={},
        sentences=10,
    )
    assert training_counts(stats) == {"vaccine": 6, "tom": 4}


def test_the_common_words_are_pyspellcheckers_most_frequent() -> None:
    common = common_english()
    assert len(common) == 300
    assert {"that", "know", "people"} <= common
    assert not {"vaccine", "government", "tuberculosis"} & common


def test_lines_and_outputs_must_pair_up() -> None:
    with pytest.raises(ValueError, match="2 lines of attested words for 1 outputs"):
        tally([[], []], ["uno"])
