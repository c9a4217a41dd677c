"""An English–Spanish dictionary in the format of the English Wiktionary's translation tables as
Matthias Buchmeier extracted them (../shared/data/lexicon/en-es.wiktionary.txt, CC BY-SA 3.0 /
GFDL), read into headword -> Spanish translations:

    headword {pos} /IPA/ (sense) :: translation {gender}, [qualifier] translation {gender}, …

A headword's lines (other parts of speech and senses) are joined. Of a translation, what is in
braces, brackets or parentheses is dropped ("pensión (alimenticia) {f}" is "pensión"), and
translations are split at commas and semicolons outside them. Case, accents and multi-word
entries are kept: what a use needs is that use's choice (mt.evaluate.words).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

from mt.errors import MtError

SEPARATOR = "::"
_HEAD_END = re.compile(r" \{| /| \(| SEE:")
"""Where a headword ends: its part of speech, its pronunciation, its sense or a cross-reference."""
_ASIDE = re.compile(r"\{[^}]*\}|\[[^\]]*\]|\([^)]*\)")
"""A gender, a qualifier or a parenthesis inside one translation."""
_OPENS, _CLOSES = "{[(", "}])"


def read_bilingual(path: Path) -> dict[str, frozenset[str]]:
    """Every headword of the file with its translations (a headword with none is left out); a
    line without its `::` or its headword is one MtError naming the file and the line."""
    found: dict[str, set[str]] = {}
    for _, headword, translations in _entries(path):
        if translations:
            found.setdefault(headword, set()).update(translations)
    return {headword: frozenset(translations) for headword, translations in found.items()}


def read_noun_senses(
    path: Path, frequency: Callable[[str], int] | None = None
) -> dict[str, tuple[str, ...]]:
    """One-word English nouns in lower case -> their one-word noun translations, each once, as
    written, or with `frequency` the most frequent first (Wiktionary orders senses by history)."""
    return read_noun_table(path, frequency)[0]


def read_noun_table(
    path: Path, frequency: Callable[[str], int] | None = None
) -> tuple[dict[str, tuple[str, ...]], dict[str, tuple[str, bool]]]:
    """read_noun_senses, and the one-word Spanish of noun lines -> (the gender the file gives it,
    whether it is plural): "abrochadora {f}" is ("f", False); two genders or none: left out."""
    senses: dict[str, dict[str, None]] = {}  # a dict keeps the order written, each once
    genders: dict[str, set[tuple[str, bool]]] = {}
    for line, headword, _ in _entries(path):
        if _NOUN.match(line) is None or not (headword.isalpha() and headword.islower()):
            continue
        for item in _split_outside_brackets(line.partition(SEPARATOR)[2]):
            translation = _without_asides(item)
            if not translation.isalpha():
                continue
            senses.setdefault(headword, {})[translation] = None
            if len(given := _GENDER.findall(item)) == 1:
                gender, plural = given[0]
                genders.setdefault(translation, set()).add((gender, plural == "-p"))
    if frequency is None:
        ordered = {headword: tuple(found) for headword, found in senses.items()}
    else:
        ordered = {h: _most_frequent_first(list(found), frequency) for h, found in senses.items()}
    return ordered, {word: next(iter(g)) for word, g in genders.items() if len(g) == 1}


_GENDER = re.compile(r"\{([mf])(-p)?\}")
"""A translation's gender: {m}, {f}, and their plurals {m-p}, {f-p}."""


def _most_frequent_first(
    translations: list[str], frequency: Callable[[str], int]
) -> tuple[str, ...]:
    uses = [frequency(t) for t in translations]
    first = uses.index(max(uses))  # index() gives the first written of a tie
    return (translations[first], *translations[:first], *translations[first + 1 :])


def english_singulars(word: str) -> Iterator[str]:
    """The singulars `word` would have as a regular English plural ("cities": "city"), likeliest
    first: what a dictionary's headword is looked up by."""
    for ending, singular_ending in _PLURALS:
        if word.endswith(ending):
            yield word[: -len(ending)] + singular_ending


_PLURALS = (("ies", "y"), ("es", ""), ("s", ""))  # English plural ending -> its singular's


def _entries(path: Path) -> Iterator[tuple[str, str, list[str]]]:
    """(line, headword, translations) of each entry, in order; a malformed line is one MtError."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            entry = parse_line(line)
            if entry is None:
                continue
            if not entry[0]:
                raise MtError(
                    f"{path}:{number}: not a dictionary line (`headword {{pos}} (sense) :: "
                    f"translation, …`): {line.strip()[:60]!r}"
                )
            yield line, *entry


_NOUN = re.compile(r"^[^{:]+ \{n\}")
"""A line whose part of speech is {n}."""


def parse_line(line: str) -> tuple[str, list[str]] | None:
    """(headword, translations) of a line; None for a header or blank; "" headword: malformed."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    left, separator, right = text.partition(SEPARATOR)
    if not separator:
        return "", []
    headword = _HEAD_END.split(left, maxsplit=1)[0].strip()
    return headword, translations_of(right)


def translations_of(text: str) -> list[str]:
    """The translations of a line's right side, its asides dropped, in the order written."""
    return [t for item in _split_outside_brackets(text) if (t := _without_asides(item))]


def _without_asides(item: str) -> str:
    """One translation as written, its gender, qualifiers and parentheses dropped."""
    return " ".join(_ASIDE.sub(" ", item).split())


def _split_outside_brackets(text: str) -> list[str]:
    items, current, depth = [], [], 0
    for character in text:
        if character in _OPENS:
            depth += 1
        elif character in _CLOSES:
            depth = max(depth - 1, 0)
        elif character in ",;" and depth == 0:
            items.append("".join(current))
            current = []
            continue
        current.append(character)
    items.append("".join(current))
    return items
