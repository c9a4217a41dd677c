"""Read corpus files as streams of lines, plain or compressed (gzip, xz, zstd, told by their first
bytes), without holding a file in memory. Any read failure, a damaged stream found half-way
included, is one `MtError` line naming the file. No pandas here.
"""

from __future__ import annotations

import gzip
import io
import itertools
import lzma
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from mt.errors import MtError

GZIP, XZ, ZSTD = "gzip", "xz", "zstd"
MAGIC = {b"\x1f\x8b": GZIP, b"\xfd7zXZ\x00": XZ, b"\x28\xb5\x2f\xfd": ZSTD}
ZIP_MAGIC = b"PK\x03\x04"
COMPRESSED_SUFFIXES = (".gz", ".gzip", ".xz", ".zst", ".zstd")
BOM = b"\xef\xbb\xbf"
BLOCK_BYTES = 2 << 20
"""Bytes `iter_blocks` reads at a time unless told: enough to amortise the work per block."""
HEAD_BYTES = 1 << 20
"""What `peek_head` sees: the read buffer of a stream from `open_binary`."""
_ZSTD_INPUT = 1 << 16  # compressed bytes fed at a time, so one feed's output stays small
_READ_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError)  # zstd's, as OSError: _ZstdReader


def plain_suffix(path: Path) -> str:
    """The suffix under any compression suffix, lower-cased: ".csv" for "x.csv.gz"."""
    name = path.name.lower()
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            name = name.removesuffix(suffix)
            break
    return Path(name).suffix


def open_binary(path: Path, *, what: str) -> BinaryIO:
    """The decompressed bytes of `path`; `what` names the file's role in errors ("corpus file")."""
    if path.is_dir():
        raise MtError(f"{path} is a directory, not a {what}")
    try:
        raw = path.open("rb")
        head = raw.peek(8)[:6]
    except FileNotFoundError:
        raise MtError(f"{what} {path} does not exist") from None
    except OSError as error:
        raise MtError(f"cannot read {path}: {error.strerror}") from None
    if head.startswith(ZIP_MAGIC):
        raw.close()
        raise MtError(f"{path} is a zip archive; extract it with `mt download --source {path}`")
    kind = next((kind for magic, kind in MAGIC.items() if head.startswith(magic)), "")
    inner: BinaryIO
    if kind == GZIP:
        inner = gzip.GzipFile(fileobj=raw, mode="rb")
    elif kind == XZ:
        inner = lzma.LZMAFile(raw)  # noqa: SIM115 (closed by _Checked)
    elif kind == ZSTD:
        inner = _ZstdReader(raw)
    else:
        inner = raw
    checked = _Checked(inner, raw=raw, path=path, kind=kind)
    return io.BufferedReader(checked, buffer_size=HEAD_BYTES)


def peek_head(stream: BinaryIO) -> tuple[bytes, bool]:
    """The first bytes of a fresh stream from `open_binary`, left in it to be read, and whether
    they are the whole stream; one open serves pipes too."""
    head = stream.peek(HEAD_BYTES)
    return head, len(head) < HEAD_BYTES


class _Checked(io.RawIOBase):
    """Reads through `inner`, turning any failure into an MtError naming the file."""

    def __init__(self, inner: BinaryIO, *, raw: BinaryIO, path: Path, kind: str) -> None:
        self._inner, self._raw, self._path, self._kind = inner, raw, path, kind

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:
        """Fills `buffer` unless the stream ends, so that `peek_head` sees a whole buffer."""
        view, filled = memoryview(buffer).cast("B"), 0
        try:
            while filled < len(view) and (size := self._inner.readinto(view[filled:])):
                filled += size
        except _READ_ERRORS as error:
            if self._kind:
                raise MtError(f"{self._path} is a damaged {self._kind} file: {error}") from None
            raise MtError(f"cannot read {self._path}: {error}") from None
        return filled

    def close(self) -> None:
        if not self.closed:
            self._inner.close()
            self._raw.close()
        super().close()


class _ZstdReader(io.RawIOBase):
    """zstd frames one after another; unlike zstandard's stream_reader, a truncated last frame
    is an error instead of a silently shorter file."""

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard  # only a .zst corpus needs it: training and translating start without

        self._error = zstandard.ZstdError
        self._raw = raw
        self._context = zstandard.ZstdDecompressor()
        self._frame = self._context.decompressobj()
        self._in_frame = False  # input fed to the current frame and its end not seen yet
        self._out = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:
        while not self._out:
            data = self._raw.read(_ZSTD_INPUT)
            if not data:
                if self._in_frame:
                    raise EOFError("compressed file ended in the middle of a frame")
                return 0
            self._out = memoryview(self._feed(data))
        size = min(len(buffer), len(self._out))
        buffer[:size] = self._out[:size]
        self._out = self._out[size:]
        return size

    def _feed(self, data: bytes) -> bytes:
        try:
            return self._frames(data)
        except self._error as error:
            raise OSError(str(error)) from None

    def _frames(self, data: bytes) -> bytes:
        pieces = []
        while data:
            pieces.append(self._frame.decompress(data))
            self._in_frame = not self._frame.eof
            if self._in_frame:
                break
            data = self._frame.unused_data
            self._frame = self._context.decompressobj()
        return b"".join(pieces)


def iter_blocks(
    stream: BinaryIO, *, path: Path, max_lines: int | None = None, block_bytes: int | None = None
) -> Iterator[bytes]:
    """The bytes of `stream` in blocks of whole lines (at most `max_lines`), each ending with a
    newline (one is added to a last line without), CRLF made LF and a leading UTF-8 byte order
    mark removed. A NUL byte stops the read with an MtError naming its line: the file is binary,
    not text."""
    pending = stream.read(len(BOM)).removeprefix(BOM)  # the bytes after the last newline so far
    lines_before = 0
    while block := stream.read(block_bytes or BLOCK_BYTES):
        data = pending + block
        cut = data.rfind(b"\n") + 1
        pending = data[cut:]
        if cut:
            lines = _checked_block(data[:cut], path=path, lines_before=lines_before)
            yield from _pieces(lines, max_lines=max_lines)
            lines_before += data.count(b"\n", 0, cut)
    if pending:  # a last line without a newline, or a file shorter than a BOM
        ended = pending if pending.endswith(b"\n") else pending + b"\n"
        lines = _checked_block(ended, path=path, lines_before=lines_before)
        yield from _pieces(lines, max_lines=max_lines)


def _pieces(block: bytes, *, max_lines: int | None) -> Iterator[bytes]:
    if max_lines is None or block.count(b"\n") <= max_lines:
        yield block
        return
    ends = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == ord("\n")) + 1
    cuts = [0, *ends[max_lines - 1 :: max_lines].tolist()]
    if cuts[-1] < len(block):
        cuts.append(len(block))
    for start, stop in itertools.pairwise(cuts):
        yield block[start:stop]


def _checked_block(data: bytes, *, path: Path, lines_before: int) -> bytes:
    nul = data.find(b"\x00")
    if nul >= 0:
        raise nul_error(path, line=lines_before + data.count(b"\n", 0, nul) + 1)
    return data.replace(b"\r\n", b"\n") if b"\r" in data else data


def iter_lines(
    stream: BinaryIO, *, path: Path, batch_lines: int, block_bytes: int | None = None
) -> Iterator[list[str | None]]:
    """The lines of `stream` as `iter_blocks` makes them, in lists of at most `batch_lines`;
    None for a line that is not UTF-8."""
    batch: list[str | None] = []
    for block in iter_blocks(stream, path=path, block_bytes=block_bytes):
        batch += decode_lines(block)
        while len(batch) >= batch_lines:
            yield batch[:batch_lines]
            del batch[:batch_lines]
    if batch:
        yield batch


def decode_lines(block: bytes) -> list[str | None]:
    """The lines of a block from `iter_blocks`; None for a line that is not UTF-8."""
    try:
        lines: list[str | None] = block.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        lines = [_decode_line(raw) for raw in block.split(b"\n")]
    lines.pop()  # the final newline ends the last line, it does not start another
    return lines


def _decode_line(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def nul_error(path: Path, *, line: int) -> MtError:
    return MtError(f"{path} line {line}: NUL byte, this looks like a binary file, not text")
