"""`"source": "auto"`: detectedLanguage comes from the identifier the not_english flag uses, a
real language and confidence for each text, plain or HTML."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from mt.quality.flags import language_of
from mt.serving.detect import detected_language
from serve_support import ScriptedTranslator, scripted_app, wait_healthy

TEXTS = [
    "Where is the train station, please?",
    "Où est la gare, s'il vous plaît ?",
    "¿Dónde está la estación de tren, por favor?",
    "42 + 7",
]


def test_each_text_gets_its_own_language_and_confidence(tmp_path: Path) -> None:
    with TestClient(scripted_app(ScriptedTranslator(), tmp_path)) as client:
        wait_healthy(client)
        answer = client.post("/translate", json={"q": TEXTS, "source": "auto"}).json()
        one = client.post("/translate", json={"q": TEXTS[1], "source": "auto"}).json()
    detected = answer["detectedLanguage"]
    assert [d["language"] for d in detected] == ["en", "fr", "es", "en"]
    assert all(90 < d["confidence"] <= 100 for d in detected[:3])
    assert detected[3]["confidence"] == 0.0  # no letters, no evidence: the served language
    assert one["detectedLanguage"] == detected[1]


def test_the_confidence_is_the_flags_identifiers_probability() -> None:
    for text in ("Hello.", "Ich möchte einen Kaffee, bitte.", TEXTS[0]):
        language, probability = language_of(text)
        assert detected_language(text) == {
            "confidence": round(100 * probability, 1),
            "language": language,
        }
    # a short greeting is not confidently anything: its confidence says so
    assert detected_language("Hello.")["confidence"] < 50


def test_html_is_detected_on_its_words_not_its_markup(tmp_path: Path) -> None:
    html = '<p class="intro">Où est la <b>gare</b>, s\'il vous plaît ?</p>'
    with TestClient(scripted_app(ScriptedTranslator(), tmp_path)) as client:
        wait_healthy(client)
        answer = client.post(
            "/translate", json={"q": html, "source": "auto", "format": "html"}
        ).json()
    assert answer["detectedLanguage"]["language"] == "fr"
    assert answer["detectedLanguage"]["confidence"] > 90
