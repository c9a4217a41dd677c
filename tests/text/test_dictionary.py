"""The English word list: words the training may lack, common ones with their frequency, read
back from the user's cache as pyspellchecker itself gives them."""

from __future__ import annotations

from pathlib import Path

import pytest
from spellchecker import SpellChecker

from mt.storage.derived import CACHE_ENV
from mt.text.dictionary import COMMON, english_word, english_words


def test_real_words_are_english_and_a_library_name_is_not() -> None:
    assert english_word("heed") and english_word("surfer") and english_word("Dozing")
    assert not english_word("numpy")


def test_only_common_words_keep_their_frequency() -> None:
    words = english_words()
    assert words.frequency("graveyard") >= COMMON
    assert "lumpy" in words.words and words.frequency("lumpy") == 0  # 768: below COMMON


def test_the_cached_list_is_pyspellchecker_s(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    english_words.cache_clear()
    built = english_words()  # derived and written to the cache
    english_words.cache_clear()
    read_back = english_words()
    english_words.cache_clear()
    assert list(tmp_path.glob("derived/english-words-*.json"))
    frequencies = SpellChecker(language="en").word_frequency
    assert read_back.words == built.words == frozenset(frequencies.keys())
    assert read_back.common == {w: n for w, n in frequencies.items() if n >= COMMON}
