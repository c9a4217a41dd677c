"""Stand-ins for unseen names and numbers: what is swapped, and that restoring gives it back."""

from __future__ import annotations

from mt.placeholders import protect, restore

VOCABULARY = {"Tom", "Mary", "Where", "I", "It", "30", "3", "Boston"}


def one_piece(word: str) -> bool:
    return word in VOCABULARY


def test_unseen_names_and_numbers_get_stand_ins_and_come_back() -> None:
    text, slots = protect("Zbigniew has 4817 books.", one_piece)
    assert text == "Tom has 30 books."
    assert "Zbigniew" not in text
    assert restore("Tom tiene 30 libros.", slots) == "Zbigniew tiene 4817 libros."


def test_stand_ins_already_in_the_sentence_are_not_used() -> None:
    text, slots = protect("Tom met Oluwaseun in Boston in 1990, not 30.", one_piece)
    assert text.startswith("Tom met Mary in Boston in 20, not 30.")
    restored = restore("Tom conoció a Mary en Boston en 20, no 30.", slots)
    assert restored == "Tom conoció a Oluwaseun en Boston en 1990, no 30."


def test_known_words_sentence_starts_and_parts_of_numbers_stay() -> None:
    assert protect("Where is Tom? I have 3 cats.", one_piece) == (
        "Where is Tom? I have 3 cats.",
        (),
    )
    text, slots = protect("It costs 12.75 now.", one_piece)
    assert (
        text == "It costs 30 now." and restore("Cuesta 30 ahora.", slots) == "Cuesta 12.75 ahora."
    )


def test_the_same_word_twice_gets_the_same_stand_in() -> None:
    text, slots = protect("Kowalski? Kowalski!", one_piece)
    assert text == "Tom? Tom!"
    assert restore("¿Tom? ¡Tom!", slots) == "¿Kowalski? ¡Kowalski!"


def test_a_stand_in_inside_a_longer_word_or_number_is_left_alone() -> None:
    _, slots = protect("Zbigniew has 4817 books.", one_piece)
    assert restore("Tommy vio 300 y 30.5 Tom.", slots) == "Tommy vio 300 y 30.5 Zbigniew."
