"""Spanish cognates of English nouns: an ending that corresponds, the stem spelled the Spanish
way, and only a word the Spanish list has seen in use."""

from __future__ import annotations

import pytest

from mt.text import cognates as cognates_module
from mt.text.cognates import ENDINGS, MIN_FREQUENCY, CognateNouns, spanish_stems

SPANISH = {
    "velocidad": 5000,
    "psiquiatría": 900,
    "estación": 7000,
    "microbiología": 200,
    "federación": 800,
    "deportación": 300,
    "comento": 60,
    "comentario": 4000,
    "amnestía": 50,  # from a word list, never seen in text
    "amnistía": 1500,
    "ciclista": 700,
    "lateral": 3000,
    "bastión": 300,
    "dorsal": 50,  # the floor again
}


def cognates() -> CognateNouns:
    return CognateNouns(SPANISH)


@pytest.mark.parametrize(
    ("english", "spanish"),
    [("velocity", "velocidad"), ("psychiatry", "psiquiatría"), ("station", "estación"),
     ("microbiology", "microbiología"), ("cyclist", "ciclista"), ("deportation", "deportación")],
)  # fmt: skip
def test_an_ending_that_corresponds_gives_the_listed_word_with_its_accents(
    english: str, spanish: str
) -> None:
    assert cognates().cognate(english) == spanish


def test_no_word_where_the_list_has_none_or_only_from_a_word_list() -> None:
    found = cognates()
    assert found.cognate("ability") is None  # "abilidad" is not Spanish
    assert found.cognate("amnesty") is None  # "amnestía" has the floor frequency only
    assert SPANISH["amnestía"] < MIN_FREQUENCY <= SPANISH["amnistía"]
    assert found.cognate("dishwasher") is None  # no ending of the list


def test_names_short_stems_and_words_with_other_letters_are_left_out() -> None:
    found = CognateNouns({**SPANISH, "ciudad": 9000})
    assert found.cognate("Velocity") is None  # a capital: a name, or the model's to decide
    assert found.cognate("city") is None  # a stem of two letters
    assert found.cognate("velocity's") is None


def test_it_is_a_mapping_asked_word_by_word() -> None:
    found = cognates()
    assert "velocity" in found and "ability" not in found and 3 not in found
    assert found["velocity"] == ("velocidad",)
    with pytest.raises(KeyError):
        found["ability"]
    assert list(found) == ["velocity"] and len(found) == 1  # those asked for so far


def test_what_it_remembers_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cognates_module, "REMEMBERED", 3)
    found = cognates()
    for word in ("velocity", "ability", "station", "psychiatry"):
        assert (word in found) == (word != "ability")
    assert list(found) == ["psychiatry"]  # the fourth word started the memory again
    assert found["velocity"] == ("velocidad",)


def test_a_word_no_ending_answers_has_no_cognate_though_spanish_spells_it_so() -> None:
    assert cognates().cognate("lateral") is None and cognates().cognate("bastion") is None


def test_stems_are_spelled_the_spanish_way() -> None:
    assert {"psiqu", "psic"} <= spanish_stems("psych")
    assert "estratosfer" in spanish_stems("stratospher")
    assert "imposibil" in spanish_stems("impossibil")


def test_every_ending_comes_after_the_longer_ones_that_end_in_it() -> None:
    endings = [english for english, _ in ENDINGS]
    for index, ending in enumerate(endings):
        later = endings[index + 1 :]
        assert not any(other.endswith(ending) and other != ending for other in later), ending


def test_the_shipped_list_gives_common_cognates() -> None:
    found = CognateNouns()  # pyspellchecker's Spanish list
    assert found.cognate("velocity") == "velocidad"
    assert found.cognate("psychiatry") == "psiquiatría"
    assert found.cognate("ability") is None
    assert found.cognate("medieval") is None
