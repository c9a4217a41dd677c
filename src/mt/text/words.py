"""What a word is, written once (tests/test_one_definition.py fails on a word pattern defined
anywhere else):

- WORD, an English word as typed: what mt.text.prose, mt.text.normalize and mt.text.wordstats
  read;
- LETTERS, the letters of an English word, split at an apostrophe: where keyboard slips fall
  (mt.text.casual);
- ANY_WORD, a word in any script, digits included ("está", "2024"): what compares a translation's
  words with its source's.

`word_or_mark` gives the unit of word alignment (mt.decode.documents.align): a placeholder token,
a word with apostrophes inside, or one punctuation mark.
"""

from __future__ import annotations

import re

WORD = re.compile(r"(?<![^\W_])[A-Za-z]+(?:['’][A-Za-z]+)*(?![^\W_])")
"""An English word as typed: ASCII letters, with apostrophes inside ("don't", "Tom’s"), and no
letter or digit glued to either end: "François", "naïve", "5th" and "mp3" hold no English word
(read as one, "François" gave the statistics an "ois" that the typo step then took for a word)."""
LETTERS = re.compile(r"[A-Za-z]+")
"""A run of ASCII letters: an English word's letters, split at its apostrophes."""
ANY_WORD = re.compile(r"\w+")
"""A word in any script: Unicode letters, digits and underscores."""


def word_or_mark(token: str) -> re.Pattern[str]:
    """`token` (a pattern), or a word in any script with apostrophes inside that stops where a
    token starts, or one mark that is neither word nor space: how documents align their text."""
    plain = rf"(?:(?!{token})\w)+"
    return re.compile(rf"{token}|{plain}(?:['’]{plain})*|[^\w\s]")
