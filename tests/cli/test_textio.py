"""Live input: complete lines come out as soon as they are written, in batches of what is there."""

from __future__ import annotations

import io
import os
import tempfile
import threading

import pytest

from mt.cli.textio import is_live, live_batches, live_fd
from mt.errors import MtError


def test_lines_already_written_come_as_one_batch_and_a_partial_line_waits() -> None:
    read, write = os.pipe()
    os.write(write, "\ufeffone\r\ntwo\nthr".encode())
    batches = live_batches(read, "<pipe>")
    assert next(batches) == ["one", "two"]
    os.write(write, b"ee\nfour")
    assert next(batches) == ["three"]
    os.close(write)
    assert next(batches) == ["four"]  # the last line may lack its newline
    assert next(batches, None) is None
    os.close(read)


def test_a_batch_is_given_before_more_input_arrives() -> None:
    read, write = os.pipe()
    os.write(write, b"first\n")
    batches = live_batches(read, "<pipe>")
    got: list[list[str]] = []
    reader = threading.Thread(target=lambda: got.append(next(batches)), daemon=True)
    reader.start()
    reader.join(timeout=30)  # would block forever if it waited for more lines or the end
    assert got == [["first"]]
    os.close(write)
    os.close(read)


def test_undecodable_bytes_name_the_line() -> None:
    read, write = os.pipe()
    os.write(write, b"ok\n\xff\xfe\n")
    os.close(write)
    with pytest.raises(MtError, match=r"<pipe>:2: not valid UTF-8 \(byte 1\)"):
        list(live_batches(read, "<pipe>"))
    os.close(read)


def test_pipes_are_live_and_regular_files_or_in_memory_streams_are_not() -> None:
    read, write = os.pipe()
    assert is_live(read)
    with tempfile.TemporaryFile() as regular:
        assert not is_live(regular.fileno())
        assert live_fd(regular) is None
    assert live_fd(io.BytesIO(b"x")) is None
    os.close(read)
    os.close(write)
