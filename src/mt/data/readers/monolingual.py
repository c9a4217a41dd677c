"""Monolingual text as a stream of (line number, paragraph): what `mt backtranslate` reads.

Plain lines, or ../shared/data/general's `doc<TAB>paragraph` (the text after the first TAB), plain
or compressed; blank lines are skipped. A line that is not UTF-8, or a file with no text, stops the
read with one line naming the file and line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from mt.data.readers.streams import iter_lines, open_binary
from mt.errors import MtError

BATCH_LINES = 4096


def monolingual_paragraphs(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, paragraph) of every non-blank line of `path`, in order."""
    number = 0
    found = False
    with open_binary(path, what="monolingual file") as stream:
        for batch in iter_lines(stream, path=path, batch_lines=BATCH_LINES):
            for line in batch:
                number += 1
                if line is None:
                    raise MtError(f"{path} line {number}: not valid UTF-8")
                text = line.partition("\t")[2] if "\t" in line else line
                text = text.strip()
                if text:
                    found = True
                    yield number, text
    if not found:
        raise MtError(f"{path}: no text in it (an empty file)")
