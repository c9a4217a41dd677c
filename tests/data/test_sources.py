"""`mt download --recipe` against a local HTTP server that answers Range requests: files land with
their digests, a second run skips them, a cut download resumes, a wrong digest is one line and
leaves no file, no network is one line. The registry is monkeypatched with sources built here, or
with its own sources served locally with tiny files (the dictionary)."""

from __future__ import annotations

import hashlib
import http.server
import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

import pytest

from archive_support import tar_bytes, zip_bytes
from conftest import cli_output
from mt.data.sources import registry
from mt.data.sources.corpora import tatoeba, xquad
from mt.data.sources.domains import tldr
from mt.data.sources.registry import LEXICON, Download, Output, Source
from mt.data.sources.wiktionary import WIKTIONARY_FILES

SPA_TXT = "Go.\tVe.\nI see.\tYa veo.\n" * 400  # big enough to be cut in the middle
EN_PAGE, ES_PAGE = b"# tar\n\n> Archive.\n", b"# tar\n\n> Archivar.\n"
DICTIONARY = {  # invented lines in Wiktionary's format, by the repository's file names
    "en-es-enwiktionary.txt": b"# English-Spanish\ndishwasher {n} (machine) :: lavaplatos {m}\n",
    "es-en-enwiktionary.txt": b"lavaplatos {m} :: dishwasher\n",
}


@dataclass
class Served:
    """What the server holds (path -> bytes) and what it was asked (path, Range header)."""

    files: dict[str, bytes] = field(default_factory=dict)
    cut: dict[str, int] = field(default_factory=dict)  # path -> bytes sent before hanging up, once
    ranges: bool = True  # False: a server that ignores Range, as GitHub's archives do
    requests: list[tuple[str, str | None]] = field(default_factory=list)


class RangeHandler(http.server.BaseHTTPRequestHandler):
    served: Served

    def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
        asked = self.headers.get("Range")
        self.served.requests.append((self.path, asked))
        body = self.served.files.get(self.path)
        if body is None:
            self.send_error(404)
            return
        start = int(re.fullmatch(r"bytes=(\d+)-", asked)[1]) if asked and self.served.ranges else 0
        if start >= len(body) > 0:
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{len(body)}")
            self.end_headers()
            return
        self.send_response(206 if start else 200)
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(body) - 1}/{len(body)}")
        self.send_header("Content-Length", str(len(body) - start))
        self.end_headers()
        end = self.served.cut.pop(self.path, len(body))
        self.wfile.write(body[start:end])  # the connection closes after: HTTP/1.0

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, Served]]:
    served = Served()
    handler = type("Handler", (RangeHandler,), {"served": served})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", served
    httpd.shutdown()
    httpd.server_close()


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def xquad_json(context: str, question: str) -> bytes:
    paragraph = {"context": context, "qas": [{"id": "q1", "question": question, "answers": []}]}
    return json.dumps({"data": [{"title": "Panthers", "paragraphs": [paragraph]}]}).encode()


def tree_digest(files: dict[str, bytes]) -> str:
    """The README's `find DIR -type f | LC_ALL=C sort | xargs sha256sum | sha256sum`."""
    listing = "".join(f"{sha256(files[name])}  {name}\n" for name in sorted(files))
    return sha256(listing.encode())


@pytest.fixture
def sources(server: tuple[str, Served], monkeypatch: pytest.MonkeyPatch) -> tuple[Source, ...]:
    """Three sources as the registry has them, served locally, and one not reproducible."""
    base, served = server
    archive = zip_bytes({"spa-eng/_about.txt": "about\n", "spa-eng/spa.txt": SPA_TXT})
    pages = {"pages/common/tar.md": EN_PAGE, "pages.es/common/tar.md": ES_PAGE}
    english = xquad_json("The  Panthers\ndefense.", "Who led?")
    spanish = xquad_json("\ufeffLa defensa de los Panthers.", "¿Quién dirigió?")
    served.files.update({
        "/spa-eng.zip": archive, "/tldr.tar.gz": tar_bytes("tldr-abc", pages),
        "/xquad.en.json": english, "/xquad.es.json": spanish,
    })  # fmt: skip
    made = tree_digest({"tldr/en/common/tar.md": EN_PAGE, "tldr/es/common/tar.md": ES_PAGE})
    xquad_tsv = (
        "The Panthers defense.\tLa defensa de los Panthers.\tcontext\n"
        "Who led?\t¿Quién dirigió?\tquestion\n"
    )
    chosen = (
        Source(
            name="tatoeba", home=base, version="1", licence="CC-BY 2.0 FR",
            outputs=(Output("spa-eng.tsv", sha256(SPA_TXT.encode())),),
            downloads=(Download("spa-eng.zip", (f"{base}/spa-eng.zip",), sha256(archive)),),
            convert=tatoeba,
        ),
        Source(
            name="tldr", home=base, version="1", licence="CC-BY 4.0",
            outputs=(Output("domains/tldr", made),),
            downloads=(Download("abc.tar.gz", (f"{base}/tldr.tar.gz",)),), convert=tldr,
        ),
        Source(
            name="xquad", home=base, version="1", licence="CC BY-SA 4.0",
            outputs=(Output("general/xquad.tsv", sha256(xquad_tsv.encode())),),
            downloads=(
                Download("xquad.en.json", (f"{base}/xquad.en.json",), sha256(english)),
                Download("xquad.es.json", (f"{base}/xquad.es.json",), sha256(spanish)),
            ),
            convert=xquad,
        ),
        Source(
            name="un-news", home="https://example.org/un", version="1", licence="research only",
            outputs=(Output("general/un-news.es.tsv.xz", "0" * 64),),
            reproducible=False, why_not="a scrape cleaned by hand",
        ),
    )  # fmt: skip
    monkeypatch.setattr(registry, "SOURCES", chosen)
    return chosen


def recipe(root: Path, code: int = 0) -> str:
    return cli_output("download", "--recipe", "--root", root, code=code)


def test_every_file_lands_with_its_digest_and_a_second_run_skips_it(
    sources: tuple[Source, ...], server: tuple[str, Served], tmp_path: Path
) -> None:
    root = tmp_path / "data"
    output = recipe(root)
    assert (root / "spa-eng.tsv").read_text(encoding="utf-8") == SPA_TXT
    assert (root / "domains/tldr/es/common/tar.md").read_bytes() == ES_PAGE
    assert (root / "general/xquad.tsv").read_text(encoding="utf-8").startswith("The Panthers")
    assert "3 fetched, 0 already there, 1 to bring by hand, 0 failed" in output
    assert "un-news: not fetched" in output and "a scrape cleaned by hand" in output
    assert not (root / "general/un-news.es.tsv.xz").exists()
    assert not (root / ".downloads").exists(), "the downloads go once the files are in place"
    asked = len(server[1].requests)
    again = recipe(root)
    assert "0 fetched, 3 already there" in again and len(server[1].requests) == asked


def test_a_download_cut_in_the_middle_resumes_with_range(
    sources: tuple[Source, ...], server: tuple[str, Served], tmp_path: Path
) -> None:
    root, (_, served) = tmp_path / "data", server
    size = len(served.files["/spa-eng.zip"])
    served.cut["/spa-eng.zip"] = size // 2
    output = recipe(root, code=1)
    assert "the download broke after" in output and f"of {size:,} bytes" in output
    assert not (root / "spa-eng.tsv").exists()
    part = root / ".downloads/tatoeba/spa-eng.zip.part"
    assert part.stat().st_size == size // 2
    output = recipe(root)
    assert ("/spa-eng.zip", f"bytes={size // 2}-") in served.requests
    assert sha256((root / "spa-eng.tsv").read_bytes()) == sources[0].outputs[0].sha256
    assert not part.exists()


def test_a_server_that_ignores_range_gives_the_whole_file_again(
    sources: tuple[Source, ...], server: tuple[str, Served], tmp_path: Path
) -> None:
    root, (_, served) = tmp_path / "data", server
    served.ranges = False
    part = root / ".downloads/tatoeba/spa-eng.zip.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(served.files["/spa-eng.zip"][:100])
    recipe(root)
    assert (root / "spa-eng.tsv").read_text(encoding="utf-8") == SPA_TXT


def test_a_wrong_download_digest_is_one_line_and_leaves_no_file(
    sources: tuple[Source, ...], server: tuple[str, Served], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    root, (_, served) = tmp_path / "data", server
    served.files["/spa-eng.zip"] = zip_bytes({"spa-eng/spa.txt": "Hi.\tHola.\n"})
    output = recipe(root, code=1)
    found = sha256(served.files["/spa-eng.zip"])
    line = next(line for line in output.splitlines() if "mismatch" in line)
    assert "spa-eng.zip" in line and sources[0].downloads[0].sha256 in line and found in line
    assert "Traceback" not in output
    assert not (root / "spa-eng.tsv").exists()
    assert not list((root / ".downloads/tatoeba").glob("spa-eng.zip*")), "no part to resume"
    assert (root / "domains/tldr").is_dir(), "the other sources still come"


def test_a_conversion_with_another_digest_writes_nothing_under_the_final_name(
    sources: tuple[Source, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = replace(sources[1], outputs=(Output("domains/tldr", "f" * 64),))
    monkeypatch.setattr(registry, "SOURCES", (wrong,))
    root = tmp_path / "data"
    output = recipe(root, code=1)
    assert f"{root / 'domains/tldr'}: sha256 mismatch: expected {'f' * 64}" in output
    assert not (root / "domains/tldr").exists()
    assert not (root / ".downloads/tldr/staging").exists()


def test_a_file_already_there_with_another_digest_is_left_alone(
    sources: tuple[Source, ...], tmp_path: Path
) -> None:
    root = tmp_path / "data"
    root.mkdir()
    (root / "spa-eng.tsv").write_text("mine\tmío\n", encoding="utf-8")
    output = recipe(root, code=1)
    assert "spa-eng.tsv: present, but its sha256 is" in output
    assert (root / "spa-eng.tsv").read_text(encoding="utf-8") == "mine\tmío\n"


def test_an_address_that_is_gone_falls_to_the_next_one(
    sources: tuple[Source, ...], server: tuple[str, Served], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    base = server[0]
    first = sources[0].downloads[0]
    moved = replace(first, urls=(f"{base}/gone.zip", *first.urls))
    monkeypatch.setattr(registry, "SOURCES", (replace(sources[0], downloads=(moved,)),))
    recipe(tmp_path / "data")
    assert (tmp_path / "data/spa-eng.tsv").read_text(encoding="utf-8") == SPA_TXT


def test_no_network_is_one_line_naming_the_source_and_the_address(
    sources: tuple[Source, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as probe:  # a port nothing listens on: connection refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"http://127.0.0.1:{port}/spa-eng.zip"
    offline = replace(sources[0].downloads[0], urls=(address,))
    monkeypatch.setattr(registry, "SOURCES", (replace(sources[0], downloads=(offline,)),))
    output = recipe(tmp_path / "data", code=1)
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in output
    assert f"tatoeba: cannot reach {address}" in errors[0] and "../shared" in errors[0]
    assert not (tmp_path / "data/spa-eng.tsv").exists()


@pytest.fixture
def dictionary(server: tuple[str, Served], monkeypatch: pytest.MonkeyPatch) -> Source:
    """The registry's dictionary (its names, its conversion) with its downloads served locally and
    the digests of the tiny files served."""
    base, served = server
    served.files.update({f"/{name}": data for name, data in DICTIONARY.items()})
    by_output = {
        out: DICTIONARY[PurePosixPath(path).name] for path, out in WIKTIONARY_FILES.items()
    }
    local = replace(
        LEXICON,
        downloads=tuple(
            replace(item, urls=(f"{base}/{item.name}",), sha256=sha256(DICTIONARY[item.name]))
            for item in LEXICON.downloads
        ),
        outputs=tuple(replace(o, sha256=sha256(by_output[o.path])) for o in LEXICON.outputs),
    )
    monkeypatch.setattr(registry, "SOURCES", (local,))
    return local


def test_the_dictionary_lands_under_lexicon_byte_for_byte(
    dictionary: Source, tmp_path: Path
) -> None:
    root = tmp_path / "data"
    assert "1 fetched" in recipe(root)
    for path, placed in WIKTIONARY_FILES.items():
        assert (root / placed).read_bytes() == DICTIONARY[PurePosixPath(path).name]
    assert not (root / ".downloads").exists()


def test_a_dictionary_with_another_digest_is_refused_and_nothing_is_placed(
    dictionary: Source, server: tuple[str, Served], tmp_path: Path
) -> None:
    server[1].files["/es-en-enwiktionary.txt"] = b"<html>rate limited</html>\n"
    root = tmp_path / "data"
    output = recipe(root, code=1)
    line = next(line for line in output.splitlines() if "mismatch" in line)
    expected = sha256(DICTIONARY["es-en-enwiktionary.txt"])
    assert "es-en-enwiktionary.txt" in line and expected in line and "Traceback" not in output
    assert not (root / "lexicon").exists(), "neither file, though the other one was right"
