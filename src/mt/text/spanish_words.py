"""pyspellchecker's Spanish word list (in its wheel, with each word's frequency in a large
Spanish text): which of a dictionary's translations is the one in common use, when the
dictionary lists its senses in another order (mt.text.bilingual.read_noun_senses), and which
Spanish words a cognate may be (mt.text.cognates); and Spanish spelling without its accents, as
those and the words measure (mt.evaluate.words) compare words."""

from __future__ import annotations

import functools
import gzip
import json
import unicodedata
from collections.abc import Mapping
from importlib import resources
from pathlib import Path


@functools.cache
def spanish_frequencies() -> Mapping[str, int]:
    """Word -> frequency, lower case as the list has it; loaded once, when a dictionary is read."""
    table = Path(str(resources.files("spellchecker").joinpath("resources", "es.json.gz")))
    return json.loads(gzip.decompress(table.read_bytes()))


def spanish_frequency(word: str) -> int:
    """The word's frequency in the list (0 for a word it lacks), asked in lower case."""
    return spanish_frequencies().get(word.lower(), 0)


def without_accents(text: str) -> str:
    """`text` without its acute accents and diaeresis ("nación": "nacion", "pingüino":
    "pinguino"), its case as given; the tilde of ñ stays, since "año" and "ano" are two words."""
    marks = unicodedata.normalize("NFD", text)
    kept = "".join(c for c in marks if not unicodedata.combining(c) or c in _KEPT_MARKS)
    return unicodedata.normalize("NFC", kept)


_KEPT_MARKS = {"\u0303"}  # the tilde of ñ
