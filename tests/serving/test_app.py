"""The HTTP API in-process: LibreTranslate's shapes, every error status, the log, the page."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from mt.catalog.modelinfo import resolve
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.serving.detect import detected_language
from mt.serving.limits import Limits
from serve_support import DECODE, ScriptedTranslator, model_app, scripted_app, wait_healthy


@pytest.fixture(scope="module")
def client(trained_run: Path):
    with TestClient(model_app(trained_run)) as client:
        wait_healthy(client)
        yield client


@pytest.fixture(scope="module")
def direct(trained_run: Path):
    """The same run opened as `mt translate` opens it, for comparison."""
    translator = open_translator(
        resolve(trained_run), TranslateOptions(decode=DECODE), device="cpu"
    )
    return lambda lines: [t.text for t in translator.translate(lines)]


def scripted_client(tmp_path: Path, translator=None, **options) -> TestClient:
    app = scripted_app(translator or ScriptedTranslator(), tmp_path, **options)
    return TestClient(app, raise_server_exceptions=False)


def error_of(response, status: int) -> str:
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"} and body["error"], body
    assert "Traceback" not in response.text
    return body["error"]


# ----- translating ---------------------------------------------------------------------------


def test_translate_a_string_gives_what_mt_translate_gives(client, direct) -> None:
    response = client.post(
        "/translate", json={"q": "Where is the museum, Nadia?", "source": "en", "target": "es"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["translatedText"] == direct(["Where is the museum, Nadia?"])[0]
    assert set(body) == {"translatedText", "confidence", "flags"}
    assert 0.0 <= body["confidence"] <= 1.0 and body["flags"] == []


def test_a_text_has_its_least_confident_line_confidence_and_all_flags(
    client, trained_run: Path
) -> None:
    translator = open_translator(
        resolve(trained_run), TranslateOptions(decode=DECODE), device="cpu"
    )
    lines = ["Where is the museum, Nadia?", "Je voudrais un café, s'il vous plaît."]
    judged = list(translator.translate(lines))
    response = client.post("/translate", json={"q": ["\n".join(lines), lines[0]]})
    body = response.json()
    assert body["confidence"] == [
        round(min(t.confidence for t in judged), 4),
        round(judged[0].confidence, 4),
    ]
    assert "not_english" in body["flags"][0] and "not_english" not in body["flags"][1]


def test_array_keeps_order_lines_and_empty_texts(client, direct) -> None:
    texts = ["I have 3 cats.", "", "Thank you, Bruno!\n\nIs Ilse at the bridge?"]
    response = client.post("/translate", json={"q": texts, "source": "en", "target": "es"})
    assert response.status_code == 200, response.text
    lines = direct(["I have 3 cats.", "Thank you, Bruno!", "Is Ilse at the bridge?"])
    assert response.json()["translatedText"] == [lines[0], "", f"{lines[1]}\n\n{lines[2]}"]


def test_form_bodies_are_read_like_json(client, direct) -> None:
    expected = direct(["Bruno likes soup."])[0]
    form = client.post(
        "/translate", data={"q": "Bruno likes soup.", "source": "en", "target": "es"}
    )
    assert form.status_code == 200 and form.json()["translatedText"] == expected
    multipart = client.post(
        "/translate", files={"q": (None, "Bruno likes soup."), "target": (None, "es")}
    )
    assert multipart.status_code == 200 and multipart.json()["translatedText"] == expected


def test_alternatives_are_distinct_and_other_than_the_best(client) -> None:
    answer = client.post(
        "/translate", json={"q": "Does Oskar want rice?", "alternatives": 2}
    ).json()
    assert isinstance(answer["alternatives"], list) and 1 <= len(answer["alternatives"]) <= 2
    assert answer["translatedText"] not in answer["alternatives"]
    assert len(set(answer["alternatives"])) == len(answer["alternatives"])
    listed = client.post("/translate", json={"q": ["Hi.", "Bye."], "alternatives": 1}).json()
    assert len(listed["alternatives"]) == 2 and all(len(a) <= 1 for a in listed["alternatives"])
    # beam 3 gives at most 2 alternatives, however many are asked for
    many = client.post("/translate", json={"q": "I have 5 keys.", "alternatives": 9}).json()
    assert len(many["alternatives"]) <= DECODE.beam_size - 1


def test_auto_source_reports_the_detected_language(client) -> None:
    answer = client.post(
        "/translate", json={"q": "Where is the station?", "source": "auto", "target": "es"}
    ).json()
    assert answer["detectedLanguage"]["language"] == "en"
    assert 90 < answer["detectedLanguage"]["confidence"] <= 100
    explicit = client.post(
        "/translate", json={"q": "Hello.", "source": "en", "target": "es"}
    ).json()
    assert "detectedLanguage" not in explicit


def test_languages_health_model_and_openapi(client, trained_run: Path) -> None:
    languages = client.get("/languages").json()
    assert {"code": "en", "name": "English", "targets": ["es"]} in languages
    assert client.get("/health").json() == {"status": "ok"}
    info = client.get("/model").json()
    assert info["name"] == trained_run.name and info["parameters"] > 100_000
    weights = (trained_run / "best.safetensors").stat().st_size
    assert weights < info["disk_bytes"] < 3 * weights + 1_000_000  # checkpoints/ not counted
    assert info["vocabulary"] == {"source": 150, "target": 180}
    assert info["architecture"]["d_model"] == 64 and info["training"]["steps"] == 60
    depths = [info["architecture"][key] for key in ("layers", "encoder_layers", "decoder_layers")]
    assert depths == [1, 1, 1]  # each stack's depth spelt out (thesis-small: 1+1)
    assert info["training"]["best_selection_loss"] > 0 and info["evaluation"] is None
    assert info["decoding"]["beam_size"] == 3 and info["api_key_required"] is False
    assert info["decoding"]["cognates"] is False  # the run has no decode.json asking for them
    switches = ("first_words", "titles")
    assert not any(info["decoding"][s] for s in switches)
    assert not {"end_marks", "stutters"} & set(info["decoding"])  # rules no model used: gone
    assert info["decoding"]["dictionary_nouns"] is None
    schema = client.get("/openapi.json").json()
    body = schema["paths"]["/translate"]["post"]["requestBody"]["content"]
    assert {"application/json", "application/x-www-form-urlencoded"} <= set(body)
    assert client.get("/docs").status_code == 200


def test_a_server_with_a_dictionary_places_its_nouns_and_says_how_many(trained_run: Path) -> None:
    """`mt serve --dictionary`: the server's path (Translator.translate_each) places a
    never-seen word's noun as `mt translate` does, and /model says the dictionary is there."""
    from mt.serving.app import create_app

    options = TranslateOptions(decode=DECODE, dictionary={"zorblat": ("zorbláculo",)})
    app = create_app(
        lambda: open_translator(resolve(trained_run), options, device="cpu"),
        Limits(),
        model=resolve(trained_run),
        decode=DECODE,
        threads=1,
        log_line=lambda line: None,
    )
    with TestClient(app) as client:
        wait_healthy(client)
        answer = client.post("/translate", json={"q": "Where is the zorblat?"}).json()
        assert "zorbláculo" in answer["translatedText"].lower()
        assert client.get("/model").json()["decoding"]["dictionary_nouns"] == 1


def test_model_reports_a_stored_evaluation(tmp_path: Path, trained_run: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(trained_run, run, ignore=shutil.ignore_patterns("checkpoints"))
    (run / "eval-test.json").write_text(json.dumps({"bleu": 41.9, "chrf": 61.0, "pairs": 9}))
    (run / "metrics.csv").write_text("not,a\nmetrics,file\n")  # damaged: no training figures
    with TestClient(model_app(run), raise_server_exceptions=False) as client:
        wait_healthy(client)
        info = client.get("/model").json()
    assert info["format"] == "mt run" and info["architecture"]["d_model"] == 64
    assert info["evaluation"] == {"file": "eval-test.json", "bleu": 41.9, "chrf": 61.0, "pairs": 9}
    assert "steps" not in info["training"]


# ----- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "content_type", "says"),
    [
        (b'{"q": "Hi",', "application/json", "not valid JSON"),
        (b'["Hi"]', "application/json", "must be an object"),
        (b"\xff\xfe", "application/json", "UTF-8"),
        (b"{}", "application/json", "missing q"),
        (b'{"q": 5}', "application/json", "q must be a string or an array"),
        (b'{"q": ["a", 1]}', "application/json", "q must be a string or an array"),
        (b'{"q": "Hi", "source": "fr"}', "application/json", "en → es"),
        (b'{"q": "Hi", "target": "de"}', "application/json", "en → es"),
        (b'{"q": "Hi", "format": "xml"}', "application/json", "format must be text or html"),
        (b'{"q": "Hi", "alternatives": -1}', "application/json", "alternatives"),
        (b'{"q": "Hi", "alternatives": true}', "application/json", "alternatives"),
        (b'{"q": "Hi", "api_key": 7}', "application/json", "api_key must be a string"),
        (b"q=Hi&alternatives=many", "application/x-www-form-urlencoded", "alternatives"),
        (b"<q>Hi</q>", "application/xml", "cannot read a application/xml body"),
    ],
)
def test_bad_bodies_are_400_with_one_sentence(tmp_path, body, content_type, says) -> None:
    with scripted_client(tmp_path) as client:
        wait_healthy(client)
        response = client.post("/translate", content=body, headers={"Content-Type": content_type})
    assert says in error_of(response, 400)


def test_api_key_is_required_and_checked(tmp_path) -> None:
    with scripted_client(tmp_path, api_key="s3cret") as client:
        wait_healthy(client)
        assert "missing api_key" in error_of(client.post("/translate", json={"q": "a"}), 403)
        wrong = client.post("/translate", json={"q": "a", "api_key": "s3cre"})
        assert "wrong api_key" in error_of(wrong, 403)
        form = client.post("/translate", data={"q": "a", "api_key": "s3cret"})
        assert form.json() == {
            "translatedText": "A",
            "detectedLanguage": detected_language("a"),
            "confidence": None,  # the scripted translator judges nothing
            "flags": [],
        }
        assert client.get("/model").json()["api_key_required"] is True


def test_size_limits_are_413(tmp_path) -> None:
    limits = Limits(max_chars=20, max_items=3, max_body_bytes=200)
    with scripted_client(tmp_path, limits=limits) as client:
        wait_healthy(client)
        chars = client.post("/translate", json={"q": ["a" * 15, "b" * 6]})
        assert "21 characters" in error_of(chars, 413) and "at most 20" in error_of(chars, 413)
        items = client.post("/translate", json={"q": ["a", "b", "c", "d"]})
        assert "4 texts" in error_of(items, 413)
        body = client.post("/translate", json={"q": "a", "pad": "x" * 300})
        assert "more than 200 bytes" in error_of(body, 413)
        assert client.post("/translate", json={"q": ["a" * 10, "b" * 10]}).status_code == 200


def test_rate_limit_is_429_per_client_with_retry_after(tmp_path) -> None:
    with scripted_client(tmp_path, limits=Limits(per_minute=2)) as client:
        wait_healthy(client)
        assert [client.post("/translate", json={"q": "a"}).status_code for _ in range(2)] == [
            200,
            200,
        ]
        third = client.post("/translate", json={"q": "a"})
        assert "2 requests per minute" in error_of(third, 429)
        assert int(third.headers["retry-after"]) >= 1
        assert client.get("/health").status_code == 200  # only /translate is counted


def test_unknown_paths_and_methods_answer_json(tmp_path) -> None:
    with scripted_client(tmp_path) as client:
        assert "no such endpoint" in error_of(client.get("/nowhere"), 404)
        assert "not allowed" in error_of(client.get("/translate"), 405)


def test_503_while_loading_then_ok(tmp_path) -> None:
    translator = ScriptedTranslator()
    gate = threading.Event()

    def slow_load():
        gate.wait(10)
        return translator

    from mt.serving.app import create_app

    app = create_app(slow_load, Limits(), model=None, decode=DECODE, log_line=lambda line: None)
    with TestClient(app) as client:
        assert "loading" in error_of(client.get("/health"), 503)
        assert "loading" in error_of(client.post("/translate", json={"q": "a"}), 503)
        assert "loading" in error_of(client.get("/model"), 503)
        gate.set()
        wait_healthy(client)
        assert client.post("/translate", json={"q": "a"}).json()["translatedText"] == "A"
        app.state.service.shutting_down = True
        assert "shutting down" in error_of(client.get("/health"), 503)


def test_a_model_that_fails_to_load_is_named_in_503(tmp_path) -> None:
    from mt.errors import MtError
    from mt.serving.app import create_app

    def broken():
        raise MtError("run is incomplete: missing best.safetensors")

    failures = []
    app = create_app(
        broken,
        Limits(),
        model=None,
        decode=DECODE,
        on_failure=failures.append,
        log_line=lambda line: None,
    )
    with TestClient(app) as client:
        app.state.service.worker._thread.join(10)
        assert "missing best.safetensors" in error_of(client.get("/health"), 503)
    assert failures == ["run is incomplete: missing best.safetensors"]


def test_timeout_is_503_and_the_server_keeps_serving(tmp_path) -> None:
    translator = ScriptedTranslator(delay=0.5)
    with scripted_client(tmp_path, translator, limits=Limits(timeout=0.1)) as client:
        wait_healthy(client)
        assert "0.1 s limit" in error_of(client.post("/translate", json={"q": "slow"}), 503)
        translator.delay = 0.0
        while translator.finished == 0:  # the abandoned job's model call ends first
            time.sleep(0.01)
        assert client.post("/translate", json={"q": "fast"}).json()["translatedText"] == "FAST"


def test_a_decoding_bug_is_500_without_a_traceback(tmp_path) -> None:
    with scripted_client(tmp_path, ScriptedTranslator(fail=True)) as client:
        wait_healthy(client)
        assert "internal error" in error_of(client.post("/translate", json={"q": "a"}), 500)


# ----- log and page ------------------------------------------------------------------------------


@pytest.mark.parametrize("log_text", [False, True])
def test_one_log_line_per_request_and_text_only_when_asked(tmp_path, log_text: bool) -> None:
    lines: list[str] = []
    app = scripted_app(ScriptedTranslator(), tmp_path, log_text=log_text, log_line=lines.append)
    with TestClient(app) as client:
        wait_healthy(client)
        lines.clear()
        client.post("/translate", json={"q": ["secret words", "", "more"]})
        client.post("/translate", json={"q": "x", "source": "fr"})
    assert len(lines) == 2, lines
    assert " POST /translate 200 2 sentences " in lines[0]
    assert " POST /translate 400 " in lines[1]
    assert ("secret words" in lines[0]) == log_text


def test_the_page_is_self_contained(tmp_path) -> None:
    with scripted_client(tmp_path) as client:
        page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    for part in ('<textarea id="source"', 'id="translate"', 'id="copy"', 'id="alternatives"'):
        assert part in html
    assert "http://" not in html and "https://" not in html  # no CDN: works offline


def test_an_exported_directory_is_served_like_a_run(trained_run: Path, tmp_path: Path) -> None:
    """`mt serve DIR` on an `mt export` directory: same API, its format in /model."""
    from conftest import run_cli

    exported = tmp_path / "export"
    run_cli("export", trained_run, "--out", exported, "--quantization", "float32")
    opened = open_translator(resolve(exported), TranslateOptions(decode=DECODE), device="cpu")
    expected = [t.text for t in opened.translate(["Hi."])]
    with TestClient(model_app(exported)) as client:
        wait_healthy(client)
        assert client.post("/translate", json={"q": "Hi."}).json()["translatedText"] == expected[0]
        info = client.get("/model").json()
    assert info["format"] == "mt-ctranslate2" and info["disk_bytes"] > 0
    assert info["engine"]["quantization"] == "float32"
    assert info["parameters"] == client_parameters(trained_run)
    assert info["vocabulary"] == {"source": 150, "target": 180}


def client_parameters(run: Path) -> int:
    with TestClient(model_app(run)) as client:
        wait_healthy(client)
        return client.get("/model").json()["parameters"]


def test_the_app_module_imports_neither_torch_nor_numpy() -> None:
    """`mt serve` with the shipped model searches its int8 copy: the server needs neither, and
    numpy alone was 0.14 s of its start (the aligner now imports it when it aligns)."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import mt.serving.app"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert "mt.serving.app" in imported
    assert "numpy" not in imported and "torch" not in imported
