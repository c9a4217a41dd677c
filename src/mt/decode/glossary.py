"""Glossaries: English terms that must come out as the user's Spanish terms.

Each term found in the source is replaced by a stand-in the model copies (a placeholder token,
mt.data.tokenization.PLACEHOLDERS, or else a name such as "Tom"), and the stand-in in the output
by the Spanish term: unlike constrained beam search, which CTranslate2 lacks, this leaves the
search untouched, so both engines give the same result.

Matching: longest term first, case-insensitive, on word boundaries, any white space matching a
term's space. The Spanish takes the source's case where the entry's does not explain it ("OK" ->
"ACEPTAR" for the entry "ok"), and a capital where it begins the output sentence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mt.errors import MtError
from mt.text.agreement import Gender, agree_before, noun_gender

NAME_STAND_INS = ("Tom", "Mary", "John")
"""Stand-ins for a model without placeholder tokens: the names it copies most
(benchmarks/trust/bench_glossary.py), for terms here and unseen names in mt.decode.placeholders."""

# What may stand between a sentence's end (or the text's start) and its first word: "- ¿Allow".
_SENTENCE_START = re.compile(r"(?:^|[.!?…:]\s)[\s\"'“‘«¿¡(\[–—-]*$")


def starts_sentence(text: str, position: int) -> bool:
    """Whether the word at `position` of `text` is a sentence's first."""
    return _SENTENCE_START.search(text, 0, position) is not None


@dataclass(frozen=True)
class Term:
    english: str
    spanish: str
    also: tuple[str, ...] = ()
    """Other Spanish that counts as the term translated already (a dictionary's other senses,
    mt.decode.unseen): a translation made without the glossary that has one is kept as it is."""
    gender: Gender | None = None
    """The gender a dictionary gives the Spanish ("abrochadora {f}"), for the article before it."""


def _key(text: str) -> str:
    return " ".join(text.split()).casefold()


class Glossary:
    """Terms by their English, found longest first; `name` says where they came from."""

    def __init__(self, terms: Iterable[Term], name: str = "glossary") -> None:
        self.name = name
        self.terms: dict[str, Term] = {}
        for term in terms:
            self.terms.setdefault(_key(term.english), term)
        ordered = sorted(self.terms.values(), key=lambda t: -len(_key(t.english)))
        words = (r"\s+".join(map(re.escape, t.english.split())) for t in ordered)
        alternatives = "|".join(words)
        self._pattern = re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)

    def __len__(self) -> int:
        return len(self.terms)

    @functools.cached_property
    def genders(self) -> dict[str, Gender]:
        """The Spanish of each term a dictionary gave a gender, in lower case -> that gender."""
        return {t.spanish.lower(): t.gender for t in self.terms.values() if t.gender is not None}

    def find(self, text: str) -> list[tuple[re.Match, Term]]:
        """Each term in `text`, left to right; where two overlap the longer one wins."""
        if not self.terms:
            return []
        return [(m, self.terms[_key(m.group())]) for m in self._pattern.finditer(text)]


def glossary_from_pairs(pairs: Sequence[tuple[str, str]], name: str) -> Glossary:
    """A glossary from (english, spanish) pairs, e.g. a request's; MtError names the first bad
    pair by its number. One English term given two different Spanish terms is an error."""
    terms: dict[str, Term] = {}
    for number, (english, spanish) in enumerate(pairs, 1):
        problem = _problem(english, spanish, terms)
        if problem:
            raise MtError(f"{name}: pair {number}: {problem}")
        terms[_key(english)] = Term(english.strip(), spanish.strip())
    return Glossary(terms.values(), name)


def read_glossary(path: Path, name: str | None = None) -> Glossary:
    """A TSV file of english<TAB>spanish lines (# comments); a bad line is one MtError naming it."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise MtError(f"glossary {path}: no such file") from None
    except IsADirectoryError:
        raise MtError(f"glossary {path}: is a directory, not a TSV file") from None
    except UnicodeDecodeError as error:
        raise MtError(f"glossary {path}: not UTF-8 (byte {error.start})") from None
    terms: dict[str, Term] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2:
            found = "no tab" if len(fields) == 1 else f"{len(fields)} fields"
            raise MtError(f"{path}:{number}: expected english<TAB>spanish, found {found}")
        problem = _problem(*fields, terms)
        if problem:
            raise MtError(f"{path}:{number}: {problem}")
        terms[_key(fields[0])] = Term(fields[0].strip(), fields[1].strip())
    if not terms:
        raise MtError(f"glossary {path}: no terms (expected english<TAB>spanish lines)")
    return Glossary(terms.values(), name or str(path))


def _problem(english: object, spanish: object, terms: dict[str, Term]) -> str | None:
    if not isinstance(english, str) or not isinstance(spanish, str):
        return "each side must be text"
    if not english.strip():
        return "the English term is empty"
    if not spanish.strip():
        return f"the Spanish term for {english.strip()!r} is empty"
    earlier = terms.get(_key(english))
    if earlier is not None and earlier.spanish != spanish.strip():
        return f"{english.strip()!r} is given twice, as {earlier.spanish!r} and {spanish.strip()!r}"
    return None


# ----- stand-ins ---------------------------------------------------------------------------------

Slots = tuple[tuple[str, str], ...]  # (stand-in, Spanish term in the source's case)


def _has(text: str, stand_in: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(stand_in)}(?!\w)", text) is not None


def place(text: str, glossary: Glossary, stand_ins: Sequence[str]) -> tuple[str, Slots, int]:
    """`text` with each glossary term replaced by a free stand-in (one per term), the slots, and
    the number of terms left as they are because no stand-in was free."""
    free = [s for s in stand_ins if not _has(text, s)]
    given: dict[str, str] = {}  # Spanish term as written here -> stand-in
    parts, end, unplaced = [], 0, 0
    for match, term in glossary.find(text):
        spanish = in_source_case(term, match.group())
        if spanish not in given and free:
            given[spanish] = free.pop(0)
        if spanish not in given:
            unplaced += 1
            continue
        parts += [text[end : match.start()], given[spanish]]
        end = match.end()
    parts.append(text[end:])
    return "".join(parts), tuple((s, spanish) for spanish, s in given.items()), unplaced


def in_source_case(term: Term, found: str) -> str:
    """The Spanish term in the source's case where the entry's does not explain it."""
    spanish = term.spanish
    letters = [c for c in found if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters) and not term.english.isupper():
        return spanish.upper()
    if found[:1].isupper() and not term.english[:1].isupper():
        return spanish[:1].upper() + spanish[1:]
    return spanish


def restore(
    text: str, slots: Slots, genders: Mapping[str, Gender] | None = None
) -> tuple[str, int]:
    """The output with each stand-in replaced by its Spanish term (a capital where it begins a
    sentence, the article before it agreeing: mt.text.agreement), and how many were missing."""
    lost = 0
    for stand_in, spanish in slots:
        pattern = re.compile(rf"(?<!\w){re.escape(stand_in)}(?!\w)")
        known = (genders or {}).get(spanish.lower()) or noun_gender(spanish)
        parts, end = [], 0
        for match in pattern.finditer(text):
            before = text[end : match.start()]
            parts.append(before if known is None else agree_before(before, *known))
            first = starts_sentence(text, match.start())
            parts.append(spanish[:1].upper() + spanish[1:] if first else spanish)
            end = match.end()
        lost += not parts
        text = "".join(parts) + text[end:]
    return text, lost


def with_terms(source: str, output: str, glossary: Glossary) -> str | None:
    """A translation made without the glossary, if it has every term's Spanish (any case or
    spacing), each written as the glossary writes it; None when a term is missing."""
    found = glossary.find(source)
    if not found:
        return None
    for match, term in found:
        spanish = in_source_case(term, match.group())
        pattern = _written_anywhere(spanish)
        if not pattern.search(output):
            if any(_written_anywhere(other).search(output) for other in term.also):
                continue  # the model chose another of the term's senses: its choice stays
            return None

        def written(hit: re.Match, spanish: str = spanish) -> str:
            if hit.group()[:1].isupper():
                return spanish[:1].upper() + spanish[1:]
            return spanish

        output = pattern.sub(written, output)
    return output


def _written_anywhere(spanish: str) -> re.Pattern[str]:
    """The Spanish as whole words, any case, any spacing between them."""
    words = [re.escape(word) for word in spanish.split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)", re.IGNORECASE)


def holds_all(text: str, slots: Slots) -> bool:
    """Whether an output holds every stand-in: the rule for choosing among hypotheses."""
    return all(_has(text, stand_in) for stand_in, _ in slots)


# ----- the fallback: translating around the terms ----------------------------------------------


def split_at_terms(text: str, glossary: Glossary) -> tuple[list[str], list[str]]:
    """The stretches of `text` between its terms (one more than the terms) and the terms' Spanish
    in the source's case, for a sentence whose stand-ins the model would not carry."""
    stretches, spanish, end = [], [], 0
    for match, term in glossary.find(text):
        stretches.append(text[end : match.start()])
        spanish.append(in_source_case(term, match.group()))
        end = match.end()
    stretches.append(text[end:])
    return stretches, spanish


_EDGES = re.compile(r"^(\W*)(.*?)(\W*)$", re.DOTALL)


def inner(stretch: str) -> str:
    """What the model translates of a stretch: letters to letters, its spacing and marks kept."""
    return _EDGES.match(stretch).group(2)  # type: ignore[union-attr]


def needs_translation(stretch: str) -> bool:
    """A stretch with a letter in it goes to the model; " - " or ". " stays as it is."""
    return any(c.isalpha() for c in stretch)


def join_around(stretches: list[str], translated: list[str], spanish: list[str]) -> str:
    """Each stretch with its inner part translated, the terms between them, in source order; a
    capital or final stop an inner part did not have is taken off its translation."""
    out = iter(translated)
    parts = []
    for index, stretch in enumerate(stretches):
        if needs_translation(stretch):
            before, core, after = _EDGES.match(stretch).groups()  # type: ignore[union-attr]
            text = next(out).strip()
            if core[:1].islower() and text[:1].isupper():
                text = text[:1].lower() + text[1:]
            if text[-1:] in ".!?" and core[-1:] not in ".!?":
                text = text[:-1]
            stretch = before + text + after
        parts.append(stretch)
        if index < len(spanish):
            parts.append(spanish[index])
    return "".join(parts).strip()
