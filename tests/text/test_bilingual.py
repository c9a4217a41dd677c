"""The Wiktionary dictionary's format read into headword -> translations: asides dropped, senses
joined, and a damaged line refused with one line naming the file and the line. The lines are
invented in the file's format."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from mt.errors import MtError
from mt.text.bilingual import parse_line, read_bilingual, read_noun_senses, read_noun_table

DICTIONARY = """\
# English :: Spanish dictionary (invented for the tests)
# Size :: 4 English glosses

teapot {n} /ˈtiː.pɒt/ (vessel for tea) :: tetera {f}, [Mexico, Peru] jarra (de té) {f}
teapot {n} (small storm) :: tempestad en un vaso de agua {f}
kettle {n} (pot for boiling) SEE: teapot ::
brew {v} (make tea) :: infusionar; preparar [colloquial, Spain], hacer té
and/or {conj} (either or both) :: y/o
Lake Quilp {prop} (an invented lake) :: Lago Quilp {m}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "en-es.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_line_gives_its_headword_and_translations_without_genders_or_qualifiers() -> None:
    line = "teapot {n} /ˈtiː.pɒt/ (vessel for tea) :: tetera {f}, [Mexico, Peru] jarra (de té) {f}"
    # the comma inside [Mexico, Peru] does not split, and "(de té)" is an aside of "jarra"
    assert parse_line(line) == ("teapot", ["tetera", "jarra"])


def test_semicolons_split_as_commas_do() -> None:
    line = "brew {v} (make tea) :: infusionar; preparar [colloquial, Spain], hacer té"
    assert parse_line(line) == ("brew", ["infusionar", "preparar", "hacer té"])


def test_a_headword_ends_at_its_part_of_speech_pronunciation_sense_or_cross_reference() -> None:
    assert parse_line("and/or {conj} :: y/o") == ("and/or", ["y/o"])
    assert parse_line("Lake Quilp /leɪk/ :: Lago Quilp") == ("Lake Quilp", ["Lago Quilp"])
    assert parse_line("kettle (pot) :: caldera") == ("kettle", ["caldera"])
    assert parse_line("kettle SEE: teapot ::") == ("kettle", [])


def test_header_and_blank_lines_are_no_entries() -> None:
    assert parse_line("# Size :: 4 English glosses") is None
    assert parse_line("   \n") is None


def test_the_file_joins_a_headwords_senses_and_leaves_out_one_without_translations(
    tmp_path: Path,
) -> None:
    found = read_bilingual(write(tmp_path, DICTIONARY))
    assert found == {
        "teapot": frozenset({"tetera", "jarra", "tempestad en un vaso de agua"}),
        "brew": frozenset({"infusionar", "preparar", "hacer té"}),
        "and/or": frozenset({"y/o"}),
        "Lake Quilp": frozenset({"Lago Quilp"}),
    }


@pytest.mark.parametrize(
    ("damaged", "number"),
    [("teapot {n} tetera {f}\n", 4), (" :: tetera {f}\n", 4), ("\n\nbrew : infusionar\n", 6)],
)
def test_a_line_without_its_separator_or_headword_names_the_file_and_line(
    tmp_path: Path, damaged: str, number: int
) -> None:
    path = write(tmp_path, "# header\n\nteapot {n} :: tetera {f}\n" + damaged)
    with pytest.raises(MtError) as refused:
        read_bilingual(path)
    message = str(refused.value)
    assert message.startswith(f"{path}:{number}: not a dictionary line")
    assert "\n" not in message


def read_nouns(path: Path, frequency: Callable[[str], int] | None = None) -> dict[str, str]:
    """Each noun's first sense: the one a translation uses."""
    return {headword: senses[0] for headword, senses in read_noun_senses(path, frequency).items()}


def test_the_nouns_are_one_word_headwords_with_their_first_one_word_noun_translation(
    tmp_path: Path,
) -> None:
    nouns = read_nouns(write(tmp_path, DICTIONARY))
    assert nouns == {"teapot": "tetera"}  # not brew (a verb), not and/or, not Lake Quilp
    twice = DICTIONARY + "teapot {n} (a later sense) :: tetilla {f}\nsaucer {n} :: plato de taza\n"
    assert read_nouns(write(tmp_path, twice)) == {"teapot": "tetera"}  # first sense; no one-word


def test_the_nouns_of_a_damaged_file_are_refused_with_its_line(tmp_path: Path) -> None:
    with pytest.raises(MtError, match=r"en-es\.txt:4: not a dictionary line"):
        read_nouns(
            write(tmp_path, DICTIONARY.replace("teapot {n} /", "teapot {n} / no separator\n", 1))
        )


def test_with_a_frequency_the_nouns_take_their_most_used_translation_of_any_noun_line(
    tmp_path: Path,
) -> None:
    senses = DICTIONARY + "teapot {n} (a later sense) :: tetilla {f}, tetera\n"
    uses = {"tetilla": 5, "tetera": 2}
    assert read_nouns(write(tmp_path, senses), frequency=lambda t: uses.get(t, 0)) == {
        "teapot": "tetilla"
    }
    level = {"tetilla": 2, "tetera": 2}  # a tie: the first written
    assert read_nouns(write(tmp_path, senses), frequency=lambda t: level.get(t, 0)) == {
        "teapot": "tetera"
    }


def test_the_spanish_nouns_keep_the_one_gender_the_file_gives_them(tmp_path: Path) -> None:
    lines = DICTIONARY + (
        "stapler {n} (device) :: abrochadora {f} [Argentina], engrapador {m} [Peru], grapa\n"
        "glasses {n} (spectacles) :: gafas {f-p}, anteojos {m-p}\n"
        "kite {n} (toy) :: cometa {f}\n"
        "comet {n} (body) :: cometa {m}\n"
        "staple {v} (to fasten) :: grapadora {f}\n"
    )
    assert read_noun_table(write(tmp_path, lines))[1] == {
        "tetera": ("f", False),  # teapot's; the storm is more than one word
        "jarra": ("f", False),  # "jarra (de té)": its aside dropped, as read_noun_senses does
        "abrochadora": ("f", False),
        "engrapador": ("m", False),
        "gafas": ("f", True),
        "anteojos": ("m", True),
    }  # grapa has no gender; cometa has two; a verb line's are no nouns'
