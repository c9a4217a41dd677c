"""The dictionary's nouns for never-seen words: only lower-case words the training English never
had, plurals by rule, and through the glossary's placement, so a model that knows a word keeps
its own choice."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.decode.glossary import Glossary, Term, restore, with_terms
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.decode.unseen import UnseenNouns, read_dictionary, spanish_plural, unseen_nouns
from mt.errors import MtError

NOUNS = {
    "dishwasher": ("lavaplatos", "lavavajillas"),
    "lawnmower": ("cortacésped",),
    "city": ("ciudad",),
    "bus": ("bus",),
}


def unseen(*seen: str) -> UnseenNouns:
    return UnseenNouns(NOUNS, frozenset(word.lower() for word in seen), name="dictionary")


def terms(found: UnseenNouns, line: str) -> dict[str, str]:
    glossary = found.glossary(line)
    return {} if glossary is None else {t.english: t.spanish for t in glossary.terms.values()}


def test_only_never_seen_lower_case_nouns_get_their_dictionary_word() -> None:
    found = unseen("City", "bought")
    line = "She bought a dishwasher and a lawnmower in the city."
    assert terms(found, line) == {"dishwasher": "lavaplatos", "lawnmower": "cortacésped"}
    assert terms(found, "Dishwasher Lawnmower.") == {}  # capitalised: a name, or the model's
    assert terms(found, "She bought bread.") == {}
    assert found.glossary("She bought bread.") is None


def test_a_regular_plural_gets_the_spanish_plural() -> None:
    found = unseen()
    assert terms(found, "two dishwashers, three cities and buses") == {
        "dishwashers": "lavaplatos",
        "cities": "ciudades",
        "buses": "bus",
    }
    assert terms(unseen("city"), "three cities") == {}  # its singular is known to the model


@pytest.mark.parametrize(
    ("noun", "plural"),
    [("casa", "casas"), ("ciudad", "ciudades"), ("luz", "luces"), ("lavaplatos", "lavaplatos"),
     ("café", "cafés"), ("nación", "naciones"), ("jardín", "jardines")],
)  # fmt: skip
def test_spanish_plurals_by_rule(noun: str, plural: str) -> None:
    assert spanish_plural(noun) == plural


def test_a_word_glued_into_a_compound_code_or_an_address_is_left_alone() -> None:
    found = unseen()
    assert terms(found, "run dishwasher-cli --fast") == {}
    assert terms(found, "see www.dishwasher.org or /opt/dishwasher") == {}
    assert terms(found, "the lawnmower.") == {"lawnmower": "cortacésped"}  # a sentence's end
    assert terms(found, "mow {{lawnmower}}") == {"lawnmower": "cortacésped"}  # tldr: translated


def test_a_dictionary_file_gives_each_noun_its_translation_in_common_use(tmp_path: Path) -> None:
    path = tmp_path / "en-es.txt"
    path.write_text(
        "gauge {n} (instrument) :: galga {f}, calibre {m}\n"
        "gauge {n} (a measure) :: calibración {f}, medida {f}\n"
        "gauge {v} (to measure) :: medir\n",
        encoding="utf-8",
    )
    # the first written (galga) after the one in common use; the verb's is no noun's
    found = read_dictionary(path)
    assert found == {"gauge": ("medida", "galga", "calibre", "calibración")}
    assert found.genders["calibre"] == ("m", False) and found.genders["medida"] == ("f", False)


def test_a_placed_noun_carries_the_gender_the_dictionary_gives_and_its_article_agrees() -> None:
    genders = {"abrochadora": ("f", False), "lavaplatos": ("m", False)}
    nouns = {"stapler": ("abrochadora",), "dishwasher": ("lavaplatos",)}
    found = UnseenNouns(nouns, frozenset(), name="dictionary", genders=genders)
    glossary = found.glossary("Two staplers and a dishwasher.")
    assert glossary is not None
    placed = {t.english: (t.spanish, t.gender) for t in glossary.terms.values()}
    assert placed == {
        "staplers": ("abrochadoras", ("f", True)),  # the plural by rule, and so the number
        "dishwasher": ("lavaplatos", ("m", False)),
    }
    slots = (("｟1｠", "abrochadoras"), ("｟2｠", "Lavaplatos"))
    restored, lost = restore("Dos ｟1｠ y una ｟2｠. El ｟1｠ y la ｟2｠.", slots, glossary.genders)
    assert (restored, lost) == (
        "Dos abrochadoras y un Lavaplatos. Las abrochadoras y el Lavaplatos.",
        0,
    )
    # without the dictionary's genders, neither ending tells one: the model's articles stay
    assert restore("El ｟1｠.", slots)[0] == "El abrochadoras."


def test_another_sense_or_number_of_the_noun_counts_as_translated_already() -> None:
    glossary = unseen().glossary("two dishwashers")
    assert glossary is not None
    (term,) = glossary.terms.values()
    assert (term.spanish, term.also) == ("lavaplatos", ("lavavajillas",))
    cities = unseen().glossary("three cities")
    assert cities is not None and [(t.spanish, t.also) for t in cities.terms.values()] == [
        ("ciudades", ("ciudad",))  # the singular the model may have written
    ]
    plain = "Compró dos lavavajillas nuevos."  # the model's own choice, another sense
    assert with_terms("She bought two dishwashers.", plain, glossary) == plain
    assert with_terms("She bought two dishwashers.", "Compró dos playados.", glossary) is None


def test_a_given_glossary_s_spanish_wins_and_its_name_stays() -> None:
    given = Glossary([Term("lawnmower", "podadora"), Term("garden", "huerto")], "mine.tsv")
    glossary = unseen().glossary("a dishwasher and a lawnmower in the garden", given)
    assert glossary is not None and glossary.name == "mine.tsv"
    spanish = {t.english: t.spanish for t in glossary.terms.values()}
    assert spanish == {"lawnmower": "podadora", "garden": "huerto", "dishwasher": "lavaplatos"}
    assert unseen().glossary("bread", given) is given


def test_a_translator_with_a_dictionary_puts_a_never_seen_noun_s_spanish_in_place(
    trained_run: Path,
) -> None:
    options = TranslateOptions(decode=DecodeConfig(beam_size=2))
    plain = open_translator(resolve(trained_run), options, device="cpu")
    helped = plain.with_options(replace(options, dictionary={"zorblat": ("zorbláculo",)}))
    lines = ["Where is the zorblat?", "Where is the museum?"]
    before = [t.text for t in plain.translate(lines)]
    after = [t.text for t in helped.translate(lines)]
    assert "zorbláculo" not in before[0] and "zorbláculo" in after[0].lower()
    assert after[1] == before[1]  # a line without such a word is the plain translation


def test_cognates_stand_in_where_the_dictionary_has_no_noun() -> None:
    seen = frozenset({"the"})
    assert unseen_nouns(None, cognates=False, seen=seen, model="m") is None
    alone = unseen_nouns(None, cognates=True, seen=seen, model="m")
    assert alone is not None and alone.name == "cognates"
    assert terms(alone, "the velocity of the dishwasher") == {"velocity": "velocidad"}
    both = unseen_nouns(NOUNS, cognates=True, seen=seen, model="m")
    assert both is not None and both.name == "dictionary"
    found = terms(both, "the velocity of the dishwashers")
    assert found == {"velocity": "velocidad", "dishwashers": "lavaplatos"}
    assert terms(both, "two federations") == {"federations": "federaciones"}  # plural by rule


def test_a_model_without_its_word_counts_cannot_tell_the_never_seen_words() -> None:
    with pytest.raises(MtError, match=r"runs/x: no words\.tsv, so cognates cannot tell"):
        unseen_nouns(None, cognates=True, seen=frozenset(), model="runs/x")


def test_the_seen_words_are_the_training_english_in_lower_case_and_read_once(
    trained_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from mt.decode import run_tables
    from mt.decode.run_tables import seen_words_for
    from mt.text.wordstats import read_word_stats

    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    spellings = read_word_stats(run / "words.tsv").spellings
    seen = seen_words_for(run)
    assert seen == {s.lower() for s in spellings} and all(w.islower() for w in seen if w.isalpha())

    def unread(path: Path) -> None:
        raise AssertionError(f"{path} parsed again")

    monkeypatch.setattr(run_tables, "read_word_stats", unread)
    assert seen_words_for(run) == seen  # from the user's cache (mt.storage.derived)
