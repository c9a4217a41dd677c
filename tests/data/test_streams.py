"""Compressed and plain streams read the same; every damaged or wrong file is one clear error."""

from __future__ import annotations

import gzip
import lzma
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard

from mt.data.readers.streams import iter_blocks, iter_lines, open_binary, peek_head, plain_suffix
from mt.errors import MtError

TEXT = "".join(f"line {n}\tlínea {n}\n" for n in range(5000)).encode()


def zstd_frames(data: bytes) -> bytes:
    """Two frames, as `zstd` writes for concatenated files."""
    half = len(data) // 2
    compressor = zstandard.ZstdCompressor()
    return compressor.compress(data[:half]) + compressor.compress(data[half:])


def gzip_members(data: bytes) -> bytes:
    """Two members, as `cat a.gz b.gz` makes."""
    half = len(data) // 2
    return gzip.compress(data[:half]) + gzip.compress(data[half:])


COMPRESSORS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "gzip-members": gzip_members,
    "xz": lzma.compress,
    "zstd": zstandard.ZstdCompressor().compress,
    "zstd-frames": zstd_frames,
}


def read_all(path: Path) -> bytes:
    with open_binary(path, what="corpus file") as stream:
        return stream.read()


@pytest.mark.parametrize("kind", COMPRESSORS)
def test_compressed_files_read_as_their_text(tmp_path: Path, kind: str) -> None:
    # The name says nothing: the first bytes tell the format.
    path = tmp_path / "corpus.tsv"
    path.write_bytes(COMPRESSORS[kind](TEXT))
    assert read_all(path) == TEXT


def test_a_plain_file_named_gz_is_read_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "corpus.tsv.gz"
    path.write_bytes(TEXT)
    assert read_all(path) == TEXT


@pytest.mark.parametrize("kind", ["gzip", "xz", "zstd"])
@pytest.mark.parametrize("damage", ["truncated", "garbage"])
def test_a_damaged_compressed_file_is_one_error_naming_it(
    tmp_path: Path, kind: str, damage: str
) -> None:
    compressed = COMPRESSORS[kind](TEXT)
    data = compressed[: len(compressed) // 2] if damage == "truncated" else compressed[:6] + TEXT
    path = tmp_path / "corpus.tsv"
    path.write_bytes(data)
    with pytest.raises(MtError, match=f"corpus.tsv is a damaged {kind} file") as caught:
        read_all(path)
    assert "\n" not in str(caught.value)


def test_a_zip_archive_says_how_to_extract_it(tmp_path: Path) -> None:
    path = tmp_path / "spa-eng.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("spa.txt", "Hi.\tHola.\n")
    with pytest.raises(MtError, match=r"is a zip archive; extract it with `mt download --source"):
        open_binary(path, what="corpus file")


def test_missing_file_and_directory_name_the_role(tmp_path: Path) -> None:
    with pytest.raises(MtError, match=r"^corpus file .*missing\.en does not exist$"):
        open_binary(tmp_path / "missing.en", what="corpus file")
    with pytest.raises(MtError, match=r"is a directory, not a test file$"):
        open_binary(tmp_path, what="test file")


@pytest.mark.parametrize(
    ("name", "suffix"),
    [
        ("x.csv.gz", ".csv"),
        ("x.en.zst", ".en"),
        ("x.ES.XZ", ".es"),
        ("x.tsv", ".tsv"),
        ("x.gz", ""),
        ("corpus", ""),
    ],
)
def test_plain_suffix_looks_under_compression(name: str, suffix: str) -> None:
    assert plain_suffix(Path(name)) == suffix


def test_peek_head_leaves_the_bytes_to_read(tmp_path: Path) -> None:
    path = tmp_path / "c.tsv.gz"
    path.write_bytes(gzip.compress(TEXT))
    with open_binary(path, what="corpus file") as stream:
        head, whole = peek_head(stream)
        assert whole and head == TEXT
        assert stream.read() == TEXT


def blocks(data: bytes, tmp_path: Path, **options: int) -> list[bytes]:
    path = tmp_path / "c.txt"
    path.write_bytes(data)
    with open_binary(path, what="corpus file") as stream:
        return list(iter_blocks(stream, path=path, **options))


@pytest.mark.parametrize("block_bytes", [1, 2, 3, 5, 64])
def test_blocks_hold_whole_lines_whatever_the_read_size(tmp_path: Path, block_bytes: int) -> None:
    data = "\ufeffOne.\tUno.\r\nTwo.\tDos.\r\n\r\nÚltima.\tLast.\r".encode()
    found = blocks(data, tmp_path, block_bytes=block_bytes)
    assert all(block.endswith(b"\n") for block in found)
    assert b"".join(found) == "One.\tUno.\nTwo.\tDos.\n\nÚltima.\tLast.\n".encode()


def test_blocks_hold_at_most_max_lines(tmp_path: Path) -> None:
    found = blocks(b"a\nb\nc\nd\ne", tmp_path, max_lines=2)
    assert found == [b"a\nb\n", b"c\nd\n", b"e\n"]


def test_a_bom_alone_or_a_short_file_is_read_whole(tmp_path: Path) -> None:
    assert blocks(b"\xef\xbb\xbf", tmp_path) == []
    assert blocks(b"a\n\n", tmp_path) == [b"a\n\n"]


@pytest.mark.parametrize("block_bytes", [4, 1024])
def test_a_nul_byte_names_its_line(tmp_path: Path, block_bytes: int) -> None:
    with pytest.raises(MtError, match=r"c\.txt line 3: NUL byte, this looks like a binary file"):
        blocks(b"a\tb\nc\td\ne\x00f\n", tmp_path, block_bytes=block_bytes)


def test_lines_come_in_batches_with_none_for_bad_utf8(tmp_path: Path) -> None:
    path = tmp_path / "c.txt"
    path.write_bytes("uno\nCafé\ndos\ntres\ncuatro".encode("latin-1"))
    with open_binary(path, what="corpus file") as stream:
        batches = list(iter_lines(stream, path=path, batch_lines=2, block_bytes=3))
    assert batches == [["uno", None], ["dos", "tres"], ["cuatro"]]
