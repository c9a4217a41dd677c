"""Atomic writes: the old file or the complete new one, never a half, never a leftover."""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from mt.atomic import atomic_output, atomic_write_text
from mt.errors import MtError


def test_atomic_write_leaves_no_temporary_files(tmp_path: Path) -> None:
    target = tmp_path / "a" / "file.txt"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["file.txt"]


def test_a_failing_block_keeps_the_old_file_and_removes_the_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(ValueError, match="stop"), atomic_output(target, text=True) as stream:
        stream.write("half of the new")
        raise ValueError("stop")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_streamed_text_replaces_the_file_when_the_block_ends(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with atomic_output(target, text=True) as stream:
        stream.write("¿Dónde está?\n")
        assert not target.exists(), "nothing is visible before the block ends"
    assert target.read_text(encoding="utf-8") == "¿Dónde está?\n"


def test_a_write_error_is_one_mt_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("mt.atomic.os.fsync", full_disk)
    target = tmp_path / "file.bin"
    with pytest.raises(MtError, match=f"cannot write {target}: No space left on device"):
        atomic_write_text(target, "data")
    assert list(tmp_path.iterdir()) == []
