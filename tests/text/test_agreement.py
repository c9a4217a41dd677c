"""The article before a placed noun agrees with the gender and number its ending tells."""

from __future__ import annotations

import pytest

from mt.text.agreement import agree_before, noun_gender


@pytest.mark.parametrize(
    ("noun", "known"),
    [("velocidad", ("f", False)), ("deportaciones", ("f", True)), ("psiquiatría", ("f", False)),
     ("organismos", ("m", True)), ("estadio", ("m", False)), ("artritis", ("f", None)),
     ("día", None), ("ciclista", None), ("crisis", None), ("casa", None), ("base de datos", None)],
)  # fmt: skip
def test_a_noun_s_ending_tells_its_gender_and_number_or_nothing(
    noun: str, known: tuple[str, bool | None] | None
) -> None:
    assert noun_gender(noun) == known


@pytest.mark.parametrize(
    ("before", "gender", "plural", "after"),
    [("El ", "f", False, "La "), ("compró un ", "f", False, "compró una "),
     ("el precio del ", "f", False, "el precio de la "), ("habla de la ", "m", False, "habla del "),
     ("fue a la ", "m", False, "fue al "), ("Esos ", "f", True, "Esas "),
     ("la ", "f", True, "las "), ("y esto ", "f", False, "y esta "),
     ("una ", "f", None, "una "), ("las ", "m", None, "los "),
     ("para la ", "m", False, "para el "), ("con ", "f", False, "con "), ("", "f", False, ""),
     ("EL ", "f", False, "LA ")],
)  # fmt: skip
def test_the_last_article_or_demonstrative_is_made_to_agree(
    before: str, gender: str, plural: bool | None, after: str
) -> None:
    assert agree_before(before, gender, plural) == after
