"""`mt download` from a local HTTP server and from local files; clear errors without a network."""

from __future__ import annotations

import functools
import gzip
import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from archive_support import zip_bytes
from conftest import cli_output, invented_pairs
from mt.data.readers.corpus import read_corpus

PAIRS = invented_pairs()[:40]
TWO_COLUMNS = "".join(f"{en}\t{es}\n" for en, es in PAIRS)
THREE_COLUMNS = "".join(
    f"{en}\t{es}\tCC-BY 2.0 (France) Attribution: #{i}\n" for i, (en, es) in enumerate(PAIRS)
)


def invoke(*args: str | Path, code: int = 0) -> str:
    return cli_output("download", *args, code=code)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    """Serve tmp_path/www over HTTP on 127.0.0.1; yields the base URL."""
    root = tmp_path / "www"
    root.mkdir()
    handler = functools.partial(QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (stdlib name)
        pass


def test_download_zip_from_a_local_server(server: str, tmp_path: Path) -> None:
    archive = zip_bytes({"spa-eng/_about.txt": "about\tthis\n", "spa-eng/spa.txt": THREE_COLUMNS})
    (tmp_path / "www" / "spa-eng.zip").write_bytes(archive)
    out = tmp_path / "data" / "nested" / "spa-eng.tsv"
    output = invoke("--source", f"{server}/spa-eng.zip", "--out", out)
    assert f"{len(PAIRS)} pairs" in output and "spa-eng/spa.txt" in output
    assert out.read_text(encoding="utf-8") == TWO_COLUMNS
    assert read_corpus(out).pairs == PAIRS
    assert sorted(p.name for p in out.parent.iterdir()) == ["spa-eng.tsv"]


@pytest.mark.parametrize(
    "content",
    [
        TWO_COLUMNS.encode(),
        THREE_COLUMNS.encode(),
        b"\xef\xbb\xbf" + THREE_COLUMNS.replace("\n", "\r\n").encode(),
        gzip.compress(TWO_COLUMNS.encode()),
        zip_bytes({"readme.md": "x", "pairs.tsv": TWO_COLUMNS}),
    ],
    ids=["tsv", "three-columns", "bom-crlf", "gzip", "zip-tsv-member"],
)
def test_download_from_a_local_file(tmp_path: Path, content: bytes) -> None:
    source = tmp_path / "source.bin"
    source.write_bytes(content)
    out = tmp_path / "out.tsv"
    out.write_text("old content\n", encoding="utf-8")
    invoke("--source", source, "--out", out)
    assert out.read_text(encoding="utf-8") == TWO_COLUMNS


def test_bad_lines_are_kept_for_prepare_to_report(tmp_path: Path) -> None:
    source = tmp_path / "source.tsv"
    source.write_text("One.\tUno.\tx\nno tab\nTwo.\tDos.\n", encoding="utf-8")
    output = invoke("--source", source, "--out", tmp_path / "out.tsv")
    assert "3 lines, 2 pairs" in output
    assert (tmp_path / "out.tsv").read_text(encoding="utf-8") == "One.\tUno.\nno tab\nTwo.\tDos.\n"


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_url_says_how_to_supply_the_file(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/x.zip"
    output = invoke("--source", url, "--out", tmp_path / "out.tsv", code=2)
    assert f"cannot download {url}" in output
    assert "mt download --source PATH" in output and "data/spa-eng.tsv" in output
    assert len(output.strip().splitlines()) == 1
    assert not (tmp_path / "out.tsv").exists()


def test_http_error_is_reported(server: str, tmp_path: Path) -> None:
    output = invoke("--source", f"{server}/missing.zip", "--out", tmp_path / "o.tsv", code=2)
    assert "HTTP Error 404" in output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (zip_bytes({"spa-eng/_about.txt": "a\tb\n", "notes.md": "x"}), "no .txt or .tsv member"),
        (b"PK\x03\x04 not really a zip", "broken zip archive"),
        (b"\x1f\x8bnot gzip", "broken gzip file"),
        ("Coffee.\tCafé.\n".encode("latin-1"), "line 1: not valid UTF-8"),
        (b"english,spanish\nHello.,Hola.\n", "no english<TAB>spanish line in 2 lines"),
    ],
    ids=["zip-without-pairs", "broken-zip", "broken-gzip", "latin1", "csv"],
)
def test_unusable_sources_are_clear_errors(tmp_path: Path, content: bytes, message: str) -> None:
    source = tmp_path / "source.bin"
    source.write_bytes(content)
    output = invoke("--source", source, "--out", tmp_path / "out.tsv", code=2)
    assert message in output
    assert not (tmp_path / "out.tsv").exists()


def test_missing_local_source(tmp_path: Path) -> None:
    output = invoke("--source", tmp_path / "nope.zip", "--out", tmp_path / "o.tsv", code=2)
    assert "does not exist" in output
