"""bench_fit's pieces: every reference a line has counts, phrases are found by kind and scored
again without end marks, and the training sample is fixed and never held-out English."""

from __future__ import annotations

import pytest

from benchmarks.quality.bench_fit import (
    by_english,
    kind_of,
    multi_reference,
    phrase_set,
    train_sample,
    unmarked,
)

PAIRS = [
    ("Congratulations!", "¡Felicidades!"),
    ("Congratulations!", "¡Enhorabuena!"),
    ("Congratulations!", "¡Felicidades!"),
    ("Where is the station?", "¿Dónde está la estación?"),
    ("Tom left.", "Tom se fue."),
]


def test_every_translation_of_a_line_is_a_reference_once() -> None:
    assert by_english(PAIRS)["Congratulations!"] == ["¡Felicidades!", "¡Enhorabuena!"]


def test_a_second_reference_earns_its_match() -> None:
    hypotheses = ["Enhorabuena a todos los que vinieron hoy", "Tom se fue de la casa ayer"]
    one = [["Felicidades para todos los que llegaron hoy"], ["Tom se fue de la casa ayer"]]
    two = [[*one[0], "Enhorabuena a todos los que vinieron hoy"], one[1]]
    assert multi_reference(hypotheses, two)["bleu"] == pytest.approx(100.0)
    assert multi_reference(hypotheses, one)["bleu"] < 80.0


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("Congratulations!", "wish"),
        ("Thank you very much.", "thanks"),
        ("Good morning.", "greeting"),
        ("Please sit down.", "request"),
        ("Where is the station?", "travel"),
        ("Tom left.", None),
        ("Where is the station that the man who sold me the ticket told me about?", None),
    ],
)
def test_phrases_are_found_by_kind_and_length(line: str, kind: str | None) -> None:
    assert kind_of(line) == kind


def test_phrases_come_again_without_their_end_marks() -> None:
    chosen = phrase_set(["Congratulations!", "Tom left.", "Congratulations!"], by_english(PAIRS))
    assert chosen == [
        ("Congratulations!", ["¡Felicidades!", "¡Enhorabuena!"]),
        ("Congratulations", ["Felicidades", "Enhorabuena"]),
    ]
    assert unmarked("¿Dónde está?") == "Dónde está"


def test_the_training_sample_is_fixed_short_and_never_held_out() -> None:
    corpus = by_english([(f"Line {i} is here.", "x") for i in range(50)] + PAIRS)
    held = {"Line 3 is here."}
    sample = train_sample(corpus, held)
    assert sample == train_sample(corpus, held)
    assert "Line 3 is here." not in sample and "Where is the station?" in sample
    assert all(len(line.split()) <= 6 for line in sample)
