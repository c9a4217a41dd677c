"""How the training English writes its words, for normalising casual input (mt.text.normalize).

The training English writes "Tom" capitalised and "I'm" with an apostrophe nearly every time,
and its sentences that begin "where is" end in "?": `mt prepare` counts this once over the
training part and writes it as words.tsv, tables a person can read:

    # training sentences: 71367
    word    first   later
    I'm     812     95
    Tom     3010    1500
    tom     0       0
    <blank line>
    start   sentences   questions   exclamations
    where is    120     118     0
    <blank line>
    pair    count
    <s> it's    310
    it's raining    12
    wagged its  2

`first` counts a spelling as a sentence's first word, `later` anywhere else (MIN_COUNT times or
more). `start` is a sentence's first one or two words in lower case, or a short sentence's first
word and length ("how #2"); a file without the exclamations column is read with none. `pair`
counts neighbouring words in lower case (`<s>`: a sentence's start), which tell what a casual
"its" or a slip meant; a file without them is refused.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import astuple, dataclass, field
from pathlib import Path
from types import MappingProxyType

from mt.errors import MtError
from mt.text.tables import count_field, count_part, counted_rows, table_lines, write_tables
from mt.text.words import WORD

MIN_COUNT = 2
"""Occurrences a spelling (or a start) needs to be kept in words.tsv: keeps the file small."""
SHORT_SENTENCE = 3
"""Words a sentence may have to be counted under its length too ("how #2" ends in "!")."""
MIN_PAIR = 3
"""Sentences a pair of neighbours without a word of REAL_WORDS needs to be kept."""
_SENTENCES = "# training sentences: "
_WORD_HEADER = "word\tfirst\tlater"
_START_HEADER = "start\tsentences\tquestions\texclamations"
_OLD_START_HEADER = "start\tsentences\tquestions"  # before the exclamations: still read
PAIR_HEADER = "pair\tcount"
_ROW = "text<TAB>count<TAB>count"  # the shape of the spellings' rows, for the error
_START_ROW = "text<TAB>count<TAB>count<TAB>count"
_PAIR_ROW = "text<TAB>count"
SENTENCE_START = "<s>"
REAL_WORDS = frozenset(("its", "were", "well", "ill", "id", "hell", "shell", "wed", "shed", "ones"))
"""Words that exist without the apostrophe their contraction has ("its", "it's"); a small corpus
may never use them, so they are named. Their neighbours are counted (`WordStats.pairs`)."""


@dataclass(frozen=True)
class Spelling:
    first: int  # as a sentence's first word
    later: int  # anywhere else


@dataclass(frozen=True)
class Start:
    sentences: int
    questions: int  # of those, ending in "?"
    exclamations: int = 0  # of those, ending in "!" (0 in a words.tsv written before they were)


@dataclass(frozen=True)
class WordStats:
    """Counts by spelling and by sentence start, and how many sentences they were counted on."""

    spellings: Mapping[str, Spelling]
    starts: Mapping[str, Start]
    sentences: int
    pairs: Mapping[str, int] = field(default_factory=dict)
    """"left right" in lower case -> count: pairs with a word of REAL_WORDS either way counted
    MIN_COUNT times, the others MIN_PAIR times (none in a file written before them)."""


NO_WORD_STATS = WordStats(MappingProxyType({}), MappingProxyType({}), 0)
"""What `mt upgrade` gives a run without words.tsv whose training data is gone."""


def words_of(text: str) -> list[str]:
    """The words as the counts see them: apostrophes inside all made '."""
    return WORD.findall(text.replace("’", "'"))


def start_keys(words: list[str]) -> list[str]:
    """The starts a sentence of `words` is counted under, the most telling last: its first
    word; the same in a sentence of that length, for a short one ("how #2": "How lovely!",
    "How weird!", where "how" starts questions); its first two."""
    lower = [word.lower() for word in words[:2]]
    length = [f"{lower[0]} #{len(words)}"] if 0 < len(words) <= SHORT_SENTENCE else []
    return lower[:1] + length + ([" ".join(lower)] if len(lower) == 2 else [])


def build_word_stats(sentences: Iterable[str]) -> WordStats:
    """Count the spellings and starts of English `sentences`."""
    first: Counter[str] = Counter()
    later: Counter[str] = Counter()
    starts: Counter[str] = Counter()
    questions: Counter[str] = Counter()
    exclamations: Counter[str] = Counter()
    pairs: Counter[str] = Counter()
    total = 0
    for sentence in sentences:
        total += 1
        words = words_of(sentence)
        if not words:
            continue
        first[words[0]] += 1
        later.update(words[1:])
        pairs.update(word_pairs(words))
        keys = start_keys(words)
        starts.update(keys)
        if sentence.rstrip().endswith("?"):
            questions.update(keys)
        elif sentence.rstrip().endswith("!"):
            exclamations.update(keys)
    kept = {w for w in first.keys() | later.keys() if first[w] + later[w] >= MIN_COUNT}
    return WordStats(
        spellings={w: Spelling(first[w], later[w]) for w in sorted(kept)},
        starts={
            s: Start(n, questions[s], exclamations[s])
            for s, n in sorted(starts.items())
            if n >= MIN_COUNT
        },
        sentences=total,
        pairs={
            p: n
            for p, n in sorted(pairs.items())
            if n >= MIN_PAIR or (n >= MIN_COUNT and _holds_real_word(p))
        },
    )


def word_pairs(words: list[str]) -> list[str]:
    """The neighbouring pairs of a sentence's `words` ("<s>" before the first), in lower case."""
    lower = [SENTENCE_START] + [word.lower() for word in words]
    return [f"{left} {right}" for left, right in itertools.pairwise(lower)]


def _holds_real_word(pair: str) -> bool:
    return any(word.replace("'", "") in REAL_WORDS for word in pair.split(" "))


def word_stats_of_part(
    path: Path,
    *,
    advance: Callable[[int], None] = lambda pairs: None,
    machine_made: Callable[[str], bool] = lambda english: False,
) -> WordStats:
    """The word statistics of a prepared part's TSV (english<TAB>spanish), streamed: each
    distinct sentence once (a part repeats a small source's lines), and none `machine_made`
    (a back-translation's English: Apertium's capitalised "Food")."""
    return count_part(
        path,
        lambda pairs: build_word_stats(_distinct(e for e, _ in pairs if not machine_made(e))),
        advance,
    )


def _distinct(sentences: Iterable[str]) -> Iterator[str]:
    """Each sentence the first time it comes; those seen are kept as hashes."""
    seen: set[int] = set()
    for sentence in sentences:
        if (key := hash(sentence)) not in seen:
            seen.add(key)
            yield sentence


def write_word_stats(path: Path, stats: WordStats) -> None:
    """words.tsv, written atomically: the sentence count, then its tables, a blank line apart."""
    tables = [
        (_WORD_HEADER, {word: astuple(spelling) for word, spelling in stats.spellings.items()}),
        (_START_HEADER, {start: astuple(counts) for start, counts in stats.starts.items()}),
        (PAIR_HEADER, {pair: (count,) for pair, count in stats.pairs.items()}),
    ]
    write_tables(path, f"{_SENTENCES}{stats.sentences}", tables)


def read_word_stats(path: Path) -> WordStats:
    """words.tsv read back; anything unexpected is one MtError naming the file and line."""
    lines = table_lines(path)
    if len(lines) < 2 or not lines[0].startswith(_SENTENCES) or lines[1] != _WORD_HEADER:
        raise MtError(f"{path}: not word statistics written by `mt prepare`; run it again")
    blank = lines.index("", 2) if "" in lines[2:] else len(lines)
    start_header = lines[blank + 1] if blank + 1 < len(lines) else ""
    if start_header not in (_START_HEADER, _OLD_START_HEADER):
        raise MtError(f"{path}: the table of sentence starts is missing; run `mt prepare` again")
    if PAIR_HEADER not in lines[blank:]:
        raise MtError(f"{path}: no table of word pairs; run `mt prepare` again with this mt")
    paired = lines.index(PAIR_HEADER, blank)
    spellings = dict(counted_rows(path, lines, 2, blank, shape=_ROW))
    shape = _START_ROW if start_header == _START_HEADER else _ROW
    starts = dict(counted_rows(path, lines, blank + 2, paired, shape=shape))
    pairs = dict(counted_rows(path, lines, paired + 1, len(lines), shape=_PAIR_ROW))
    return WordStats(
        spellings={word: Spelling(*counts) for word, counts in spellings.items()},
        starts={start: Start(*counts) for start, counts in starts.items()},
        sentences=count_field(path, 1, lines[0].removeprefix(_SENTENCES)),
        pairs={pair: counts[0] for pair, counts in pairs.items()},
    )
