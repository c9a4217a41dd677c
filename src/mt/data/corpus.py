"""Read a parallel corpus (TSV, CSV or two line-aligned files, plain or compressed) as a stream,
clean it and report bad lines (the split by English sentence is prepare's, on hashes).

`stream_corpus` never holds more than one chunk of lines, so a web corpus of many millions of
pairs streams through in bounded memory; per-chunk work is vectorised (a scan of the joined text
finds the few lines that need cleaning). A bad line is reported with its file and line number and
skipped, or, with `strict=True`, stops the run. `read_corpus` collects a whole (small) corpus.
"""

from __future__ import annotations

import csv
import io
import operator
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import BinaryIO

import numpy as np

from mt.data.paragraphs import Outcome, split_pair
from mt.data.streams import (
    BOM,
    decode_lines,
    iter_blocks,
    iter_lines,
    nul_error,
    open_binary,
    peek_head,
    plain_suffix,
)
from mt.data.textclean import STEPS, clean_text, clean_texts
from mt.data.translator_files import is_translator_input, read_translator_file, translator_files
from mt.errors import MtError

PARTS = ("train", "selection", "test")
CSV_COLUMNS = ("english", "spanish")
BAD_LINE_EXAMPLES = 1000
"""Bad lines kept as examples in a report; all of them are counted."""
WHAT = "corpus file"

NOT_UTF8 = "not valid UTF-8"
BLANK = "blank line"
ONE_COLUMN = "one column: expected english<TAB>spanish"
CSV_ONE_COLUMN = "missing the spanish column"
EMPTY_ENGLISH = "empty English side"
EMPTY_SPANISH = "empty Spanish side"
IDENTICAL = "identical sides"
_CLEANING = tuple(name for name, _ in STEPS)


@dataclass(frozen=True)
class BadLine:
    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path} line {self.line}: {self.reason}"


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
        rows = _file_rows(source.path, chunk_lines=chunk_lines)
    else:
        rows = _pair_rows(source.source, source.target, chunk_lines=chunk_lines)
    for raw in rows:
        if paragraphs:
            raw = _split_paragraphs(raw, report)
        chunk = _clean_rows(raw, report, strict=strict, filters=filters)
        if chunk.en:  # lines that were all bad or filtered still count in the report
            yield chunk


@dataclass
class _Rows:
    """Some consecutive lines split into sides, before cleaning."""

    lines: int  # every line these rows cover, bad ones included
    numbers: np.ndarray  # line number of each candidate pair
    en: list[str]
    es: list[str]
    bad: list[BadLine]
    raw: list[str] | None  # each candidate's whole line, to tell a blank one (None: en + es)
    en_path: str
    es_path: str
    blank_path: str


def _file_rows(path: Path, *, chunk_lines: int) -> Iterator[_Rows]:
    with open_binary(path, what=WHAT) as stream:
        head = _head(stream, path=path)
        if plain_suffix(path) == ".csv" or _is_csv_header(head):
            yield from _csv_rows(stream, path=path, chunk_lines=chunk_lines)
        else:
            yield from _tsv_file_rows(stream, path=path, chunk_lines=chunk_lines)


def _tsv_file_rows(stream: BinaryIO, *, path: Path, chunk_lines: int) -> Iterator[_Rows]:
    # Tabs only: quotes are text here ("Hola", dijo.), so no csv quoting rules apply. A third
    # column (the attribution of newer exports) is ignored.
    first, name = 1, str(path)
    for block in iter_blocks(stream, path=path, max_lines=chunk_lines):
        rows = _two_column_rows(block, first=first, name=name)
        yield rows or _tsv_rows(decode_lines(block), first=first, name=name)
        first += block.count(b"\n")


def _two_column_rows(block: bytes, *, first: int, name: str) -> _Rows | None:
    """The usual case, where every line is UTF-8 with exactly one tab (checked with array
    operations, then one split of the whole block); None otherwise."""
    codes = np.frombuffer(block, dtype=np.uint8)
    tabs, ends = np.flatnonzero(codes == ord("\t")), np.flatnonzero(codes == ord("\n"))
    if len(tabs) != len(ends) or (tabs > ends).any() or (tabs[1:] < ends[:-1]).any():
        return None
    try:
        cells = block.decode("utf-8").replace("\t", "\n").split("\n")
    except UnicodeDecodeError:
        return None
    numbers = np.arange(first, first + len(ends), dtype=np.int64)
    return _Rows(len(ends), numbers, cells[0:-1:2], cells[1::2], [], None, name, name, name)


def _translator_rows(path: Path, report: CorpusReport) -> Iterator[_Rows]:
    """The segments of each translator file (read whole: such files are small), numbered by the
    line of their entry; what a file left out is counted in `report`."""
    for file in translator_files(path):
        entries = read_translator_file(file)
        report.files.append(entries.counts())
        _add_counts(report.skipped, entries.skipped)
        segments, name = entries.segments, str(file)
        numbers = np.array([segment.line for segment in segments], dtype=np.int64)
        en, es = [segment.en for segment in segments], [segment.es for segment in segments]
        yield _Rows(entries.entries, numbers, en, es, [], None, name, name, name)


def _split_paragraphs(rows: _Rows, report: CorpusReport) -> _Rows:
    """Rows with each paragraph pair replaced by its sentence pairs, all on the paragraph's line;
    `report.paragraphs` counts what was split and what stayed whole."""
    numbers: list[int] = []
    en: list[str] = []
    es: list[str] = []
    raw: list[str] | None = [] if rows.raw is not None else None
    counts: Counter[str] = Counter()
    for index, number in enumerate(rows.numbers.tolist()):
        split = split_pair(rows.en[index], rows.es[index])
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
    return _Rows(
        rows.lines, array, en, es, rows.bad, raw, rows.en_path, rows.es_path, rows.blank_path
    )


def _head(stream: BinaryIO, *, path: Path) -> bytes:
    """The first bytes of the file (left in `stream`), which must hold more than whitespace."""
    head, whole = peek_head(stream)
    head = head.removeprefix(BOM)
    if whole and not head.strip():
        raise MtError(f"{path} is empty")
    return head


def _is_csv_header(head: bytes) -> bool:
    header = head.split(b"\n", 1)[0].strip().lower()
    return b"\t" not in header and b"english" in header and b"spanish" in header


def _tsv_rows(lines: list[str | None], *, first: int, name: str) -> _Rows:
    """Lines of a block that is not all two-column UTF-8, one by one."""
    kept: list[int] = []
    en, es, raw, bad = [], [], [], []
    for number, line in enumerate(lines, first):
        if line is None:
            bad.append(BadLine(name, number, NOT_UTF8))
            continue
        columns = line.split("\t", 2)
        if len(columns) < 2:
            bad.append(BadLine(name, number, ONE_COLUMN if line.strip() else BLANK))
            continue
        kept.append(number)
        en.append(columns[0])
        es.append(columns[1])
        raw.append(line)
    numbers = np.array(kept, dtype=np.int64)
    return _Rows(len(lines), numbers, en, es, bad, raw, name, name, name)


def _csv_rows(stream: BinaryIO, *, path: Path, chunk_lines: int) -> Iterator[_Rows]:
    # The csv module, not pd.read_csv: it tells the line number of every record.
    reader = csv.reader(io.TextIOWrapper(stream, encoding="utf-8-sig", newline=""))
    records = _csv_records(reader, path=path)
    columns = _csv_header(str(path), next(records, (1, []))[1])
    batch = []
    for record in records:
        batch.append(record)
        if len(batch) == chunk_lines:
            yield _csv_batch(batch, columns=columns, name=str(path))
            batch = []
    if batch:
        yield _csv_batch(batch, columns=columns, name=str(path))


def _csv_records(reader: Iterator[list[str]], *, path: Path) -> Iterator[tuple[int, list[str]]]:
    """(first line, cells) of each record; what cannot be read stops with its line."""
    start = 1
    try:
        for row in reader:
            if "\x00" in "".join(row):
                raise nul_error(path, line=_first_line(path, lambda raw: b"\x00" in raw))
            yield start, row
            start = reader.line_num + 1  # type: ignore[attr-defined]
    except csv.Error as error:
        line = reader.line_num  # type: ignore[attr-defined]
        raise MtError(f"{path} line {line}: cannot read CSV: {error}") from None
    except UnicodeDecodeError:
        line = _first_line(path, lambda raw: not _is_utf8(raw))
        raise MtError(f"{path} line {line}: {NOT_UTF8} (CSV files must be UTF-8)") from None


def _csv_batch(batch: list[tuple[int, list[str]]], *, columns: tuple[int, int], name: str) -> _Rows:
    kept: list[int] = []
    en, es, bad = [], [], []
    for start, row in batch:
        if not any(cell.strip() for cell in row):
            bad.append(BadLine(name, start, BLANK))
        elif len(row) <= max(columns):
            bad.append(BadLine(name, start, CSV_ONE_COLUMN))
        else:
            kept.append(start)
            en.append(row[columns[0]])
            es.append(row[columns[1]])
    numbers = np.array(kept, dtype=np.int64)
    return _Rows(len(batch), numbers, en, es, bad, None, name, name, name)


def _csv_header(name: str, row: list[str]) -> tuple[int, int]:
    """Where the english and spanish columns are."""
    header = [column.strip().lower() for column in row]
    if not set(CSV_COLUMNS) <= set(header):
        raise MtError(
            f"{name} line 1: CSV header must have columns {','.join(CSV_COLUMNS)}, "
            f"found {','.join(header)!r}"
        )
    return header.index("english"), header.index("spanish")


def _first_line(path: Path, test: Callable[[bytes], bool]) -> int:
    """The number of the first line that passes `test` (a rare error's line: a second read)."""
    with open_binary(path, what=WHAT) as stream:
        return next((number for number, raw in enumerate(stream, 1) if test(raw)), 0)


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _pair_rows(source: Path, target: Path, *, chunk_lines: int) -> Iterator[_Rows]:
    """The lines of two line-aligned files, read in step."""
    with open_binary(source, what=WHAT) as en_stream, open_binary(target, what=WHAT) as es_stream:
        _head(en_stream, path=source)
        _head(es_stream, path=target)
        en_batches = iter_lines(en_stream, path=source, batch_lines=chunk_lines)
        es_batches = iter_lines(es_stream, path=target, batch_lines=chunk_lines)
        en_lines: list[str | None] = []
        es_lines: list[str | None] = []
        first, paths = 1, (source, target)
        while True:
            en_lines = en_lines or next(en_batches, [])
            es_lines = es_lines or next(es_batches, [])
            size = min(len(en_lines), len(es_lines))
            if not size:
                break
            yield _aligned_rows(en_lines[:size], es_lines[:size], first=first, paths=paths)
            first += size
            del en_lines[:size], es_lines[:size]
        if en_lines or es_lines:
            n = first - 1 + len(en_lines) + sum(map(len, en_batches))
            m = first - 1 + len(es_lines) + sum(map(len, es_batches))
            raise MtError(
                f"{source} has {n:,} lines but {target} has {m:,}: "
                "the two files must be line-aligned"
            )


def _aligned_rows(
    en_lines: list[str | None], es_lines: list[str | None], *, first: int, paths: tuple[Path, Path]
) -> _Rows:
    # Tabs are text here, collapsed to a space by cleaning.
    names = (str(paths[0]), str(paths[1]), f"{paths[0]} + {paths[1]}")
    if None not in en_lines and None not in es_lines:
        numbers = np.arange(first, first + len(en_lines), dtype=np.int64)
        return _Rows(len(en_lines), numbers, en_lines, es_lines, [], None, *names)
    kept: list[int] = []
    en, es, bad = [], [], []
    for number, (en_line, es_line) in enumerate(zip(en_lines, es_lines, strict=True), first):
        if en_line is None or es_line is None:
            bad.append(BadLine(names[0] if en_line is None else names[1], number, NOT_UTF8))
        else:
            kept.append(number)
            en.append(en_line)
            es.append(es_line)
    numbers = np.array(kept, dtype=np.int64)
    return _Rows(len(en_lines), numbers, en, es, bad, None, *names)


def _clean_rows(rows: _Rows, report: CorpusReport, *, strict: bool, filters: Filters) -> Chunk:
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


def _empty_sides(rows: _Rows, *, en: list[str], es: list[str]) -> dict[int, BadLine]:
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


def _is_blank(rows: _Rows, index: int) -> bool:
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
