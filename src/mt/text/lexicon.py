"""What the training part says about each capitalised English word: a name, or an ordinary word.

A stand-in (mt.decode.placeholders) is right for a name, wrong for "Allow" or "Thursday". The
training pairs tell them apart: a name is copied into its Spanish ("Kowalski"), an ordinary word
is translated ("jueves") and appears in lower case too. `mt prepare` counts this over the
training part as lexicon.tsv (copied beside the model; mt.text.names decides with it):

    word    capitalised copied  lower
    Allow   12  0   340
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import astuple, dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from mt.errors import MtError
from mt.text.tables import count_field, count_part, counted_rows, table_lines, write_tables
from mt.text.words import ANY_WORD

CAPITALISED = r"(?<![\w'’-])[A-Z][a-z]+(?:[A-Z][a-z]+)?(?![\w-])"  # Kowalski, McDonald
"""A capitalised word as the stand-ins see it; the lexicon counts exactly these words."""
_CAPITALISED = re.compile(CAPITALISED)
_LOWER = re.compile(r"(?<![\w'’-])[a-z]+(?![\w-])")
_HEADER = "word\tcapitalised\tcopied\tlower"
_PAIRS = "# training pairs: "
_ROW = "word<TAB>capitalised<TAB>copied<TAB>lower"  # what a malformed row is told it should be


MIN_EVIDENCE = 3
"""Training pairs that must hold a capitalised word before its copied share is trusted."""
MIN_LOWER = 2
"""Training pairs that must hold a word's lower-case form for it to count as a known word; the
lexicon keeps lower-case words seen less often out of the file."""


@dataclass(frozen=True)
class WordCounts:
    """Training pairs whose English holds the capitalised word, those whose Spanish copies it too,
    and pairs whose English holds its lower-case form."""

    capitalised: int
    copied: int
    lower: int


@dataclass(frozen=True)
class Lexicon:
    """Counts by capitalised word, and how many training pairs they were counted on."""

    words: Mapping[str, WordCounts]
    pairs: int

    def get(self, word: str) -> WordCounts | None:
        return self.words.get(word)

    def copied_share(self, word: str) -> float | None:
        """The share of pairs holding `word` whose Spanish copies it; None with too few to tell."""
        counts = self.words.get(word)
        if counts is None or counts.capitalised < MIN_EVIDENCE:
            return None
        return counts.copied / counts.capitalised

    def known_lower(self, word: str) -> bool:
        """Whether the training English uses `word` in lower case, as an ordinary word."""
        counts = self.words.get(word)
        return counts is not None and counts.lower >= MIN_LOWER


NO_LEXICON = Lexicon(words=MappingProxyType({}), pairs=0)
"""No lexicon (the list of ordinary words and the vocabulary then decide alone: mt.text.names)."""


def build_lexicon(pairs: Iterable[tuple[str, str]]) -> Lexicon:
    """Count every capitalised word of the English side of `pairs` (a lower-case word of MIN_LOWER
    pairs or more under its capitalised form); a pair equal to the one before counts once (a
    repeated quiz question on "Happy Days" made "Happy" a name)."""
    capitalised: Counter[str] = Counter()
    copied: Counter[str] = Counter()
    lower: Counter[str] = Counter()
    total = 0
    previous: tuple[str, str] | None = None
    for pair in pairs:
        if pair == previous:
            continue
        previous = pair
        english, spanish = pair
        total += 1
        words = set(_CAPITALISED.findall(english))
        capitalised.update(words)
        if words:
            copied.update(words & set(ANY_WORD.findall(spanish)))
        lower.update(set(_LOWER.findall(english)))
    known = {word.capitalize() for word, count in lower.items() if count >= MIN_LOWER}
    words = {
        word: WordCounts(capitalised[word], copied[word], lower[word.lower()])
        for word in sorted(capitalised.keys() | known)
    }
    return Lexicon(words=words, pairs=total)


def lexicon_of_part(path: Path, *, advance: Callable[[int], None] = lambda pairs: None) -> Lexicon:
    """The lexicon of a prepared part's TSV, streamed; `advance` hears of every CHUNK pairs."""
    return count_part(path, build_lexicon, advance)


def write_lexicon(path: Path, lexicon: Lexicon) -> None:
    """lexicon.tsv, written atomically: the pair count, the columns, one word a line, sorted."""
    rows = {word: astuple(counts) for word, counts in lexicon.words.items()}
    write_tables(path, f"{_PAIRS}{lexicon.pairs}", [(_HEADER, rows)])


def read_lexicon(path: Path) -> Lexicon:
    """lexicon.tsv read back; anything unexpected is one MtError naming the file and line."""
    lines = table_lines(path)
    if len(lines) < 2 or not lines[0].startswith(_PAIRS) or lines[1] != _HEADER:
        raise MtError(f"{path}: not a lexicon written by `mt prepare`; run `mt prepare` again")
    rows = counted_rows(path, lines, 2, len(lines), shape=_ROW)
    words = {word: WordCounts(*counts) for word, counts in rows}
    return Lexicon(words=words, pairs=count_field(path, 1, lines[0].removeprefix(_PAIRS)))


def lexicon_to_json(lexicon: Lexicon) -> dict[str, object]:
    """The lexicon as JSON: its words joined by newlines, their counts one flat list (fast)."""
    words = lexicon.words
    counts = [n for c in words.values() for n in (c.capitalised, c.copied, c.lower)]
    return {"pairs": lexicon.pairs, "words": "\n".join(words), "counts": counts}


def lexicon_from_json(data: dict[str, Any]) -> Lexicon:
    words = data["words"].split("\n") if data["counts"] else []
    return Lexicon(words=_CountRows(words, data["counts"]), pairs=int(data["pairs"]))


class _CountRows(Mapping[str, WordCounts]):
    """Rows read back from JSON, each made a WordCounts only when asked for (a fast start-up)."""

    def __init__(self, words: list[str], counts: list[int]) -> None:
        if len(counts) != 3 * len(words):
            raise ValueError(f"{len(words)} words but {len(counts)} counts")
        self._row = dict(zip(words, range(0, len(counts), 3), strict=True))
        self._counts = counts

    def __getitem__(self, word: str) -> WordCounts:
        at = self._row[word]
        return WordCounts(*self._counts[at : at + 3])

    def __iter__(self) -> Iterator[str]:
        return iter(self._row)

    def __len__(self) -> int:
        return len(self._row)
