"""Prose or not: commands, code and bare names are copied, casual English is normalised."""

from __future__ import annotations

import pytest

from mt.text.prose import is_prose, outside_spans


@pytest.mark.parametrize(
    "text",
    [
        "where is tom",
        "im sure he knows",
        "Find a file by its content:",
        "List installed extension images:",  # a heading: a capital, no function word
        "Options",
        "Open `setup.py` in the editor.",
    ],
)
def test_english_sentences_labels_and_casual_typing_are_prose(text: str) -> None:
    assert is_prose(text)


@pytest.mark.parametrize(
    "text",
    [
        "git cola --prompt",
        "magick mogrify -resize {{50%}} {{*.jpg}}",
        "apx pkgmanagers list",
        "alacritty",
        "str",
        "https://www.python.org/downloads/",
        "",
    ],
)
def test_commands_code_and_bare_names_are_not_prose(text: str) -> None:
    assert not is_prose(text)


def test_outside_spans_blanks_urls_code_and_numbers() -> None:
    assert outside_spans("Run ``ls`` on www.x.org 3 times.").split() == ["Run", "on", "times."]
