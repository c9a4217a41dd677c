"""Atomic writes: the old file or the complete new one, never a half, never a leftover."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import pytest

from mt.errors import MtError
from mt.storage.atomic import atomic_output, atomic_write_chunks, atomic_write_text


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


@pytest.fixture
def old_page(tmp_path: Path) -> Path:
    """page.html as an earlier write left it: "old"."""
    target = tmp_path / "page.html"
    target.write_text("old", encoding="utf-8")
    return target


def test_chunks_are_written_as_they_come_and_the_file_appears_at_the_end(old_page: Path) -> None:
    def chunks():
        yield b"<p>uno</p>\n"
        assert old_page.read_text(encoding="utf-8") == "old", "the old file until the last chunk"
        yield b"<p>dos</p>\n"

    atomic_write_chunks(old_page, chunks())
    assert old_page.read_text(encoding="utf-8") == "<p>uno</p>\n<p>dos</p>\n"


def test_chunks_that_fail_midway_keep_the_old_file(old_page: Path) -> None:
    def chunks():
        yield b"<p>uno</p>\n"
        raise MtError("page.html:3: a bad line")

    with pytest.raises(MtError, match="bad line"):
        atomic_write_chunks(old_page, chunks())
    assert old_page.read_text(encoding="utf-8") == "old"
    assert [p.name for p in old_page.parent.iterdir()] == ["page.html"]


def test_a_write_error_is_one_mt_error_naming_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full_disk(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("mt.storage.atomic.os.fsync", full_disk)
    target = tmp_path / "file.bin"
    with pytest.raises(MtError, match=f"cannot write {target}: No space left on device"):
        atomic_write_text(target, "data")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("umask", [0o022, 0o027, 0o077])
def test_files_get_the_permissions_the_umask_gives(tmp_path: Path, umask: int) -> None:
    previous = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "written.txt", "data")
        with atomic_output(tmp_path / "streamed.txt", text=True) as stream:
            stream.write("data")
    finally:
        os.umask(previous)
    for name in ("written.txt", "streamed.txt"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name


def test_the_directory_is_synced_after_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "file.txt"
    synced: list[bool] = []
    real_fsync = os.fsync

    def fsync(handle: int) -> None:
        is_directory = stat.S_ISDIR(os.fstat(handle).st_mode)
        synced.append(is_directory and target.read_text() == "new")
        real_fsync(handle)

    monkeypatch.setattr("mt.storage.atomic.os.fsync", fsync)
    atomic_write_text(target, "new")
    assert synced == [False, True], "the file, then its directory once renamed"
