"""Sentence and clause cutting: the tricky cases, exact rejoining, nothing ever dropped."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mt.decode.segment import Segmented, cut_long, segment, sentence_spans
from split_cases import CASES


def words_at_most(count: int):
    return lambda text: len(text.split()) <= count


def everything(text: str) -> bool:
    return True


@pytest.mark.parametrize(("line", "sentences"), CASES, ids=[case[0][:30] for case in CASES])
def test_the_tricky_cases_split_where_a_reader_would(line: str, sentences: list[str]) -> None:
    assert [line[start:end] for start, end in sentence_spans(line)] == sentences


def test_a_protected_span_is_never_cut() -> None:
    # Sentences a span runs across are one; a long piece is cut at a space outside the code.
    line = "Run ``a. B`` now. Then go."
    assert [line[a:b] for a, b in sentence_spans(line)] == ["Run ``a. B`` now.", "Then go."]
    text = "call ``f(first, second, third)`` once, and then call it again"
    pieces = [piece for piece, _ in cut_long(text, words_at_most(6))]
    assert "call ``f(first, second, third)`` once," in pieces


def test_normalizing_sees_whole_sentences_before_they_are_cut() -> None:
    def careful(sentence: str) -> str:
        return sentence[0].upper() + sentence[1:] + "."

    line = "tcl is nice, and it adds more"
    cut = segment(line, split=True, fits=words_at_most(4), normalize=careful)
    assert cut.pieces == ("Tcl is nice,", "and it adds more.")
    assert cut.gaps == ("", " ", "")


@pytest.mark.parametrize(
    "line",
    [
        "  Hi!  How are you?\t",
        "Hello.   World. ",
        "\tOne sentence only",
        "Tom left. Mary stayed.\u00a0Bob? ",
        " ",
        "",
    ],
)
def test_joining_the_pieces_back_gives_the_line_exactly(line: str) -> None:
    segmented = segment(line, split=True, fits=everything)
    assert segmented.join(segmented.pieces) == line
    assert all(piece == piece.strip() and piece for piece in segmented.pieces)


def test_translations_take_the_place_of_their_pieces_with_the_original_spacing() -> None:
    segmented = segment("  Hi!  How are you?\t", split=True, fits=everything)
    assert segmented.pieces == ("Hi!", "How are you?")
    assert segmented.join(["¡Hola!", "¿Cómo estás?"]) == "  ¡Hola!  ¿Cómo estás?\t"


def test_a_blank_line_has_no_pieces_and_stays_as_it_is() -> None:
    assert segment("   ", split=True, fits=everything) == Segmented(pieces=(), gaps=("   ",))
    assert segment("", split=False, fits=everything).join([]) == ""


def test_no_split_keeps_the_line_as_one_piece() -> None:
    segmented = segment(" Tom left. Mary stayed. ", split=False, fits=everything)
    assert segmented.pieces == ("Tom left. Mary stayed.",)
    assert segmented.join(["X"]) == " X "


def test_a_long_sentence_is_cut_at_a_clause_boundary_before_a_word_window() -> None:
    text = "one two three four five; six seven, eight nine ten eleven"
    pieces = cut_long(text, words_at_most(6))
    assert pieces[0] == ("one two three four five;", " ")
    assert all(len(piece.split()) <= 6 for piece, _ in pieces)
    assert "".join(piece + space for piece, space in pieces) == text


def test_conjunctions_are_cut_before_the_conjunction() -> None:
    pieces = cut_long("Tom likes apples very much and Mary likes pears a lot", words_at_most(6))
    assert [piece for piece, _ in pieces] == [
        "Tom likes apples very much",
        "and Mary likes pears a lot",
    ]


def test_text_without_spaces_is_cut_into_character_windows() -> None:
    text = "x" * 101
    pieces = cut_long(text, lambda piece: len(piece) <= 10)
    assert all(len(piece) <= 10 for piece, _ in pieces)
    assert "".join(piece + space for piece, space in pieces) == text


def test_random_lines_lose_no_character_and_every_piece_fits() -> None:
    rng = random.Random(0)
    tokens = ["Tom", "said", "e.g.", "3.5", "Mr.", "...", "yes.", "no?", "wow!", "and", ",", ";"]
    spaces = [" ", " ", " ", "  ", "\t"]
    for _ in range(200):
        line = "".join(rng.choice(tokens) + rng.choice(spaces) for _ in range(rng.randint(0, 40)))
        segmented = segment(line, split=True, fits=words_at_most(5))
        assert segmented.join(segmented.pieces) == line
        assert all(len(piece.split()) <= 5 for piece in segmented.pieces)


@settings(max_examples=300, deadline=None)
@given(
    line=st.text(alphabet=st.characters(exclude_characters="\n"), max_size=300),
    width=st.integers(1, 40),
)
def test_any_line_cut_at_any_width_joins_back_exactly(line: str, width: int) -> None:
    """A gap between every two pieces, "" where a word was cut in two: the tldr line whose URL
    had to be cut into character windows once lost its gaps and ended in a traceback."""
    segmented = segment(line, split=True, fits=lambda piece: len(piece) <= width)
    assert len(segmented.gaps) == len(segmented.pieces) + 1
    assert segmented.join(segmented.pieces) == line
    assert all(len(piece) <= width or len(piece) == 1 for piece in segmented.pieces)


def test_a_url_cut_into_character_windows_keeps_every_character() -> None:
    line = (
        "More information: <https://www.cisco.com/c/en/us/td/docs/ios-xml/ios/security/d1/"
        "sec-d1-cr-book/sec-cr-e1.html#wp3307186499>."
    )
    segmented = segment(line, split=True, fits=lambda piece: len(piece) <= 12)
    assert segmented.join([piece.upper() for piece in segmented.pieces]) == line.upper()
