"""Stand-ins for unseen names and numbers: what is swapped, and that restoring gives it back.

Which words are names is the Protectable's judgement (tests/text/test_names.py); here it is the
plain rule "not in VOCABULARY", or one that records what it was asked.
"""

from __future__ import annotations

import pytest

from mt.data.tokenization import PLACEHOLDERS as P
from mt.decode.placeholders import Restored, protect, protect_spans, restore, restore_spans

VOCABULARY = {"Tom", "Mary", "Where", "I", "It", "30", "3", "Boston"}


def unknown(word: str, *, initial: bool) -> bool:
    return word not in VOCABULARY


@pytest.mark.parametrize(
    ("source", "protected", "translation", "restored"),
    [
        pytest.param(
            "Zbigniew has 4817 books.",
            "Tom has Mary books.",
            "Tom tiene Mary libros.",
            "Zbigniew tiene 4817 libros.",
            id="unseen_names_and_numbers_get_stand_ins_and_come_back",
        ),
        pytest.param(
            "Tom met Oluwaseun in Boston in 1990.",
            "Tom met Mary in Boston in John.",
            "Tom conoció a Mary en Boston en John.",
            "Tom conoció a Oluwaseun en Boston en 1990.",
            id="stand_ins_already_in_the_sentence_are_not_used",
        ),
        pytest.param(
            "Kowalski? Kowalski!",
            "Tom? Tom!",
            "¿Tom? ¡Tom!",
            "¿Kowalski? ¡Kowalski!",
            id="the_same_word_twice_gets_the_same_stand_in",
        ),
        pytest.param(
            "Zbigniew is here.",
            "Tom is here.",
            "Tommy y Tom.",
            "Tommy y Zbigniew.",
            id="a_stand_in_inside_a_longer_word_is_left_alone",
        ),
        pytest.param(
            "It costs 12.75 now, at 10:30.",
            "It costs Tom now, at Mary.",
            "Cuesta Tom ahora, a las Mary.",
            "Cuesta 12.75 ahora, a las 10:30.",
            id="numbers_are_taken_whole",
        ),
    ],
)
def test_stand_ins_are_swapped_in_and_restored(
    source: str, protected: str, translation: str, restored: str
) -> None:
    text, slots = protect(source, unknown)
    assert text == protected
    assert restore(translation, slots) == restored


def test_when_the_stand_ins_run_out_the_rest_is_left_as_it_is() -> None:
    text, _ = protect("Ana, Bea, Cy and Di have 4817 books.", unknown)
    assert text == "Tom, Mary, John and Di have 4817 books."


def test_known_words_and_numbers_stay() -> None:
    assert protect("Where is Tom? I have 3 cats, 30 dogs.", unknown) == (
        "Where is Tom? I have 3 cats, 30 dogs.",
        (),
    )


@pytest.mark.parametrize(
    ("text", "initial"),
    [
        ("Allow me.", True),
        ("  Allow me.", True),
        ('"Allow me", he said.', True),
        ("¿Allow?", True),
        ("- Allow me.", True),
        ("Yes. Allow me.", True),
        ("He said: Allow me.", True),
        ("I said Allow.", False),
        ("I met Allow, then left.", False),
        ("It's 3.Allow", False),
    ],
)
def test_the_judge_is_told_whether_a_word_begins_a_sentence(text: str, initial: bool) -> None:
    asked: list[tuple[str, bool]] = []

    def record(word: str, *, initial: bool) -> bool:
        asked.append((word, initial))
        return False

    assert protect(text, record) == (text, ())
    assert ("Allow", initial) in asked


def test_a_word_judged_ordinary_is_left_wherever_it_comes_again() -> None:
    asked: list[tuple[str, bool]] = []

    def names_only_inside(word: str, *, initial: bool) -> bool:
        asked.append((word, initial))
        return not initial

    text = "Hope is here. I like Hope and Kowalski. Kowalski is late."
    protected, slots = protect(text, names_only_inside)
    assert protected == "Hope is here. I like Hope and Tom. Tom is late."
    assert slots == (("Tom", "Kowalski"),)
    assert asked == [("Hope", True), ("Kowalski", False)], "each word asked once"


# Placeholder tokens: models trained with --placeholders.


def test_every_protected_span_gets_a_token_and_comes_back() -> None:
    source = "Zbigniew: visit www.cisco.com at 10:30, edit /etc/hosts, print %s and {0}; Zbigniew!"
    text, slots = protect_spans(source, unknown)
    assert text == f"{P[0]}: visit {P[1]} at {P[2]}, edit {P[3]}, print {P[4]} and {P[5]}; {P[0]}!"
    spanish = f"{P[0]}: visita {P[1]} a las {P[2]}, edita {P[3]}, imprime {P[4]} y {P[5]}; ¡{P[0]}!"
    assert restore_spans(spanish, slots) == Restored(
        "Zbigniew: visita www.cisco.com a las 10:30, edita /etc/hosts, imprime %s y {0}; "
        "¡Zbigniew!",
        0,
    )


def test_known_words_keep_their_place_and_keep_names_are_protected() -> None:
    text, slots = protect_spans("Tom met New York staff in Boston.", unknown, ["New York"])
    assert text == f"Tom met {P[0]} staff in Boston."
    assert slots == ((P[0], "New York"),)


def test_there_is_no_limit_of_three_but_sixteen_tokens() -> None:
    source = " ".join(f"{n}0" for n in range(1, 21))
    text, slots = protect_spans(source, unknown)
    assert text.split() == [*P, "170", "180", "190", "200"]
    assert restore_spans(text, slots).text == source


def test_a_stray_token_leaves_no_space_at_either_end_or_before_a_mark() -> None:
    """A tiny model wrote ｟2｠ for a name the source never had as a token: the line once came
    back as " está cerca." (CI found "¡Qué " the same way)."""
    _, slots = protect_spans("Where is www.x.org?", unknown)
    for translation, restored in [
        (f"{P[1]} está en {P[0]}.", "está en www.x.org."),
        (f"¡Qué {P[1]} {P[2]}", "¡Qué www.x.org"),
        (f"¡{P[1]} hola {P[0]}!", "¡hola www.x.org!"),
        (f"Hola {P[1]}, {P[0]} {P[2]} {P[3]} y más.", "Hola, www.x.org y más."),
        (f"Está{P[1]} en {P[0]}", "Está en www.x.org"),
    ]:
        assert restore_spans(translation, slots).text == restored


def test_a_lost_span_goes_back_at_the_end_and_a_stray_token_is_dropped() -> None:
    _, slots = protect_spans("Where is www.x.org at 10:30?", unknown)
    restored = restore_spans(f"¿Dónde está {P[1]} {P[7]} hoy?", slots)
    assert restored == Restored("¿Dónde está 10:30 hoy www.x.org?", 1)
    assert restore_spans("¿Qué?", slots) == Restored("¿Qué www.x.org 10:30?", 2)


def test_an_occurrence_the_translation_lost_is_put_back_as_often_as_it_was_lost() -> None:
    text, slots = protect_spans("a party 🎉 and 🎉 and 🎉", unknown)
    assert text == f"a party {P[0]} and {P[0]} and {P[0]}"
    assert restore_spans(f"Fiesta {P[0]}.", slots, text) == Restored("Fiesta 🎉 🎉 🎉.", 2)
    assert restore_spans(f"Fiesta {P[0]}.", slots) == Restored("Fiesta 🎉.", 0)  # no source
