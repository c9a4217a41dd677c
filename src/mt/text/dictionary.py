"""pyspellchecker's English word list (160,000 words with their frequencies): which words are
English though the training never uses them ("heed", "surfer"), and which are common enough to
be what a slip meant. The two tables the normaliser asks are kept in the user's cache
(mt.storage.derived): read back in 0.12 s against pyspellchecker's own 0.38 s (docs/text.md).
"""

from __future__ import annotations

import functools
import gzip
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from mt.storage.derived import derived

COMMON = 1000
"""pyspellchecker's frequency from which a word's frequency is kept: below it, a word is never
taken for what a slip meant (mt.text.normalize DICTIONARY_TARGET), so only being a word counts."""


@dataclass(frozen=True)
class EnglishWords:
    words: frozenset[str]
    common: Mapping[str, int]  # word -> pyspellchecker's frequency, for those of COMMON or more

    def frequency(self, word: str) -> int:
        """The word's frequency if it is common, else 0."""
        return self.common.get(word, 0)


@functools.cache
def english_words() -> EnglishWords:
    """The word list, loaded once, when the typo step first needs it."""
    table = Path(str(resources.files("spellchecker").joinpath("resources", "en.json.gz")))
    return derived(
        table,
        kind="english-words",
        code=(sys.modules[__name__],),
        build=lambda: _read(table),
        encode=lambda found: {"words": sorted(found.words), "common": dict(found.common)},
        decode=lambda data: EnglishWords(frozenset(data["words"]), data["common"]),
    )


def english_word(word: str) -> bool:
    """A real English word though the training may never use it ("heed"): no slip to put right."""
    return word.lower() in english_words().words


def _read(table: Path) -> EnglishWords:
    frequencies = json.loads(gzip.decompress(table.read_bytes()))
    return EnglishWords(
        frozenset(frequencies),
        {word: count for word, count in frequencies.items() if count >= COMMON},
    )
