"""A sentence's "!" or "?" given back to a translation that lost it (mt.text.end_marks)."""

from __future__ import annotations

import pytest

from mt.text.end_marks import with_end_mark


@pytest.mark.parametrize(
    ("source", "translation", "expected"),
    [
        ("Help!", "Ayuda.", "¡Ayuda!"),
        ("Help!", "Ayuda", "¡Ayuda!"),  # no mark at all: one added
        ("Why not?", "Por qué no.", "¿Por qué no?"),
        ("Hi. Help!", "Hola. Ayuda.", "Hola. ¡Ayuda!"),  # the last sentence only
        ("Hello!", "Hola: ven.", "Hola: ¡ven!"),
        ("Help! ", " Ayuda. ", " ¡Ayuda! "),  # the spacing kept
        ("Help!", '"Ayuda."', '"¡Ayuda!"'),  # inside the quotes, both marks
        ("Help!", "«Ayuda».", "¡«Ayuda»!"),  # outside them, both marks
        ("15!", "15.", "¡15!"),
    ],
)
def test_a_lost_mark_comes_back_with_its_opening_one(
    source: str, translation: str, expected: str
) -> None:
    assert with_end_mark(source, translation) == expected


@pytest.mark.parametrize(
    ("source", "translation"),
    [
        ("Go!", "¡Vete!"),  # kept by the model
        ("Stop!", "¡Para."),  # the model chose where its marks go
        ("Is it?", "Es así?"),
        ("Really?!", "De verdad."),  # two marks: left to the model
        ('He said "Stop!"', 'Dijo "Para".'),  # the mark belongs to the quotation
        ("Wait!", "Espera..."),  # an ellipsis is a mark of its own
        ("Wait!", "Espera…"),
        ("Help!", ""),
        ("Help!", "..."),
        ("Help.", "Ayuda."),
        ("Help", "Ayuda"),
    ],
)
def test_a_translation_is_left_as_it_is(source: str, translation: str) -> None:
    assert with_end_mark(source, translation) == translation
