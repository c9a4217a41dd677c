"""A sentence's first word in the spelling the model knows: "Happy birthday!" was "Happy
cumpleaños.".

The training English begins few sentences with "Happy", so the cased vocabulary spells it in
pieces met in names ("▁Ha ##pp ##y"); in lower case it is a word the model learned ("▁happy").
So a sentence's first word goes to the model in lower case when

- it is a capital and lower-case letters ("Happy", not "NASA", "iPhone" or "O'Brien");
- the training English uses its lower-case spelling more often (words.tsv: "Tom" stays);
- the lower-case spelling is fewer source pieces;
- the training pairs seldom copy it as a name (the run's lexicon; NAME_SHARE).

The translation's first letter is then a capital again (after any opening marks: "¡Feliz").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mt.text.lexicon import Lexicon
from mt.text.wordstats import WordStats

RATIO = 1.0
"""How many times as often as the capitalised spelling the training must use the lower-case one."""
NAME_SHARE = 0.1
"""A word the training pairs copy as a name in this share of its uses, in either case, or more
stays as written: "Bill" (118 of 252 uses copied) and "Rose" (25 of 98) are names as often as
not at a sentence's start; "Happy" (16 of 658: a title now and then) is not."""

_LETTER_RUN = re.compile(r"(?<![\w'’.-])([^\W\d_]+)(?![\w'’.-]*\w)", re.UNICODE)
"""A word that letters alone make (a word glued to digits, an apostrophe, a dot or a hyphen is
left as written: "E-mail", "U.S.", "O'Neil")."""
_TITLE_TERM = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*", re.UNICODE)
_SIGNATURE = re.compile(r";|\w\(")
"""A semicolon, or a word followed directly by "(": code, not a title (docs/release.md, Link 14)."""
TITLE_SMALL = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "nor",
        "but",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "from",
        "by",
        "with",
        "as",
        "per",
        "via",
        "vs",
    ]
)
"""Words a title leaves in lower case ("Banks Want to Solve Crisis"), whatever they are here."""
_FIRST_LETTER = re.compile(r"[\s¡¿\"'«“‘(\[]*([^\W\d_])", re.UNICODE)
"""A translation's first letter, where only opening marks come before it."""


def candidates(stats: WordStats, *, ratio: float = RATIO) -> frozenset[str]:
    """The lower-case words used more than `ratio` times as often as their capitalised spelling:
    those a sentence may begin with in lower case."""
    spellings = stats.spellings
    chosen = set()
    for word, counts in spellings.items():
        if not (word.isalpha() and word.islower()):
            continue
        capitalised = spellings.get(word.capitalize())
        uses = 0 if capitalised is None else capitalised.first + capitalised.later
        if counts.first + counts.later > ratio * uses:
            chosen.add(word)
    return frozenset(chosen)


@dataclass
class FirstWords:
    """`candidates` (lower case) from `candidates()`; `pieces`: how many source pieces a word
    is; `lexicon`: the run's, which counts the training pairs that copy a capitalised word."""

    candidates: frozenset[str]
    pieces: Callable[[str], int]
    lexicon: Lexicon
    titles: bool = False  # a sentence in title case: every capitalised word, not the first only

    def __post_init__(self) -> None:
        self._decided: dict[str, bool] = {}

    def lowered(self, sentence: str) -> str | None:
        """`sentence` with its first word in lower case (in title case, with `titles`, each of
        its capitalised words), or None where it stays as written."""
        if self.titles and title_case(sentence):
            return self._lowered_title(sentence)
        match = _LETTER_RUN.match(sentence, len(sentence) - len(sentence.lstrip()))
        if match is None or not self._lowers(word := match.group(1)):
            return None
        start, end = match.span(1)
        return sentence[:start] + word.lower() + sentence[end:]

    def _lowered_title(self, sentence: str) -> str | None:
        spans = [m.span(1) for m in _LETTER_RUN.finditer(sentence) if self._lowers(m.group(1))]
        if not spans:
            return None
        text = list(sentence)
        for start, end in spans:
            text[start:end] = sentence[start:end].lower()
        return "".join(text)

    def _lowers(self, word: str) -> bool:
        if not _capitalised(word) or word.lower() not in self.candidates:
            return False
        if word not in self._decided:
            fewer = self.pieces(word.lower()) < self.pieces(word)
            self._decided[word] = fewer and not self._name(word)
        return self._decided[word]

    def _name(self, word: str) -> bool:
        counts = self.lexicon.get(word)
        if counts is None:
            return False
        return counts.copied >= NAME_SHARE * (counts.capitalised + counts.lower)


def title_case(sentence: str) -> bool:
    """Two or more words besides the small ones (TITLE_SMALL), all capitalised: "Banks Want to Solve
    Crisis"; a function's signature ("TBILLPRICE(Settlement; Maturity)") is no title."""
    if _SIGNATURE.search(sentence):
        return False
    words = [w for w in _TITLE_TERM.findall(sentence) if w.lower() not in TITLE_SMALL]
    return len(words) >= 2 and all(w[0].isupper() for w in words)


def capitalised_first(text: str) -> str:
    """`text` with its first letter a capital where only opening marks precede it ("¡", "¿")."""
    match = _FIRST_LETTER.match(text)
    if match is None or not match.group(1).islower():
        return text
    start, end = match.span(1)
    return text[:start] + text[start:end].upper() + text[end:]


def _capitalised(word: str) -> bool:
    return len(word) > 1 and word.isalpha() and word[0].isupper() and word[1:].islower()
