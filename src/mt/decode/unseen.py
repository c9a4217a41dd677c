"""A dictionary's nouns for the words a model never learned (issue 66): "She bought a new
dishwasher" was "un nuevo playado", as no training pair has a dishwasher.

A word gets its dictionary noun when its training English never had it (words.tsv), it is a
lower-case word of MIN_LETTERS or more (a capitalised one is left to the model), and the
dictionary has it, or the singular of its regular plural, as a noun. The terms go through the
glossary's placement (mt.decode.glossary): only a line whose translation lacks a term's Spanish
is searched again with its stand-in, and the article before a placed noun agrees with its
gender (mt.text.agreement).

The nouns come from --dictionary, from the Spanish cognates of English endings
(mt.text.cognates; a model's decode.json may ask for them), or both, the dictionary first.
"""

from __future__ import annotations

import re
from collections import ChainMap
from collections.abc import Mapping, Sequence
from pathlib import Path

from mt.decode.glossary import Glossary, Term
from mt.errors import MtError
from mt.text.agreement import Gender
from mt.text.bilingual import english_singulars, read_noun_table
from mt.text.cognates import CognateNouns
from mt.text.spanish_words import spanish_frequency, without_accents
from mt.text.words import WORD

MIN_LETTERS = 4
"""Shorter words are left to the model (most are function words or abbreviations)."""


class UnseenNouns:
    """Per line, a glossary of the nouns the training English never had."""

    def __init__(
        self,
        nouns: Mapping[str, Sequence[str]],
        seen: frozenset[str],
        *,
        name: str,
        genders: Mapping[str, tuple[str, bool]] | None = None,
    ) -> None:
        self.nouns = nouns  # mt.text.bilingual.read_noun_senses
        self.seen = seen  # the training English's words in lower case (LoadedModel.seen_words)
        self.name = name
        self.genders = genders or {}  # a dictionary's Spanish nouns -> (gender, plural)

    def glossary(self, line: str, given: Glossary | None = None) -> Glossary | None:
        """The never-seen nouns of `line` as a glossary, after the terms of a `given` one (whose
        Spanish wins where both have a word); `given` alone where the line has none."""
        terms: dict[str, Term] = {}
        for match in WORD.finditer(line):
            word = match.group()
            lower_case = word.isalpha() and word.islower()
            if not lower_case or len(word) < MIN_LETTERS or word in self.seen or word in terms:
                continue
            if _glued(line, match.start(), match.end()):
                continue
            senses = self.spanish(word)
            if senses is not None:
                stem = self._singular(word)  # a plural's senses in the singular count too
                singular = () if stem is None else tuple(self.nouns[stem])
                others = {*senses[1:], *map(spanish_plural, senses), *singular}
                others.discard(senses[0])
                terms[word] = Term(
                    word, senses[0], also=tuple(sorted(others)), gender=self._gender(word, stem)
                )
        if not terms:
            return given
        if given is None:
            return Glossary(terms.values(), self.name)
        return Glossary([*given.terms.values(), *terms.values()], given.name)

    def spanish(self, word: str) -> tuple[str, ...] | None:
        """`word`'s dictionary translations (the one placed first), or its singular's plurals."""
        if word in self.nouns:
            return tuple(self.nouns[word])
        stem = self._singular(word)
        return None if stem is None else tuple(map(spanish_plural, self.nouns[stem]))

    def _gender(self, word: str, stem: str | None) -> Gender | None:
        """The gender the dictionary gives the Spanish placed for `word`, plural where `word` is
        the plural of `stem` (its Spanish then made plural by rule)."""
        if word in self.nouns:
            return self.genders.get(self.nouns[word][0])
        if stem is None:
            return None
        found = self.genders.get(self.nouns[stem][0])
        return None if found is None else (found[0], True)

    def _singular(self, word: str) -> str | None:
        """The noun `word` is a regular plural of, where the training had neither."""
        for stem in english_singulars(word):
            if stem not in self.seen and stem in self.nouns:
                return stem
        return None


def unseen_nouns(
    dictionary: Mapping[str, Sequence[str]] | None,
    *,
    cognates: bool,
    seen: frozenset[str],
    model: str,
) -> UnseenNouns | None:
    """The never-seen nouns' source asked for (None: neither), the dictionary before the cognates;
    a model without words.tsv cannot tell which words it never had, so it is refused."""
    nouns: Mapping[str, Sequence[str]]
    if dictionary is None:
        if not cognates:
            return None
        nouns, name = CognateNouns(), "cognates"
    else:
        nouns = ChainMap(dict(dictionary), CognateNouns()) if cognates else dictionary
        name = "dictionary"
    if not seen:
        raise MtError(f"{model}: no words.tsv, so {name} cannot tell the words it never had")
    genders = dictionary.genders if isinstance(dictionary, DictionaryNouns) else None
    return UnseenNouns(nouns, seen, name=name, genders=genders)


def _glued(line: str, start: int, end: int) -> bool:
    """A word inside a compound, a name in code or an address ("bloodhound-python", "/usr/share"),
    which a noun put there would break; not one in a tldr placeholder ("{{brokers}}")."""
    before, after = line[max(start - 2, 0) : start], line[end : end + 2]
    return _GLUED_BEFORE.search(before) is not None or _GLUED_AFTER.match(after) is not None


_GLUED_BEFORE = re.compile(r"[-/@\\_]$|\w\.$")
_GLUED_AFTER = re.compile(r"[-/@\\_]|\.\w")


class DictionaryNouns(dict[str, tuple[str, ...]]):
    """A dictionary file's nouns (English -> Spanish senses), with the genders it gives their
    Spanish, for the article before a placed noun ("la abrochadora")."""

    def __init__(
        self, senses: Mapping[str, tuple[str, ...]], genders: Mapping[str, tuple[str, bool]]
    ) -> None:
        super().__init__(senses)
        self.genders = genders


def read_dictionary(path: Path) -> DictionaryNouns:
    """The nouns of a dictionary file, the translation in most common use first, and their
    genders; one MtError where the file is missing or malformed."""
    if not path.is_file():
        raise MtError(f"dictionary {path}: no such file")
    try:
        return DictionaryNouns(*read_noun_table(path, frequency=spanish_frequency))
    except UnicodeDecodeError as error:
        raise MtError(f"dictionary {path}: not UTF-8 (byte {error.start})") from None


def spanish_plural(noun: str) -> str:
    """The regular plural: casa casas, ciudad ciudades, luz luces, nación naciones (the accent
    of a last syllable goes); a word ending in s stays."""
    if noun.endswith("s"):
        return noun
    if noun.endswith("z"):
        return noun[:-1] + "ces"
    if noun[-1] in "aeiouáéó":
        return noun + "s"
    if noun[-1] == "n" and noun[-2:-1] in _ACUTE:
        noun = noun[:-2] + without_accents(noun[-2:])
    return noun + "es"


_ACUTE = "áéíóú"
