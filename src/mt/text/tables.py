"""The small text files prepare writes (lexicon.tsv, words.tsv) and the parts they are counted
from: one writer and one reader of their tables, one place for the one-line errors (missing file,
unreadable, not UTF-8) and for the progress of a long count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TypeVar

from mt.errors import MtError
from mt.storage.atomic import atomic_output

CHUNK = 100_000  # pairs counted between two reports of progress
T = TypeVar("T")


def count_part(
    path: Path,
    count: Callable[[Iterator[tuple[str, str]]], T],
    advance: Callable[[int], None] = lambda pairs: None,
) -> T:
    """`count` of the pairs of a prepared part's TSV, streamed; `advance` hears every CHUNK."""
    try:
        with path.open(encoding="utf-8", newline="\n") as file:
            return count(_pairs(file, advance))
    except FileNotFoundError:
        raise MtError(f"{path} is missing; run `mt prepare` again") from None
    except (OSError, UnicodeDecodeError) as error:
        raise MtError(f"cannot read {path}: {error}") from None


def _pairs(lines, advance: Callable[[int], None]) -> Iterator[tuple[str, str]]:
    number = 0
    for number, line in enumerate(lines, start=1):
        english, _, spanish = line.rstrip("\n").partition("\t")
        yield english, spanish
        if number % CHUNK == 0:
            advance(CHUNK)
    advance(number % CHUNK)


def count_field(path: Path, number: int, text: str) -> int:
    """A non-negative count in line `number` of a table, or one MtError naming it."""
    if not text.isascii() or not text.isdigit():
        raise MtError(f"{path} line {number}: {text!r} is not a count")
    return int(text)


def counted_rows(
    path: Path, lines: list[str], begin: int, end: int, *, shape: str
) -> Iterator[tuple[str, list[int]]]:
    """The non-blank rows `text<TAB>count...` of lines[begin:end], as many fields as `shape`
    (its names joined by <TAB>) says; a row of another shape is one MtError naming it."""
    width = shape.count("<TAB>") + 1
    for index in range(begin, end):
        if not lines[index]:
            continue
        fields = lines[index].split("\t")
        if len(fields) != width or not fields[0]:
            raise MtError(f"{path} line {index + 1}: expected {shape}")
        yield fields[0], [count_field(path, index + 1, field) for field in fields[1:]]


def write_tables(
    path: Path, comment: str, tables: Sequence[tuple[str, Mapping[str, Sequence[int]]]]
) -> None:
    """A file of counted tables, written atomically: the comment line, then each table's header
    and its rows `text<TAB>count...` in sorted order, a blank line between two tables; what
    `table_lines` and `counted_rows` read back."""
    with atomic_output(path, text=True) as stream:
        stream.write(f"{comment}\n")
        for number, (header, rows) in enumerate(tables):
            stream.write(f"\n{header}\n" if number else f"{header}\n")
            for text, counts in sorted(rows.items()):
                stream.write("\t".join([text, *map(str, counts)]) + "\n")


def table_lines(path: Path) -> list[str]:
    """The lines of a table prepare wrote (lexicon.tsv, words.tsv)."""
    try:
        return path.read_text(encoding="utf-8").split("\n")
    except FileNotFoundError:
        raise MtError(f"{path} is missing") from None
    except (OSError, UnicodeDecodeError) as error:
        raise MtError(f"cannot read {path}: {error}") from None
