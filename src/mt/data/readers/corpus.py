"""Read a parallel corpus (TSV, CSV or two line-aligned files, plain or compressed) as a stream,
clean it and report bad lines. `stream_corpus` holds one chunk at a time, its work vectorised; a
bad line is reported with file and line and skipped, or stops the run with `strict=True`.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path

import numpy as np

from mt.data.prepare.paragraphs import Outcome, split_pairs
from mt.data.readers.corpus_rows import (
    BLANK,
    NOT_UTF8,
    BadLine,
    Rows,
    file_rows,
    pair_rows,
)
from mt.data.readers.translator_files import (
    is_translator_input,
    read_translator_file,
    translator_files,
)
from mt.errors import MtError
from mt.runtime.parallel import StreamWorkers
from mt.text.cleaning import STEPS, clean_text, clean_texts

PARTS = ("train", "selection", "test")
BAD_LINE_EXAMPLES = 1000
"""Bad lines kept as examples in a report; all of them are counted."""

EMPTY_ENGLISH = "empty English side"
EMPTY_SPANISH = "empty Spanish side"
IDENTICAL = "identical sides"
_CLEANING = tuple(name for name, _ in STEPS)


@dataclass(frozen=True)
class CorpusInput:
    """One corpus: a TSV/CSV file (`path`), or two line-aligned files (`source`, `target`)."""

    path: Path | None = None
    source: Path | None = None
    target: Path | None = None

    def __post_init__(self) -> None:
        one_file = self.path is not None and self.source is None and self.target is None
        two_files = self.path is None and self.source is not None and self.target is not None
        if not (one_file or two_files):
            raise MtError("a corpus is one TSV/CSV file, or a source file and a target file")

    @property
    def name(self) -> str:
        return str(self.path) if self.path is not None else f"{self.source} + {self.target}"


@dataclass(frozen=True)
class Filters:
    """Pairs to leave out although they are well-formed: counted in `CorpusReport.filtered`."""

    max_words: int = 0  # a side of more than this many words (0: no limit)
    max_ratio: float = 0.0  # one side more than this many times the words of the other, as
    # Moses clean-corpus-n (0: no limit)
    drop_identical: bool = False  # both sides the same text (untranslated copies)

    def __post_init__(self) -> None:
        if self.max_words < 0:
            raise MtError(f"the word limit must be 0 (none) or positive, got {self.max_words}")
        if self.max_ratio != 0 and not self.max_ratio >= 1:
            raise MtError(f"the length ratio must be 0 (none) or at least 1, got {self.max_ratio}")

    def masks(self, en: list[str], es: list[str]) -> list[tuple[str, np.ndarray]]:
        """For each filter that is on, in order, its reason and the pairs it leaves out (cleaned
        text, so words are exactly the single spaces plus one)."""
        masks: list[tuple[str, np.ndarray]] = []
        if self.max_words or self.max_ratio:
            en_words, es_words = _word_counts(en), _word_counts(es)
            longer, shorter = np.maximum(en_words, es_words), np.minimum(en_words, es_words)
        if self.max_words:
            masks.append((f"more than {self.max_words} words", longer > self.max_words))
        if self.max_ratio:
            masks.append(
                (f"length ratio over {self.max_ratio:g}", longer > self.max_ratio * shorter)
            )
        if self.drop_identical:
            masks.append((IDENTICAL, np.fromiter(map(operator.eq, en, es), bool, len(en))))
        return masks


def _word_counts(texts: list[str]) -> np.ndarray:
    return np.fromiter(map(str.count, texts, repeat(" ")), np.int64, len(texts)) + 1


@dataclass
class CorpusReport:
    """What reading and cleaning did, as counts. `bad_lines` keeps the first BAD_LINE_EXAMPLES;
    `bad_count` and `dropped` count every bad line. `pairs` counts the pairs that came through;
    a caller that de-duplicates moves its duplicates from `pairs` to `duplicates`."""

    path: str
    lines: int = 0
    dropped: dict[str, int] = field(default_factory=dict)
    nfc_changed: int = 0
    zero_width_removed: int = 0
    no_break_spaces_mapped: int = 0
    whitespace_collapsed: int = 0
    stripped: int = 0
    duplicates: int = 0
    pairs: int = 0
    filtered: dict[str, int] = field(default_factory=dict)
    bad_count: int = 0
    bad_lines: list[BadLine] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # translator files' unfinished entries
    files: list[dict[str, object]] = field(default_factory=list)  # each translator file's counts
    paragraphs: dict[str, int] = field(default_factory=dict)  # split into sentence pairs or not
    whole_paragraphs: list[tuple[str, str]] = field(default_factory=list)
    """The pairs kept whole, cleaned: prepare counts those `--max-length` leaves out."""

    def counts(self) -> dict[str, object]:
        """The report without the per-line list, for prepare.json; translator files (whose
        `lines` are entries) add what they left out and their per-file counts."""
        counts = {
            "lines": self.lines,
            "dropped": dict(self.dropped),
            **{name: getattr(self, name) for name in _CLEANING},
            "duplicates": self.duplicates,
            "filtered": dict(self.filtered),
            "pairs": self.pairs,
        }
        if self.skipped or self.files:
            counts["skipped"] = dict(sorted(self.skipped.items()))
        if self.files:
            counts["files"] = list(self.files)
        if self.paragraphs:
            counts["paragraphs"] = dict(self.paragraphs)
        return counts

    def merge(self, other: CorpusReport) -> None:
        """Add `other`'s counts (another corpus) into this report."""
        for name in ("lines", *_CLEANING, "duplicates", "pairs"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.bad_count += other.bad_count
        _add_counts(self.dropped, other.dropped)
        _add_counts(self.filtered, other.filtered)
        _add_counts(self.skipped, other.skipped)
        _add_counts(self.paragraphs, other.paragraphs)
        self._keep_examples(other.bad_lines)

    def add_bad_lines(self, bad: list[BadLine]) -> None:
        """Count every one of `bad`, keep the first as examples."""
        self.bad_count += len(bad)
        _add_counts(self.dropped, Counter(item.reason for item in bad))
        self._keep_examples(bad)

    def _keep_examples(self, bad: list[BadLine]) -> None:
        self.bad_lines += bad[: max(BAD_LINE_EXAMPLES - len(self.bad_lines), 0)]


def _add_counts(total: dict[str, int], counts: dict[str, int]) -> None:
    for reason, count in counts.items():
        total[reason] = total.get(reason, 0) + count


@dataclass
class Chunk:
    """Consecutive cleaned pairs of a corpus, never an empty side."""

    lines: np.ndarray  # int64 line numbers (1-based; in the file, or in both files)
    en: list[str]
    es: list[str]


@dataclass
class Corpus:
    """Cleaned, de-duplicated pairs in file order, with the report of how they were obtained."""

    pairs: list[tuple[str, str]]
    report: CorpusReport


def read_corpus(path: Path | CorpusInput, *, strict: bool = False) -> Corpus:
    """All pairs of a corpus in file order, exact duplicates removed (for held-out files and
    corpora that fit in memory)."""
    source = path if isinstance(path, CorpusInput) else CorpusInput(path=path)
    report = CorpusReport(path=source.name)
    unique: dict[tuple[str, str], None] = {}
    for chunk in stream_corpus(source, report, strict=strict):
        unique.update(dict.fromkeys(zip(chunk.en, chunk.es, strict=True)))
    report.duplicates = report.pairs - len(unique)
    report.pairs = len(unique)
    if not unique:
        raise MtError(f"{source.name}: no valid English-Spanish pair{report_summary(report)}")
    return Corpus(pairs=list(unique), report=report)


def stream_corpus(
    source: CorpusInput,
    report: CorpusReport,
    *,
    strict: bool = False,
    filters: Filters = Filters(),
    paragraphs: bool = False,
    chunk_lines: int = 100_000,
) -> Iterator[Chunk]:
    """The cleaned pairs of `source` in file order, not de-duplicated, in chunks of at least one
    pair from at most `chunk_lines` lines (fewer where a block of input ends). `report` counts
    lines, cleaning, bad lines and filtered pairs as it goes; a caller that removes duplicates
    moves them from `report.pairs` to `report.duplicates`. With `strict`, the first bad line
    raises (filtered pairs never do). With `paragraphs`, a pair whose sides have the same number
    of sentences becomes that many pairs, before cleaning and filters (paragraphs.py)."""
    if chunk_lines < 1:
        raise MtError(f"chunk_lines must be positive, got {chunk_lines}")
    if source.path is not None and is_translator_input(source.path):
        rows = _translator_rows(source.path, report)
    elif source.path is not None:
        rows = file_rows(source.path, chunk_lines=chunk_lines)
    else:
        rows = pair_rows(source.source, source.target, chunk_lines=chunk_lines)
    with StreamWorkers() as workers:
        for raw in rows:
            if paragraphs:
                raw = _split_paragraphs(raw, report, workers)
            chunk = _clean_rows(raw, report, strict=strict, filters=filters)
            if chunk.en:  # lines that were all bad or filtered still count in the report
                yield chunk


def _translator_rows(path: Path, report: CorpusReport) -> Iterator[Rows]:
    """The segments of each translator file (read whole: such files are small), numbered by the
    line of their entry; what a file left out is counted in `report`."""
    for file in translator_files(path):
        entries = read_translator_file(file)
        report.files.append(entries.counts())
        _add_counts(report.skipped, entries.skipped)
        segments, name = entries.segments, str(file)
        numbers = np.array([segment.line for segment in segments], dtype=np.int64)
        en, es = [segment.en for segment in segments], [segment.es for segment in segments]
        yield Rows(entries.entries, numbers, en, es, [], None, name, name, name)


def _split_paragraphs(rows: Rows, report: CorpusReport, workers: StreamWorkers) -> Rows:
    """Rows with each paragraph pair replaced by its sentence pairs, all on the paragraph's line;
    `report.paragraphs` counts what was split and what stayed whole. The sentence splitter is pure
    Python and most of `mt prepare --paragraphs`' time, so a long file's pairs are split over
    `workers`, with the result one process gives."""
    numbers: list[int] = []
    en: list[str] = []
    es: list[str] = []
    raw: list[str] | None = [] if rows.raw is not None else None
    counts: Counter[str] = Counter()
    splits = workers.map_chunks(split_pairs, list(zip(rows.en, rows.es, strict=True)))
    for index, (number, split) in enumerate(zip(rows.numbers.tolist(), splits, strict=True)):
        if split.outcome is Outcome.SPLIT:
            counts["split"] += 1
            counts["sentence_pairs"] += len(split.pairs)
        elif split.outcome is Outcome.WHOLE:
            counts["kept_whole"] += 1
            report.whole_paragraphs.append(
                (clean_text(split.pairs[0][0]), clean_text(split.pairs[0][1]))
            )
        numbers += [number] * len(split.pairs)
        en += [pair[0] for pair in split.pairs]
        es += [pair[1] for pair in split.pairs]
        if raw is not None and rows.raw is not None:
            raw += [rows.raw[index]] * len(split.pairs)
    _add_counts(report.paragraphs, counts)
    array = np.array(numbers, dtype=np.int64)
    return Rows(
        rows.lines, array, en, es, rows.bad, raw, rows.en_path, rows.es_path, rows.blank_path
    )


def _clean_rows(rows: Rows, report: CorpusReport, *, strict: bool, filters: Filters) -> Chunk:
    """`clean_text` on both sides (the cleaning `mt translate` applies to its input), then the
    lines left empty are bad and the filters apply. The report counts, for each cleaning step,
    the lines it changed on either side."""
    en, en_changes = clean_texts(rows.en)
    es, es_changes = clean_texts(rows.es)
    empty = _empty_sides(rows, en=en, es=es)
    blank = {index for index, bad in empty.items() if bad.reason == BLANK}
    for name in _CLEANING:
        changed = (en_changes[name] | es_changes[name]) - blank
        setattr(report, name, getattr(report, name) + len(changed))
    bad = sorted(rows.bad + list(empty.values()), key=lambda item: item.line)
    if strict and bad:
        raise MtError(f"{bad[0]} (drop --strict to skip bad lines)")
    report.lines += rows.lines
    report.add_bad_lines(bad)
    keep = np.ones(len(en), dtype=bool)
    keep[list(empty)] = False
    _apply_filters(filters, en=en, es=es, keep=keep, report=report)
    if keep.all():
        report.pairs += len(en)
        return Chunk(lines=rows.numbers, en=en, es=es)
    kept = np.flatnonzero(keep).tolist()
    report.pairs += len(kept)
    return Chunk(lines=rows.numbers[keep], en=[en[i] for i in kept], es=[es[i] for i in kept])


def _empty_sides(rows: Rows, *, en: list[str], es: list[str]) -> dict[int, BadLine]:
    """Candidates left with an empty side by cleaning; one reason each, English named first."""
    if "" not in en and "" not in es:
        return {}
    found = {}
    for index, (en_text, es_text) in enumerate(zip(en, es, strict=True)):
        if en_text and es_text:
            continue
        number = int(rows.numbers[index])
        if not en_text and not es_text and _is_blank(rows, index):
            found[index] = BadLine(rows.blank_path, number, BLANK)
        elif not en_text:
            found[index] = BadLine(rows.en_path, number, EMPTY_ENGLISH)
        else:
            found[index] = BadLine(rows.es_path, number, EMPTY_SPANISH)
    return found


def _is_blank(rows: Rows, index: int) -> bool:
    raw = rows.raw[index] if rows.raw is not None else rows.en[index] + rows.es[index]
    return not raw.strip()


def _apply_filters(
    filters: Filters, *, en: list[str], es: list[str], keep: np.ndarray, report: CorpusReport
) -> None:
    """Leave out the pairs the filters catch, each counted under the first reason it meets."""
    for reason, caught in filters.masks(en, es):
        caught &= keep
        if count := int(caught.sum()):
            report.filtered[reason] = report.filtered.get(reason, 0) + count
            keep &= ~caught


def report_summary(report: CorpusReport) -> str:
    """What was dropped and filtered, for the error of a corpus with no usable pair."""
    counts = {**report.dropped, **report.filtered}
    if not counts:
        return ""
    reasons = ", ".join(f"{count} {reason}" for reason, count in counts.items())
    hint = (
        "; convert it to UTF-8, e.g. `iconv -f latin1 -t utf-8`"
        if NOT_UTF8 in report.dropped
        else ""
    )
    return f" ({report.lines} lines: {reasons}){hint}"


def parse_split(text: str) -> tuple[float, float, float]:
    """Fractions for train/selection/test from "0.6,0.2,0.2"; they must be positive and sum to 1."""
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 3 or min(values) <= 0 or abs(sum(values) - 1.0) > 1e-6:
        raise MtError(f"--split must be three positive fractions summing to 1, got {text!r}")
    return values[0], values[1], values[2]
