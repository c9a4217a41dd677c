"""Flags on constructed cases: each fires where it should and stays quiet on a good output."""

from __future__ import annotations

import time

import pytest

from mt.quality.flags import (
    COPY,
    CUT,
    NOT_ENGLISH,
    REPETITION,
    CopyThresholds,
    copies_source,
    copy_evidence,
    flags_for,
    longest_loop,
    not_english,
    repeats,
    surely_english,
    surely_spanish,
)


def test_a_good_translation_has_no_flags() -> None:
    assert flags_for("Where is the station?", "¿Dónde está la estación?", cut=False) == ()


def test_copy_of_english_words_is_flagged() -> None:
    assert flags_for("Where is the station?", "Where is the station?", cut=False) == (COPY,)
    assert copies_source("I like the green house.", "I like the green casa.")


@pytest.mark.parametrize(
    ("source", "output"),
    [
        ("Tom", "Tom"),
        ("3.5%", "3.5%"),
        ("NASA", "NASA"),
        ("ls -la", "ls -la"),
        ("", ""),
        # tldr's command lines and Python's names: their references copy them too
        ("git cola --prompt", "git cola --prompt"),
        ("apx pkgmanagers list", "apx pkgmanagers list"),
        ("str", "str"),
        # the source's names, URLs and code are copied by right inside a translation
        (
            "PEP written by Guido van Rossum and Raymond Hettinger.",
            "PEP escrito por Guido van Rossum y Raymond Hettinger.",
        ),
        (
            "See ``os.path.join`` at https://docs.python.org/3/",
            "Ver ``os.path.join`` en https://docs.python.org/3/",
        ),
    ],
)
def test_copying_names_numbers_and_code_is_not_flagged(source: str, output: str) -> None:
    assert not copies_source(source, output)


def test_a_copied_label_or_heading_is_flagged() -> None:
    assert not copies_source("Options", "Options")  # a lone word may be a name: quiet
    assert copies_source("List installed extension images:", "List installed extension images:")


def test_a_heading_left_half_in_english_is_flagged_but_not_a_translation_sharing_a_word() -> None:
    # half the letters or more are the source's and the output does not read as Spanish
    assert copies_source("Protecting document", "Protecting documento.")  # 53%, 19 letters
    assert copies_source("Remove all hidden files", "Remove all hidden archivos.")  # 65%
    # too few letters (under 16) for the language to tell: quiet
    assert not copies_source("Threading model", "Threading modelo.")
    assert not copies_source("Are you a doctor?", "¿Eres doctor?")
    # two thirds of the letters the source's, in an output that reads as Spanish: a translation
    assert not copies_source(
        "The animal hospital is in the capital", "El hospital animal está en la capital."
    )


def test_a_repetition_loop_is_flagged_unless_the_source_has_it() -> None:
    loop = "Quiero ir a la casa de la casa de la casa de la casa de"
    assert flags_for("I want to go home.", loop, cut=False) == (REPETITION,)
    assert repeats("I want to go home.", "no no no no no no")
    assert not repeats("no no no no no no", "no no no no no no")
    assert not repeats("I want to go home.", "Quiero ir a casa, a casa.")
    assert longest_loop(["a", "b", "c"] * 3) == (3, 3)


def test_a_cut_output_is_flagged() -> None:
    assert flags_for("Where is the station?", "¿Dónde está la", cut=True) == (CUT,)


@pytest.mark.parametrize(
    "source",
    [
        "Je voudrais un café, s'il vous plaît.",
        "Ich möchte heute Abend ins Kino gehen.",
        "Il fait beau aujourd'hui et je suis content.",
    ],
)
def test_french_or_german_input_is_flagged(source: str) -> None:
    assert not_english(source)
    assert NOT_ENGLISH in flags_for(source, "algo", cut=False)


@pytest.mark.parametrize(
    "source",
    ["Hello", "Tom", "Run the command.", "Open the file with gedit.", "I am tired.", "ls -la"],
)
def test_short_or_technical_english_is_not_flagged(source: str) -> None:
    assert not not_english(source)


def test_copy_evidence_counts_letters_of_the_sources_words() -> None:
    evidence = copy_evidence("I like the green house.", "I like the green casa.")
    assert evidence is not None
    assert evidence.letters == len("Ilikethegreencasa")
    assert evidence.shared == pytest.approx(len("Ilikethegreen") / len("Ilikethegreencasa"))
    assert copy_evidence("ls -la", "ls -la") is None  # a command: copying is right


def test_copy_thresholds_move_the_flag() -> None:
    source, output = "I like the green house.", "I like the green casa."  # 13 of 17 letters
    assert CopyThresholds(overlap=0.7).judge(copy_evidence(source, output))
    assert not CopyThresholds(overlap=0.8, half_overlap=0.8).judge(copy_evidence(source, output))
    # Between the two shares, the language decides, and only from min_letters letters on.
    between = CopyThresholds(overlap=0.9, half_overlap=0.5, min_letters=12)
    assert between.judge(copy_evidence(source, output), spanish=lambda words: False)
    assert not between.judge(copy_evidence(source, output), spanish=lambda words: True)
    few = CopyThresholds(overlap=0.9, half_overlap=0.5, min_letters=40)
    assert not few.judge(copy_evidence(source, output), spanish=lambda words: False)
    assert not CopyThresholds().judge(None)


@pytest.mark.parametrize(
    ("source", "english"),
    [
        ("Where is the train station?", True),
        ("The report of the committee was about the budget.", True),
        ("don't you think it's late?", True),
        ("The committee approved the report on Tuesday.", False),  # one marker: py3langid asks
        ("El informe de la comisión fue aprobado por el pleno.", False),
        ("Has visto el coche de mi hermano?", False),  # "has" is Spanish too
        ("Het was een mooie dag en we zijn blij.", False),  # "was", "we" are Dutch
        ("Ich will the Bericht lesen, und das ist gut.", False),  # one marker among German
        ("Use ``from module import name`` in the file.", False),  # the code is set aside
    ],
)
def test_two_distinct_english_markers_make_a_line_surely_english(source: str, english: bool):
    assert surely_english(source) is english


@pytest.mark.parametrize(
    ("text", "spanish"),
    [
        ("Los países y las organizaciones dijeron que hay más ayuda.", True),
        ("El secretario general dijo que la situación es muy grave.", True),
        ("La reunión fue el martes.", False),  # one marker: py3langid asks
        ("Os países e as organizações também foram ouvidos.", False),  # Portuguese
        ("Els països i les organitzacions també han parlat.", False),  # Catalan
        ("I paesi e le organizzazioni sono anche qui, per il bene del mondo.", False),  # Italian
        ("Les pays et les organisations ont aussi parlé.", False),  # French
        ("The countries and the organisations said there is more help.", False),
    ],
)
def test_two_distinct_spanish_markers_make_a_line_surely_spanish(text: str, spanish: bool):
    assert surely_spanish(text) is spanish


def test_a_line_that_is_surely_english_is_never_flagged_without_asking_the_classifier(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never() -> None:
        raise AssertionError("the classifier is not needed")

    monkeypatch.setattr("mt.quality.flags._identifier", never)
    assert not not_english("Where is the train station and when does it open?")
    assert flags_for("Ich möchte heute Abend ins Kino.", "x", cut=False, check_language=False) == ()


def test_the_longest_loop_of_a_line_of_fifty_thousand_words_is_found_in_one_pass() -> None:
    started = time.perf_counter()
    assert longest_loop(["ha"] * 50_000) == (1, 50_000)
    assert time.perf_counter() - started < 10  # the nested count took minutes
