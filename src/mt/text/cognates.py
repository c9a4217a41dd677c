"""Spanish cognates of English nouns, by their endings (issue 66): for a noun its training English
never had the model invents, but many nouns share a Latin or Greek origin and their endings
correspond (-ity -idad, -tion -ción, -ism -ismo). A cognate is the English stem spelled the
Spanish way (ph f, th t, y i, doubled consonants single, s+consonant es-) with the Spanish
ending, kept only when pyspellchecker's Spanish list has it, which gives its accents too
("psychiatry": "psiquiatría"; "ability" gives no "abilidad").

Only endings right for 85% or more of the Wiktionary nouns they apply to are kept
(experiments/cognate_endings.py): not -ic, -al, -ive (gender decides), -ure or -um.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping

from mt.text.spanish_words import spanish_frequencies, without_accents

ENDINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ography", ("ografía",)),
    ("graphy", ("grafía",)),
    ("ology", ("ología",)),
    ("iatry", ("iatría",)),
    ("itis", ("itis",)),
    ("osis", ("osis",)),
    ("sis", ("sis",)),
    ("tion", ("ción",)),
    ("sion", ("sión",)),
    ("ity", ("idad",)),
    ("ism", ("ismo",)),
    ("ist", ("ista",)),
    ("ence", ("encia",)),
    ("ancy", ("ancia",)),
    ("ency", ("encia",)),
    ("ent", ("ente", "ento")),
    ("ance", ("ancia",)),
    ("ant", ("ante",)),
    ("cide", ("cida",)),
    ("ium", ("io",)),
    ("ine", ("ina",)),
    ("or", ("or",)),
    ("ary", ("ario",)),
    ("ory", ("orio",)),
    ("y", ("ía", "ia")),
)
"""English ending -> its Spanish endings, longest English ending first (the first that matches
decides); each with 85% or more of its Wiktionary nouns translated so."""

MIN_STEM = 3
"""Letters left before the ending: "city" has a stem of two and is no cognate of anything."""

MIN_FREQUENCY = 51
"""pyspellchecker gives 50 to the words its Spanish list has from a word list rather than from
text ("amnestía" beside "amnistía", 1,599; "playado"): a cognate must have been seen in use."""

REMEMBERED = 100_000
"""Words whose answer is kept; past that the memory starts again."""

_SPELLINGS = (
    ("ph", "f"),
    ("th", "t"),
    ("ch", "qu"),
    ("ch", "c"),
    ("y", "i"),
    ("k", "c"),
    *((double, double[0]) for double in ("mm", "ss", "tt", "ll", "pp", "ff", "nn", "dd")),
)
"""English spellings of a stem -> the Spanish spelling each may have become."""

_S_CONSONANT = re.compile(r"s[bcdfgklmnpqtvw]")


class CognateNouns(Mapping[str, tuple[str, ...]]):
    """English noun -> (its Spanish cognate,), computed when asked; the nouns a line may hold are
    unbounded, so iterating gives only those asked for so far (mt.decode.unseen asks by word)."""

    def __init__(
        self,
        spanish: Mapping[str, int] | None = None,
        *,
        endings: tuple[tuple[str, tuple[str, ...]], ...] = ENDINGS,
    ) -> None:
        self._given = spanish  # word -> frequency; None: pyspellchecker's list, read when asked
        self.endings = endings
        self._asked: dict[str, tuple[str, ...] | None] = {}  # every word asked, found or not

    def __getitem__(self, word: str) -> tuple[str, ...]:
        found = self._lookup(word)
        if found is None:
            raise KeyError(word)
        return found

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self._lookup(word) is not None

    def __iter__(self) -> Iterator[str]:
        return (word for word, found in self._asked.items() if found is not None)

    def __len__(self) -> int:
        return sum(found is not None for found in self._asked.values())

    def _lookup(self, word: str) -> tuple[str, ...] | None:
        """(the cognate,) or None, worked out once a word: a line asks `in`, then `[]`."""
        if word not in self._asked:
            if len(self._asked) >= REMEMBERED:  # a server's inputs are unbounded
                self._asked.clear()
            cognate = self.cognate(word)
            self._asked[word] = None if cognate is None else (cognate,)
        return self._asked[word]

    def cognate(self, word: str) -> str | None:
        """The cognate as the list spells it (the most frequent of several), or None."""
        if not (word.isalpha() and word.islower()):
            return None
        for english, endings in self.endings:
            if word.endswith(english) and len(word) - len(english) >= MIN_STEM:
                found = {
                    self._spelled[key]
                    for stem in spanish_stems(word[: -len(english)])
                    for ending in endings
                    if (key := without_accents(stem + ending)) in self._spelled
                }
                if found:
                    return max(sorted(found), key=self._frequencies.__getitem__)
                break
        return None

    @functools.cached_property
    def _frequencies(self) -> Mapping[str, int]:
        return spanish_frequencies() if self._given is None else self._given

    @functools.cached_property
    def _spelled(self) -> Mapping[str, str]:
        """Unaccented spelling -> the list's word (the most frequent where accents tell apart)."""
        return _default_spellings() if self._given is None else _by_unaccented(self._given)


def spanish_stems(stem: str) -> set[str]:
    """The spellings an English stem may have in Spanish, itself included ("psych": "psiqu")."""
    found = {stem}
    for english, spanish in _SPELLINGS:
        found |= {s.replace(english, spanish) for s in found if english in s}
    return found | {"e" + s for s in found if _S_CONSONANT.match(s)}


@functools.cache
def _default_spellings() -> dict[str, str]:
    return _by_unaccented(spanish_frequencies())


def _by_unaccented(spanish: Mapping[str, int]) -> dict[str, str]:
    found: dict[str, str] = {}
    for word, frequency in spanish.items():
        if frequency < MIN_FREQUENCY:
            continue
        key = without_accents(word)
        if key not in found or frequency > spanish[found[key]]:
            found[key] = word
    return found
