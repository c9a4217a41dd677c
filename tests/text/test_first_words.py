"""A sentence's first word in the spelling the model knows (mt.text.first_words)."""

from __future__ import annotations

import pytest

from mt.text.first_words import FirstWords, candidates, capitalised_first, title_case
from mt.text.lexicon import Lexicon, WordCounts
from mt.text.wordstats import Spelling, WordStats

STATS = WordStats(
    spellings={
        "Happy": Spelling(first=7, later=4),
        "happy": Spelling(first=1, later=508),
        "Tom": Spelling(first=900, later=400),
        "tom": Spelling(first=0, later=2),
        "The": Spelling(first=9000, later=300),
        "the": Spelling(first=50, later=90000),
        "cheap": Spelling(first=0, later=45),  # never capitalised
        "Bill": Spelling(first=1, later=5),
        "bill": Spelling(first=0, later=66),
        "Legend": Spelling(first=9, later=0),
        "legend": Spelling(first=0, later=26),
    },
    starts={},
    sentences=10_000,
)
# how the source vocabulary spells them: capitalised, most are pieces it met in names
PIECES = {"Happy": 3, "happy": 1, "The": 1, "the": 1, "Cheap": 3, "cheap": 2, "Bill": 2}
PIECES |= {"bill": 1, "Tom": 1, "tom": 2, "Legend": 3, "legend": 1}
LEXICON = Lexicon(
    words={
        "Happy": WordCounts(capitalised=29, copied=16, lower=629),  # a title now and then
        "Bill": WordCounts(capitalised=118, copied=118, lower=134),  # a name as often as not
    },
    pairs=100_000,
)


def first_words(ratio: float = 1.0) -> FirstWords:
    return FirstWords(candidates(STATS, ratio=ratio), pieces=PIECES.__getitem__, lexicon=LEXICON)


def test_the_candidates_are_lower_case_words_used_more_often_than_capitalised() -> None:
    assert candidates(STATS) == {"happy", "the", "cheap", "bill", "legend"}
    # ten times as often: "legend" (26 against 9) and "the" (90,050 against 9,300) are not
    assert candidates(STATS, ratio=10) == {"happy", "cheap", "bill"}


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Happy birthday!", "happy birthday!"),
        ("Cheap flights are hard to find.", "cheap flights are hard to find."),
        ("  Happy birthday, Maria!", "  happy birthday, Maria!"),  # the space before is kept
        ("Happy", "happy"),
        ("The museum is closed.", None),  # one piece capitalised: the model knows it
        ("Tom is happy.", None),  # used capitalised more often: a name
        ("Bill paid the bill.", None),  # the pairs copy it as a name too often
        ("Happy-go-lucky people smile.", None),  # glued by a hyphen
        ("Happy2 is a name.", None),
        ("HAPPY birthday!", None),  # not a capital and lower-case letters
        ("¡Happy birthday!", None),
        ("happy birthday!", None),  # already lower case
        ("", None),
    ],
)
def test_a_first_word_is_lowered_where_the_model_knows_it_better(
    sentence: str, expected: str | None
) -> None:
    assert first_words().lowered(sentence) == expected


def test_a_stricter_ratio_keeps_a_word_seen_capitalised_often_enough() -> None:
    assert first_words().lowered("Legend: a key.") == "legend: a key."
    assert first_words(ratio=10).lowered("Legend: a key.") is None


def test_each_word_is_decided_once() -> None:
    asked: list[str] = []

    def pieces(word: str) -> int:
        asked.append(word)
        return PIECES[word]

    words = FirstWords(candidates(STATS), pieces=pieces, lexicon=LEXICON)
    for _ in range(3):
        assert words.lowered("Happy birthday!") == "happy birthday!"
    assert sorted(asked) == ["Happy", "happy"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("feliz cumpleaños.", "Feliz cumpleaños."),
        ("¡feliz cumpleaños!", "¡Feliz cumpleaños!"),
        ("¿dónde está?", "¿Dónde está?"),
        ('"hola", dijo.', '"Hola", dijo.'),
        ("ñandú.", "Ñandú."),
        ("15 personas.", "15 personas."),  # a number first: nothing to capitalise
        ("Ya está.", "Ya está."),
        ("", ""),
    ],
)
def test_the_translation_s_first_letter_is_a_capital_again(text: str, expected: str) -> None:
    assert capitalised_first(text) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Banks Want to Solve Crisis", True),
        ("A Lucrative Business", True),
        ("Platform Considerations", True),
        ("LATIN SMALL LETTER", True),  # capitals all through: a title, though nothing is lowered
        ("Banks want to solve the crisis.", False),
        ("What is DECnet", False),
        ("Happy", False),  # one word is a sentence, not a title
        ("Happy Tom", True),
        ("TBILLPRICE(Settlement; Maturity; Discount)", False),  # a function's signature
        ("Settlement; Maturity", False),
        ("A Crisis (Not Only) in the U.S.", True),
    ],
)
def test_a_title_is_two_or_more_capitalised_words_besides_the_small_ones(
    sentence: str, expected: bool
) -> None:
    assert title_case(sentence) is expected


def test_with_titles_each_capitalised_word_of_a_title_is_lowered_where_the_model_knows_it() -> None:
    words = FirstWords(candidates(STATS), pieces=PIECES.__getitem__, lexicon=LEXICON, titles=True)
    assert words.lowered("Cheap Happy Legend for Tom") == "cheap happy legend for Tom"
    assert words.lowered("Bill Happy") == "Bill happy"  # a name stays, wherever it stands
    assert words.lowered("Cheap flights, happy Bill.") == "cheap flights, happy Bill."  # no title
    assert words.lowered("Tom Bill") is None
    assert first_words().lowered("Cheap Happy Legend for Tom") == "cheap Happy Legend for Tom"
