"""What is carried through as typed (mt.text.kept), as the protected spans of mt.text.spans."""

from __future__ import annotations

import time

import pytest

from mt.text.kept import LONG_BLOB, LONGEST_LEARNED
from mt.text.spans import find_spans


def kinds(text: str) -> list[tuple[str, str]]:
    return [(span.kind, span.text) for span in find_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I love 🍕 and 🎉!!! 😀😀😀", [("symbol", "🍕"), ("symbol", "🎉"), ("symbol", "😀😀😀")]),
        ("a family 👨‍👩‍👧 and 👍🏽", [("symbol", "👨‍👩‍👧"), ("symbol", "👍🏽")]),
        ("Done ✅ ⚠️", [("symbol", "✅"), ("symbol", "⚠️")]),
        ("مرحبا بالعالم and hello world", [("foreign", "مرحبا بالعالم")]),
        ("He said Привет, мир! twice", [("foreign", "Привет, мир")]),
        ("你好世界 and 東京", [("foreign", "你好世界"), ("foreign", "東京")]),
        ("a 5 μm gap, α 1.4", [("number", "5"), ("number", "1.4")]),  # a lone letter is a symbol
        # a script or style element is code, whole: version 13 gave "<script>Alert(1)</script>"
        ("<script>alert(1)</script> Hello", [("markup", "<script>alert(1)</script>")]),
        ("<b>Hi</b> <STYLE>p{color:red}</STYLE>", [("markup", "<b>"), ("markup", "</b>"),
                                                   ("markup", "<STYLE>p{color:red}</STYLE>")]),
        # a number inside a foreign run stays in it: the run was lost whole before
        ("Привет мир 0 Привет мир", [("foreign", "Привет мир 0 Привет мир")]),
        ("Привет 2024", [("foreign", "Привет"), ("number", "2024")]),
    ],
)  # fmt: skip
def test_symbols_other_scripts_and_tags_are_spans(text: str, expected: list) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "identifier",
    [
        "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",  # SHA-256
        "5d41402abc4b2a76b9719d911017c592",  # MD5
        "550e8400-e29b-41d4-a716-446655440000",  # UUID
        "SGVsbG8gV29ybGQh",  # base64 with padding none, both cases and a digit
        "aGVsbG8gd29ybGQ=",  # base64 with padding
        "v1.2",
        "v2.13.0-beta.1",
        "3.0.1-rc2",
    ],
)
def test_identifiers_are_spans_without_their_quotes_and_final_mark(identifier: str) -> None:
    assert kinds(f'The value "{identifier}".') == [("identifier", identifier)]


@pytest.mark.parametrize(
    "text",
    [
        "The committee approved the report on Tuesday.",
        "Decades of deadbeef facades.",  # hex letters without a digit are words
        "Internationalization and counterrevolutionaries",  # long words the model knows
        "Version 3.5 of the manual, 1,000 copies",  # numbers stay numbers
    ],
)
def test_ordinary_english_holds_none(text: str) -> None:
    assert all(kind in ("number",) for kind, _ in kinds(text))


def test_a_token_longer_than_any_learned_word_is_one_span_and_a_learned_one_none() -> None:
    longest = "HTTPPasswordMgrWithDefaultRealm"
    assert len(longest) == LONGEST_LEARNED and kinds(f"Use {longest} here") == []
    blob = "Thisisaverylongwordwithoutspaces"
    assert kinds(f"Look at {blob}.") == [("long", blob)]
    marks = "!" * LONG_BLOB
    assert kinds(f"Wow {marks}") == [("long", marks)]  # all marks: the token itself


def test_a_long_blob_holding_a_url_keeps_the_url_and_its_own_long_runs() -> None:
    run = "x" * LONG_BLOB
    assert kinds(f"{run}(https://example.com/a)") == [
        ("long", run),
        ("url", "https://example.com/a"),
    ]


def test_finding_them_in_a_line_of_a_hundred_thousand_characters_is_linear() -> None:
    """Each pattern is read once: the lines that would take a backtracking pattern quadratic
    time (many starts, no end) are found in well under a second each."""
    lines = [
        "a" * 100_000,
        "<a" * 50_000,
        "a/" * 50_000,
        "9f" * 50_000 + "!",
        "Привет " * 14_000 + "?",
        "😀 " * 50_000,
        "v1." * 33_000,
    ]
    for line in lines:
        started = time.perf_counter()
        spans = find_spans(line)
        assert time.perf_counter() - started < 5, line[:20]
        assert all(line[s.start : s.end] == s.text for s in spans)


def test_pieces_that_touch_are_one_span_foreign_if_either_is() -> None:
    assert kinds("Say Привет😀мир now") == [("foreign", "Привет😀мир")]
    assert kinds("ok 😀🎉✅ done") == [("symbol", "😀🎉✅")]
