"""Corpus files as rows of (English, Spanish) before cleaning: TSV (two columns, tabs only), CSV
with a header, or two line-aligned files, each line numbered so a bad one can be named."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np

from mt.data.readers.streams import (
    BOM,
    decode_lines,
    iter_blocks,
    iter_lines,
    nul_error,
    open_binary,
    peek_head,
    plain_suffix,
)
from mt.errors import MtError

CSV_COLUMNS = ("english", "spanish")


WHAT = "corpus file"


NOT_UTF8 = "not valid UTF-8"


BLANK = "blank line"


ONE_COLUMN = "one column: expected english<TAB>spanish"


CSV_ONE_COLUMN = "missing the spanish column"


@dataclass(frozen=True)
class BadLine:
    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path} line {self.line}: {self.reason}"


@dataclass
class Rows:
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


def file_rows(path: Path, *, chunk_lines: int) -> Iterator[Rows]:
    with open_binary(path, what=WHAT) as stream:
        head = _head(stream, path=path)
        if plain_suffix(path) == ".csv" or _is_csv_header(head):
            yield from _csv_rows(stream, path=path, chunk_lines=chunk_lines)
        else:
            yield from _tsv_file_rows(stream, path=path, chunk_lines=chunk_lines)


def _tsv_file_rows(stream: BinaryIO, *, path: Path, chunk_lines: int) -> Iterator[Rows]:
    # Tabs only: quotes are text here ("Hola", dijo.), so no csv quoting rules apply. A third
    # column (the attribution of newer exports) is ignored.
    first, name = 1, str(path)
    for block in iter_blocks(stream, path=path, max_lines=chunk_lines):
        rows = _two_column_rows(block, first=first, name=name)
        yield rows or _tsv_rows(decode_lines(block), first=first, name=name)
        first += block.count(b"\n")


def _two_column_rows(block: bytes, *, first: int, name: str) -> Rows | None:
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
    return Rows(len(ends), numbers, cells[0:-1:2], cells[1::2], [], None, name, name, name)


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


def _tsv_rows(lines: list[str | None], *, first: int, name: str) -> Rows:
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
    return Rows(len(lines), numbers, en, es, bad, raw, name, name, name)


def _csv_rows(stream: BinaryIO, *, path: Path, chunk_lines: int) -> Iterator[Rows]:
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


def _csv_batch(batch: list[tuple[int, list[str]]], *, columns: tuple[int, int], name: str) -> Rows:
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
    return Rows(len(batch), numbers, en, es, bad, None, name, name, name)


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


def pair_rows(source: Path, target: Path, *, chunk_lines: int) -> Iterator[Rows]:
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
) -> Rows:
    # Tabs are text here, collapsed to a space by cleaning.
    names = (str(paths[0]), str(paths[1]), f"{paths[0]} + {paths[1]}")
    if None not in en_lines and None not in es_lines:
        numbers = np.arange(first, first + len(en_lines), dtype=np.int64)
        return Rows(len(en_lines), numbers, en_lines, es_lines, [], None, *names)
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
    return Rows(len(en_lines), numbers, en, es, bad, None, *names)
