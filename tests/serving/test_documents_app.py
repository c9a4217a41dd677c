"""Documents through `mt serve`: "format": "html" on /translate, and /translate_file with its
one-time download, in-process with a scripted translator and with the tiny legacy model."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest
from fastapi.testclient import TestClient

from conftest import legacy_models
from serve_support import ScriptedTranslator, model_app, scripted_app, wait_healthy

RUN = legacy_models() / "run"


@pytest.fixture
def client(tmp_path: Path):
    app = scripted_app(ScriptedTranslator(), tmp_path)
    with TestClient(app, raise_server_exceptions=False) as client:
        wait_healthy(client)
        yield client


def upload(client: TestClient, name: str, content: str, **fields: str):
    return client.post(
        "/translate_file",
        files={"file": (name, content.encode("utf-8"), "application/octet-stream")},
        data={"source": "en", "target": "es", **fields},
    )


def test_html_format_keeps_tags_and_attributes(client: TestClient) -> None:
    response = client.post(
        "/translate",
        json={"q": '<p>I <b>do not</b> like <a href="/coffee">coffee</a>.</p>', "format": "html"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["translatedText"] == (
        '<p>I <b>DO NOT</b> LIKE <a href="/coffee">COFFEE</a>.</p>'
    )


def test_html_format_takes_an_array(client: TestClient) -> None:
    texts = ["<i>one</i> two", "", "three <br> four"]
    response = client.post("/translate", json={"q": texts, "format": "html", "source": "en"})
    assert response.status_code == 200, response.text
    assert response.json()["translatedText"] == ["<i>ONE</i> TWO", "", "THREE <br> FOUR"]


def test_an_unknown_format_is_a_clear_400(client: TestClient) -> None:
    response = client.post("/translate", json={"q": "x", "format": "xml"})
    assert response.status_code == 400
    assert response.json() == {"error": "format must be text or html, got 'xml'"}


def test_a_file_is_translated_and_downloaded_once(client: TestClient) -> None:
    srt = "1\n00:00:01,000 --> 00:00:02,000\nHello <i>there</i>,\nfriend.\n"
    response = upload(client, "film.srt", srt)
    assert response.status_code == 200, response.text
    url = response.json()["translatedFileUrl"]
    assert url.endswith("/film.srt")
    download = client.get(url)
    assert download.status_code == 200
    assert download.text == "1\n00:00:01,000 --> 00:00:02,000\nHELLO <i>THERE</i>,\nFRIEND.\n"
    assert "film.srt" in download.headers["content-disposition"]
    again = client.get(url)
    assert again.status_code == 404 and "downloaded already" in again.json()["error"]


@pytest.mark.parametrize(
    ("name", "content", "error"),
    [
        ("film.srt", "1\n00:00:01,000 -> 00:00:02,000\nHi\n", "film.srt:2: bad timecode line"),
        ("notes.docx", "x", "cannot translate notes.docx: send one of"),
        ("m.po", 'msgid "a\nmsgstr ""\n', "m.po:1: not a valid .po file"),
    ],
)
def test_a_bad_file_is_a_400_naming_the_problem(
    client: TestClient, name: str, content: str, error: str
) -> None:
    response = upload(client, name, content)
    assert response.status_code == 400
    assert response.json()["error"].startswith(error)


def test_translate_file_needs_the_api_key_when_the_server_has_one(tmp_path: Path) -> None:
    app = scripted_app(ScriptedTranslator(), tmp_path, api_key="secret")
    with TestClient(app, raise_server_exceptions=False) as client:
        wait_healthy(client)
        assert upload(client, "a.txt", "Hello.").status_code == 403
        assert upload(client, "a.txt", "Hello.", api_key="secret").status_code == 200


def test_the_page_offers_a_file_picker(client: TestClient) -> None:
    page = client.get("/").text
    assert 'type="file"' in page and 'fetch("translate_file"' in page


def test_a_po_file_with_the_real_model_is_valid(tmp_path: Path) -> None:
    po = (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        '#, python-format\nmsgid "Ilse likes %s."\nmsgstr ""\n'
    )
    with TestClient(model_app(RUN)) as client:
        wait_healthy(client)
        response = upload(client, "messages.po", po)
        assert response.status_code == 200, response.text
        text = client.get(response.json()["translatedFileUrl"]).text
    entry = polib.pofile(text)[0]
    assert entry.msgstr.count("%s") == 1 and "fuzzy" in entry.flags
