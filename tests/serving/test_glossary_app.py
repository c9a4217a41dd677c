"""The `glossary` request field: pairs, or the name of a glossary loaded at start."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from mt.decode.glossary import Glossary, Term
from serve_support import model_app, wait_healthy


@pytest.fixture(scope="module")
def client(trained_run: Path):
    named = {
        "art": Glossary([Term("museum", "pinacoteca")], "art"),
        "": Glossary([Term("station", "apeadero")], "default"),
    }
    with TestClient(model_app(trained_run, glossaries=named)) as client:
        wait_healthy(client)
        yield client


def _translate(client: TestClient, **fields) -> str:
    response = client.post("/translate", json={"q": "Where is the museum, Nadia?", **fields})
    assert response.status_code == 200, response.text
    return response.json()["translatedText"]


def test_pairs_a_name_and_the_default_glossary(client: TestClient) -> None:
    assert "galería" in _translate(client, glossary=[["museum", "galería"]])
    assert "pinacoteca" in _translate(client, glossary="art")
    response = client.post("/translate", json={"q": ["Where is the station?", "Thanks."]})
    assert "apeadero" in response.json()["translatedText"][0]


@pytest.mark.parametrize(
    ("glossary", "says"),
    [
        ("films", "no glossary named 'films' (this server has: art)"),
        ([["museum"]], "glossary must be a name or a list of [english, spanish] pairs"),
        ([["museum", ""]], "glossary: pair 1: the Spanish term for 'museum' is empty"),
        ({"museum": "galería"}, "glossary must be a name or a list"),
    ],
)
def test_a_bad_glossary_is_400_with_one_sentence(client: TestClient, glossary, says) -> None:
    response = client.post("/translate", json={"q": "Hello.", "glossary": glossary})
    assert response.status_code == 400 and response.json()["error"].startswith(says)
