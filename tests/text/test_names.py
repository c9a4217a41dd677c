"""Which words get stand-ins: names and numbers yes, ordinary words at a sentence start no.

The sentences are the ones issue 30 found copied by the bench model ("Allow me presentaron a mí."),
with a hand-made vocabulary and lexicon standing in for a trained run's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import legacy_copy
from mt.decode.placeholders import protect
from mt.decode.run_tables import lexicon_for
from mt.errors import MtError
from mt.text.lexicon import NO_LEXICON, Lexicon, WordCounts, write_lexicon
from mt.text.names import NameRule

PIECES = {
    "me", "to", "introduce", "myself", "I", "will", "see", "you", "on", "We", "met", "in",
    "London", "new", "sentences", "allow", "has", "books", "is", "here", "Tom", "Where", "saw",
    "the", "at", "hope", "Mr", "Rose", "rose", "7", "She",
}  # fmt: skip
LEXICON = Lexicon(
    words={
        "Actually": WordCounts(capitalised=40, copied=0, lower=12),  # translated: "En realidad"
        "Add": WordCounts(capitalised=0, copied=0, lower=5),  # "add", never seen capitalised
        "Ilse": WordCounts(capitalised=30, copied=29, lower=0),  # a name, copied
        "Hope": WordCounts(capitalised=6, copied=5, lower=40),  # a name here, and a word
        "Mrs": WordCounts(capitalised=20, copied=1, lower=0),  # translated: "la señora"
        "Grace": WordCounts(capitalised=2, copied=0, lower=3),  # too few to tell
    },
    pairs=1000,
)


def one_piece(word: str) -> bool:
    return word in PIECES


RULE = NameRule(one_piece=one_piece, lexicon=LEXICON)


@pytest.mark.parametrize(
    "sentence",
    [
        "Actually, I'm a furry.",  # the lexicon: translated in the training pairs
        "Allow me to introduce myself.",  # sentence-initial, "allow" is one piece
        "Add new sentences.",  # sentence-initial, "add" is used in lower case in training
        "I will see you on Thursday.",  # a day
        "We met in London in December.",  # a month
        "She is French and speaks Esperanto.",  # a nationality, a language
    ],
)
def test_ordinary_words_keep_their_place(sentence: str) -> None:
    assert protect(sentence, RULE) == (sentence, ())


def test_unknown_names_and_numbers_still_get_stand_ins() -> None:
    text, slots = protect("Kowalski has 4817 books and 7 pens.", RULE)
    assert text == "Tom has Mary books and 7 pens."
    assert slots == (("Tom", "Kowalski"), ("Mary", "4817"))
    assert protect("Zbigniew is here.", RULE)[0] == "Tom is here."
    assert protect("Mrs Kowalska is here.", RULE)[0] == "Mrs Tom is here.", "'Mrs' translated"


def test_a_name_the_training_pairs_copy_is_protected_even_at_a_sentence_start() -> None:
    assert protect("Ilse is here.", RULE)[0] == "Tom is here."
    assert protect("Hope is here.", RULE)[0] == "Tom is here.", "copied 5 of 6 times"
    plain = NameRule(one_piece=one_piece)
    assert protect("Hope is here.", plain)[0] == "Hope is here.", "no lexicon: 'hope' is a word"


def test_inside_a_sentence_a_capitalised_word_is_a_name_unless_the_lexicon_knows() -> None:
    assert protect("I saw Grace at the Louvre.", RULE)[0] == "I saw Tom at the Mary."
    assert protect("Grace is here.", RULE)[0] == "Grace is here.", "'grace' is a word"
    assert protect("I saw Actually.", RULE)[0] == "I saw Actually."


def test_one_piece_words_are_never_protected() -> None:
    assert protect("Rose met Tom in London.", RULE) == ("Rose met Tom in London.", ())


def test_a_run_with_a_lexicon_file_reads_it(tmp_path: Path) -> None:
    write_lexicon(tmp_path / "lexicon.tsv", LEXICON)
    assert lexicon_for(tmp_path) == LEXICON


def test_an_old_run_whose_data_is_gone_goes_by_the_lists(tmp_path: Path) -> None:
    lexicon = lexicon_for(legacy_copy(tmp_path, prepared=tmp_path / "gone"))
    assert lexicon == NO_LEXICON and lexicon.pairs == 0


def test_a_damaged_lexicon_is_one_clear_error(tmp_path: Path) -> None:
    write_lexicon(tmp_path / "lexicon.tsv", LEXICON)
    text = (tmp_path / "lexicon.tsv").read_text().replace("\t29\t", "\tmany\t")
    (tmp_path / "lexicon.tsv").write_text(text)
    with pytest.raises(MtError, match=r"lexicon\.tsv line 7: 'many' is not a count"):
        lexicon_for(tmp_path)
