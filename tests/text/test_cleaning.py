"""One cleaning for the corpus and for translation input: what it does, and that the fast corpus
path gives exactly what the one-text function gives."""

from __future__ import annotations

import unicodedata
from pathlib import Path

from mt.data.readers.corpus import read_corpus
from mt.text.cleaning import clean_text, clean_texts

TRICKY = [
    "plain text.",
    unicodedata.normalize("NFD", "café con leche"),
    "Two\u200b words\ufeff.",
    "e\u200b\u0301",  # removing the zero-width space leaves a composable pair
    "Ten\u00a0euros\u202fnow\u2007.",
    "Too   many\u3000spaces\t and\x0btabs.",
    " padded ",
    "bell\x07 and\x7f delete\x85",
    "  ",
    "",
    "¿Dónde está la estación?",
    "nul\x00inside",
]


def test_clean_text_rules() -> None:
    assert clean_text(unicodedata.normalize("NFD", "café")) == "café"
    assert clean_text("e\u200b\u0301") == "é"
    assert clean_text("Two\u200b words.") == "Two words."
    assert clean_text("Ten\u00a0euros.") == "Ten euros."
    assert clean_text(" Too   many\u3000spaces\t. ") == "Too many spaces ."
    assert clean_text("bell\x07ring\x00") == "bell ring"
    assert clean_text(" \u200b ") == ""


def test_clean_texts_equals_clean_text_one_by_one() -> None:
    for texts in (TRICKY, TRICKY[:-1], [], ["ok"], ["", " a"]):
        cleaned, changes = clean_texts(texts)
        assert cleaned == [clean_text(text) for text in texts]
        changed = set().union(*changes.values())
        assert changed == {i for i, text in enumerate(texts) if clean_text(text) != text}


def test_clean_texts_counts_each_step() -> None:
    _, changes = clean_texts(["a\u200bb", unicodedata.normalize("NFD", "é"), "a\u00a0b", " a"])
    assert changes == {
        "zero_width_removed": {0},
        "nfc_changed": {1},
        "no_break_spaces_mapped": {2},
        "whitespace_collapsed": set(),
        "stripped": {3},
    }


def test_prepare_and_translate_clean_alike(tmp_path: Path) -> None:
    lines = [text.replace("\x00", "") for text in TRICKY if text.strip(" \u200b")]
    path = tmp_path / "c.tsv"
    path.write_text("".join(f"{t.replace(chr(9), ' ')}\tes {i}\n" for i, t in enumerate(lines)))
    english = [en for en, _ in read_corpus(path).pairs]
    expected = [clean_text(t.replace("\t", " ")) for t in lines]
    assert english == [text for text in expected if text]
