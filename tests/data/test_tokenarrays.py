"""The token arrays `mt prepare` writes and `mt train` reads row by row."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from mt.data.tokenarrays import TokenArrayWriter, TokenColumn, ids_dtype, open_column
from mt.errors import MtError

SENTENCES = [[5, 6, 7], [], [70_000 % 65_536, 4], [9]]


def written(tmp_path: Path, sentences: list[list[int]], vocab_size: int) -> dict:
    writer = TokenArrayWriter(tmp_path, "part.en", vocab_size=vocab_size)
    writer.add(sentences[:2])
    writer.add(sentences[2:])
    return writer.finish()


def test_round_trip_and_entry(tmp_path: Path) -> None:
    entry = written(tmp_path, SENTENCES, vocab_size=65_536)
    assert entry["dtype"] == "<u2" and entry["sentences"] == 4 and entry["tokens"] == 6
    column = open_column(tmp_path, entry)
    assert [column.row(i).tolist() for i in range(len(column))] == SENTENCES
    assert column.sizes().tolist() == [3, 0, 2, 1]
    for name, digest in entry["sha256"].items():
        assert hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() == digest


def test_wide_vocabularies_get_32_bit_ids(tmp_path: Path) -> None:
    assert ids_dtype(65_536) == np.dtype("<u2") and ids_dtype(65_537) == np.dtype("<u4")
    sentences = [[70_000, 3], [65_536]]
    column = open_column(tmp_path, written(tmp_path, sentences, vocab_size=80_000))
    assert column.dtype == np.dtype("<u4")
    assert [column.row(i).tolist() for i in range(2)] == sentences


def test_from_lists_equals_the_written_column(tmp_path: Path) -> None:
    column = TokenColumn.from_lists(SENTENCES)
    mapped = open_column(tmp_path, written(tmp_path, SENTENCES, vocab_size=65_536))
    assert [mapped.row(i).tolist() for i in range(len(mapped))] == SENTENCES
    assert column.sizes().tolist() == mapped.sizes().tolist() == [3, 0, 2, 1]


def test_an_empty_part(tmp_path: Path) -> None:
    column = open_column(tmp_path, written(tmp_path, [], vocab_size=100))
    assert len(column) == 0 and column.sizes().tolist() == []


def test_offsets_that_do_not_match_are_refused(tmp_path: Path) -> None:
    entry = written(tmp_path, SENTENCES, vocab_size=100)
    np.array([0, 3, 6, 6, 7], dtype="<i8").tofile(tmp_path / entry["offsets"])
    with pytest.raises(MtError, match=r"part\.en\.offsets does not match part\.en\.ids"):
        open_column(tmp_path, entry)
    with pytest.raises(MtError, match="token arrays are damaged"):
        open_column(tmp_path, {"ids": "part.en.ids"})
