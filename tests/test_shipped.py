"""The model mt ships (src/mt/shipped/): it opens by name and by default, translates a fixed set of
sentences to fixed greedy outputs, its PyTorch and CTranslate2 paths agree, the commands use it
with no model argument, and its card's figures are the ones its benchmark files hold."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from mt.catalog.cards import SCORES, SPEED, render_card, scores_from, speed_from
from mt.catalog.direction import FORWARD
from mt.catalog.modelinfo import CARD_JSON, CARD_MD, DEFAULT_MODEL, resolve, shipped_names
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from serve_support import free_port, wait_healthy

GREEDY = {
    "Where is the train station?": "¿Dónde está la estación de tren?",
    "I don't like coffee.": "No me gusta el café.",
    "The committee approved the report on Tuesday.": "El comité aprobó el informe el martes.",
    "Save the document before closing it.": "Guarde el documento antes de cerrarlo.",
    "Tom is reading a book in the garden.": "Tom está leyendo un libro en el jardín.",
    "Congratulations!": "¡Felicitaciones!",  # version 12: "¡Felulaciones!"
    "Please stop.": "Por favor, para.",  # version 12: "Por favor, pareja."
}
"""Fixed sentences and the shipped model's greedy output (fp32 on a CPU): a change in the model,
its tokenizers or the search shows here."""


@pytest.fixture(scope="module")
def greedy():
    options = TranslateOptions(decode=DecodeConfig(beam_size=1, precision="fp32"))
    return open_translator(resolve(None), options, device="cpu", threads=1)


def test_the_default_is_shipped_and_opens_by_name() -> None:
    info = resolve(None)
    assert DEFAULT_MODEL in shipped_names() and info.name == DEFAULT_MODEL
    assert info.kind == "run" and info.direction == FORWARD and info.read_only
    assert info.card["name"] == DEFAULT_MODEL and info.card["summary"]
    assert resolve(DEFAULT_MODEL).directory == info.directory


def test_the_shipped_files_stay_small() -> None:
    folder = resolve(None).directory
    assert sum(path.stat().st_size for path in folder.iterdir()) < 40_000_000  # a version in git


def test_fixed_sentences_translate_to_fixed_greedy_outputs(greedy) -> None:
    outputs = [t.text for t in greedy.translate(list(GREEDY))]
    assert dict(zip(GREEDY, outputs, strict=True)) == GREEDY


def test_pytorch_and_ctranslate2_give_the_same_greedy_translations(greedy, tmp_path: Path) -> None:
    from mt.export.writer import export_run

    export_run(resolve(None), tmp_path / "export", quantization="float32")
    options = TranslateOptions(decode=DecodeConfig(beam_size=1))
    exported = open_translator(resolve(tmp_path / "export"), options, device="cpu", threads=1)
    sentences = list(GREEDY)
    assert [t.text for t in exported.translate(sentences)] == [
        t.text for t in greedy.translate(sentences)
    ]


def test_mt_translate_with_no_model_argument_prints_spanish() -> None:
    mt = Path(sys.executable).with_name("mt")
    sentence = next(iter(GREEDY))
    done = subprocess.run(
        [str(mt), "translate", "--beam-size", "1", "--precision", "fp32", sentence],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == GREEDY[sentence] and "Traceback" not in done.stderr


def test_mt_serve_with_no_model_argument_answers_translate(tmp_path: Path) -> None:
    port = free_port()
    log = (tmp_path / "serve.log").open("w+")
    process = subprocess.Popen(
        [sys.executable, "-m", "mt", "serve", "--port", str(port), "--threads", "1"],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "200"},
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            wait_healthy(client)
            answer = client.post("/translate", json={"q": "Thank you!", "target": "es"})
            assert answer.status_code == 200 and answer.json()["translatedText"]
            model = client.get("/model").json()
            assert model["name"] == DEFAULT_MODEL and model["summary"]
            assert model["engine"] == "ctranslate2 int8"  # its int8 copy, without torch
    finally:
        process.terminate()
        process.wait(30)
    assert f"serving {DEFAULT_MODEL} (" in Path(log.name).read_text()


def test_the_cards_figures_are_its_benchmark_files() -> None:
    folder = resolve(None).directory
    card = json.loads((folder / CARD_JSON).read_text(encoding="utf-8"))
    for part, name in SCORES.items():
        bench = json.loads((folder / name).read_text(encoding="utf-8"))
        assert card["scores"][part] == scores_from(bench)
        assert bench["figures"]["part"] == part and bench["figures"]["run"] == DEFAULT_MODEL
    speed = json.loads((folder / SPEED).read_text(encoding="utf-8"))
    test = json.loads((folder / SCORES["test"]).read_text(encoding="utf-8"))
    assert card["speed"] == speed_from(test, speed)
    assert speed["figures"]["model"] == DEFAULT_MODEL
    assert (folder / CARD_MD).read_text(encoding="utf-8") == render_card(card)


def test_fine_tuning_starts_from_the_shipped_model_by_name(tmp_path: Path) -> None:
    from conftest import cli_output

    corpus = tmp_path / "mine.tsv"
    rows = [
        f"Save file {i} before closing it.\tGuarde el archivo {i} antes de cerrarlo."
        for i in range(300)
    ]
    corpus.write_text("\n".join(rows) + "\n", encoding="utf-8")
    data = tmp_path / "data"
    cli_output("prepare", corpus, "--tokenizers-from", DEFAULT_MODEL, "--out", data)
    prepared = json.loads((data / "prepare.json").read_text(encoding="utf-8"))
    assert prepared["vocabulary"]["from_run"] == DEFAULT_MODEL
    run = tmp_path / "run"
    cli_output("train", data, "--init-from", DEFAULT_MODEL, "--max-steps", "2", "--out", run)
    lineage = json.loads((run / "train.json").read_text(encoding="utf-8"))["lineage"]
    assert lineage["init_from"]["run"] == DEFAULT_MODEL
    assert cli_output("translate", "--model", run, "Save file 3.", "-b", "1").strip()
