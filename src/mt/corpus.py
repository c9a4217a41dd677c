"""Read a parallel corpus (TSV or CSV), clean it, report bad lines and split it by English sentence.

All cleaning is vectorised with pandas string operations so the 119k-line corpus reads, cleans
and splits in about a second. A bad line is reported with its file and line number and skipped,
or, with `strict=True`, stops the run.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mt.errors import MtError
from mt.files import read_text_file
from mt.textclean import clean_texts

DEFAULT_SPLIT = (0.6, 0.2, 0.2)
DEFAULT_SEED = 0
PARTS = ("train", "selection", "test")
CSV_COLUMNS = ("english", "spanish")

NOT_UTF8 = "not valid UTF-8"
BLANK = "blank line"
ONE_COLUMN = "one column: expected english<TAB>spanish"
CSV_ONE_COLUMN = "missing the spanish column"
EMPTY_ENGLISH = "empty English side"
EMPTY_SPANISH = "empty Spanish side"


@dataclass(frozen=True)
class BadLine:
    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path} line {self.line}: {self.reason}"


@dataclass
class CorpusReport:
    """What reading and cleaning did, as counts; `bad_lines` holds every skipped line."""

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
    bad_lines: list[BadLine] = field(default_factory=list)

    def counts(self) -> dict[str, object]:
        """The report without the per-line list, for prepare.json."""
        return {
            "lines": self.lines,
            "dropped": dict(self.dropped),
            "nfc_changed": self.nfc_changed,
            "zero_width_removed": self.zero_width_removed,
            "no_break_spaces_mapped": self.no_break_spaces_mapped,
            "whitespace_collapsed": self.whitespace_collapsed,
            "stripped": self.stripped,
            "duplicates": self.duplicates,
            "pairs": self.pairs,
        }


@dataclass
class Corpus:
    """Cleaned, de-duplicated pairs in file order, with the report of how they were obtained."""

    pairs: list[tuple[str, str]]
    report: CorpusReport


@dataclass
class Split:
    """The three parts; every English sentence (with all its translations) is in exactly one."""

    train: list[tuple[str, str]]
    selection: list[tuple[str, str]]
    test: list[tuple[str, str]]
    excluded: int = 0  # training pairs removed because their English is in --selection/--test

    def parts(self) -> dict[str, list[tuple[str, str]]]:
        return {"train": self.train, "selection": self.selection, "test": self.test}


def read_corpus(path: Path, *, strict: bool = False) -> Corpus:
    """Read `english<TAB>spanish[<TAB>ignored]` lines, or a CSV with english,spanish columns."""
    data = _read_bytes(path)
    name = str(path)
    if _is_csv(path, data):
        frame, bad = _csv_frame(name, data)
    else:
        frame, bad = _tsv_frame(data)
    report = CorpusReport(path=name, lines=len(frame) + len(bad))
    frame = _clean(frame, report)
    bad += _empty_sides(frame)
    bad.sort(key=lambda item: item[0])
    if strict and bad:
        line, reason = bad[0]
        raise MtError(f"{name} line {line}: {reason} (drop --strict to skip bad lines)")
    bad_lines = {line for line, _ in bad}
    frame = frame[~frame["line"].isin(list(bad_lines))]
    duplicated = frame.duplicated(subset=["en", "es"])
    report.duplicates = int(duplicated.sum())
    frame = frame[~duplicated]
    report.bad_lines = [BadLine(name, line, reason) for line, reason in bad]
    report.dropped = dict(Counter(reason for _, reason in bad))
    report.pairs = len(frame)
    if frame.empty:
        raise MtError(f"{name}: no valid English-Spanish pair{_summary(report)}")
    return Corpus(pairs=list(zip(frame["en"], frame["es"], strict=True)), report=report)


def _read_bytes(path: Path) -> bytes:
    archives = {
        b"PK\x03\x04": f"is a zip archive; extract it with `mt download --source {path}`",
        b"\x1f\x8b": "is gzip-compressed; unpack it with `gunzip` first",
    }
    return read_text_file(path, what="corpus file", known_binaries=archives)


def _is_csv(path: Path, data: bytes) -> bool:
    if path.suffix.lower() == ".csv":
        return True
    header = data.split(b"\n", 1)[0].strip().lower()
    return b"\t" not in header and b"english" in header and b"spanish" in header


def _decode_lines(data: bytes) -> list[str | None]:
    """Lines of the file (CR of CRLF removed); None for a line that is not UTF-8."""
    try:
        lines: list[str | None] = list(data.decode("utf-8").split("\n"))
    except UnicodeDecodeError:
        lines = []
        for raw in data.split(b"\n"):
            try:
                lines.append(raw.decode("utf-8"))
            except UnicodeDecodeError:
                lines.append(None)
    if lines and lines[-1] == "":
        lines.pop()  # the final newline ends the last line, it does not start another
    return [None if line is None else line.removesuffix("\r") for line in lines]


def _tsv_frame(data: bytes) -> tuple[pd.DataFrame, list[tuple[int, str]]]:
    # Tabs only: quotes are text here ("Hola", dijo.), so no csv quoting rules apply.
    lines = pd.Series(_decode_lines(data), dtype=object)
    numbers = np.arange(1, len(lines) + 1)
    undecodable = lines.isna().to_numpy()
    text = lines.fillna("")
    blank = (text.str.strip() == "").to_numpy() & ~undecodable
    # A third column (the attribution of newer exports) is ignored.
    columns = text.str.split("\t", n=2, expand=True).reindex(columns=[0, 1])
    one_column = columns[1].isna().to_numpy() & ~blank & ~undecodable
    bad = (
        [(int(n), NOT_UTF8) for n in numbers[undecodable]]
        + [(int(n), BLANK) for n in numbers[blank]]
        + [(int(n), ONE_COLUMN) for n in numbers[one_column]]
    )
    good = ~(undecodable | blank | one_column)
    frame = pd.DataFrame(
        {"line": numbers[good], "en": columns[0][good].array, "es": columns[1][good].array}
    )
    return frame, bad


def _csv_frame(name: str, data: bytes) -> tuple[pd.DataFrame, list[tuple[int, str]]]:
    # The csv module, not pd.read_csv: it tells the line number of every record.
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise MtError(f"{name} line {line}: {NOT_UTF8} (CSV files must be UTF-8)") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = [column.strip().lower() for column in next(reader)]
        if not set(CSV_COLUMNS) <= set(header):
            raise MtError(
                f"{name} line 1: CSV header must have columns {','.join(CSV_COLUMNS)}, "
                f"found {','.join(header)!r}"
            )
        en_at, es_at = header.index("english"), header.index("spanish")
        numbers: list[int] = []
        english: list[str] = []
        spanish: list[str] = []
        bad: list[tuple[int, str]] = []
        start = reader.line_num + 1
        for row in reader:
            if not any(cell.strip() for cell in row):
                bad.append((start, BLANK))
            elif len(row) <= max(en_at, es_at):
                bad.append((start, CSV_ONE_COLUMN))
            else:
                numbers.append(start)
                english.append(row[en_at])
                spanish.append(row[es_at])
            start = reader.line_num + 1
    except csv.Error as error:
        raise MtError(f"{name} line {reader.line_num}: cannot read CSV: {error}") from None
    frame = pd.DataFrame({"line": numbers, "en": english, "es": spanish}, dtype=object)
    return frame, bad


def _clean(frame: pd.DataFrame, report: CorpusReport) -> pd.DataFrame:
    """`clean_text` on both sides (the cleaning `mt translate` applies to its input); the report
    counts, for each step, the lines it changed on either side."""
    en, en_changes = clean_texts(frame["en"].tolist())
    es, es_changes = clean_texts(frame["es"].tolist())
    for name in en_changes:
        setattr(report, name, len(en_changes[name] | es_changes[name]))
    return pd.DataFrame(
        {
            "line": frame["line"],
            "en": pd.Series(en, index=frame.index, dtype=object),
            "es": pd.Series(es, index=frame.index, dtype=object),
        }
    )


def _empty_sides(frame: pd.DataFrame) -> list[tuple[int, str]]:
    """One reason per line: an empty English side is named first."""
    lines = frame["line"].to_numpy()
    no_english = (frame["en"] == "").to_numpy()
    no_spanish = (frame["es"] == "").to_numpy() & ~no_english
    return [(int(n), EMPTY_ENGLISH) for n in lines[no_english]] + [
        (int(n), EMPTY_SPANISH) for n in lines[no_spanish]
    ]


def _summary(report: CorpusReport) -> str:
    if not report.dropped:
        return ""
    reasons = ", ".join(f"{count} {reason}" for reason, count in report.dropped.items())
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


def split_corpus(
    corpus: Corpus,
    *,
    fractions: tuple[float, float, float] = DEFAULT_SPLIT,
    seed: int = DEFAULT_SEED,
) -> Split:
    """Shuffle the distinct English sentences with `seed` and cut them by `fractions`."""
    english = pd.Series([en for en, _ in corpus.pairs], dtype=object)
    codes, uniques = pd.factorize(english)
    groups = len(uniques)
    n_selection = round(fractions[1] * groups)
    n_test = round(fractions[2] * groups)
    n_train = groups - n_selection - n_test
    if min(n_train, n_selection, n_test) <= 0:
        raise MtError(
            f"{corpus.report.path}: too small to split: {groups} distinct English sentences "
            f"give {n_train}/{n_selection}/{n_test} for train/selection/test; "
            "add pairs or give --selection and --test files"
        )
    part_of_group = np.zeros(groups, dtype=np.int8)
    order = np.random.default_rng(seed).permutation(groups)
    part_of_group[order[n_train : n_train + n_selection]] = 1
    part_of_group[order[n_train + n_selection :]] = 2
    part = part_of_group[codes]
    # Within a part, pairs stay in file order.
    chosen = [
        [pair for pair, p in zip(corpus.pairs, part, strict=True) if p == k] for k in range(3)
    ]
    return Split(train=chosen[0], selection=chosen[1], test=chosen[2])


def split_by_files(corpus: Corpus, *, selection: Corpus, test: Corpus) -> Split:
    """Train on every pair whose English sentence is in neither held-out file."""
    held_out = {en for en, _ in selection.pairs} | {en for en, _ in test.pairs}
    train = [pair for pair in corpus.pairs if pair[0] not in held_out]
    if not train:
        raise MtError(
            f"{corpus.report.path}: no training pair left: every English sentence is in "
            "the --selection or --test file"
        )
    return Split(
        train=train,
        selection=selection.pairs,
        test=test.pairs,
        excluded=len(corpus.pairs) - len(train),
    )
