"""Text in and out of `mt translate`: files, stdin and pipes read as lines, translations written.

Each read returns every complete line already written, rather than waiting for 2,000: a program
that writes one line into a pipe and waits for its translation gets it at once, and a burst is
still batched.
"""

from __future__ import annotations

import json
import os
import select
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

from mt.decode.results import Translation
from mt.errors import MtError
from mt.storage.atomic import atomic_output

READ_BYTES = 1 << 16
MAX_BATCH_LINES = 2000  # the same bound on memory as the chunked file path


def is_live(fd: int) -> bool:
    """A pipe, socket or terminal: anything but a regular file, whose end is already written."""
    try:
        return not stat.S_ISREG(os.fstat(fd).st_mode)
    except OSError:
        return False


def live_batches(fd: int, name: str) -> Iterator[list[str]]:
    """Complete lines (without newline) in batches of those available; the last line may lack its
    newline. Undecodable bytes are an error naming the line, as in read_lines."""
    pending = b""
    number = 0
    while True:
        chunk = os.read(fd, READ_BYTES)  # blocks until at least one byte or the end
        ended = not chunk
        pending += chunk
        while not ended and pending.count(b"\n") < MAX_BATCH_LINES and _ready(fd):
            more = os.read(fd, READ_BYTES)
            ended = not more
            pending += more
        *complete, pending = pending.split(b"\n")
        if ended and pending:
            complete.append(pending)
            pending = b""
        if complete:
            batch = []
            for raw in complete:
                number += 1
                batch.append(decode_line(raw, name, number))
            yield batch
        if ended:
            return


def _ready(fd: int) -> bool:
    readable, _, _ = select.select([fd], [], [], 0)
    return bool(readable)


def decode_line(raw: bytes, name: str, number: int) -> str:
    """One line of input as text without its line ending; bad UTF-8 names the line."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise MtError(f"{name}:{number}: not valid UTF-8 (byte {error.start + 1})") from None
    if number == 1:
        line = line.removeprefix("\ufeff")
    return line.removesuffix("\r")


def live_fd(stream) -> int | None:
    """The file descriptor of `stream` if it is live (see is_live); None for a regular file or a
    stream without one (an in-memory stand-in)."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    return fd if is_live(fd) else None


def read_lines(stream: BinaryIO, name: str) -> Iterator[str]:
    """Lines without their newline; undecodable bytes are an error naming the line."""
    for number, raw in enumerate(stream, start=1):
        yield decode_line(raw.removesuffix(b"\n"), name, number)


def file_lines(path: Path) -> Iterator[str]:
    """The lines of --input, decoded as read_lines does."""
    if not path.is_file():
        raise MtError(f"--input {path}: no such file")
    with path.open("rb") as stream:
        yield from read_lines(stream, str(path))


def write_translations(
    translations: Iterable[Translation], output_file: Path | None, *, style: str = "text"
) -> None:
    """Stream to stdout, or to a temporary file renamed into place when complete. `style`: text
    (the best translation), nbest (index, score, text of each hypothesis), scores (text,
    confidence, flags) or json (one object a line)."""

    def emit(stream: TextIO) -> None:
        for index, translation in enumerate(translations):
            stream.write(format_translation(index, translation, style))
            if stream is sys.stdout:
                stream.flush()  # a pipe sees each translation as soon as it exists

    if output_file is None:
        emit(sys.stdout)
        return
    if output_file.is_dir():
        raise MtError(f"--output {output_file} is a directory; give a file name")
    with atomic_output(output_file, text=True) as stream:
        emit(stream)


def format_translation(index: int, translation: Translation, style: str) -> str:
    """The lines written for one translation, newline included."""
    if style == "nbest":
        return "".join(f"{index}\t{score:.4f}\t{text}\n" for text, score in translation.hypotheses)
    if style == "scores":
        confidence = translation.confidence or 0.0
        return f"{translation.text}\t{confidence:.3f}\t{','.join(translation.flags)}\n"
    if style == "json":
        return json.dumps(translation_record(translation), ensure_ascii=False) + "\n"
    return translation.text + "\n"


def translation_record(translation: Translation) -> dict:
    """What --json prints of a translation."""
    return {
        "source": translation.source,
        "translation": translation.text,
        "confidence": None if translation.confidence is None else round(translation.confidence, 4),
        "flags": list(translation.flags),
        "hypotheses": [
            {"translation": text, "score": round(score, 4)}
            for text, score in translation.hypotheses
        ],
    }
