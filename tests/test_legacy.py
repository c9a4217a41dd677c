"""Directories written before the stage layout (tests/fixtures/legacy, made by commit 8ae3155)
still load, translate to the same words, score the same and resume training.

They were also written before lexicons (mt.text.lexicon): with the prepared directory their
train.json names gone, the stand-ins go by the built-in lists and the vocabulary alone, and these
inputs translate exactly as they did; with it there, its lexicon is counted and the stand-ins no
longer take the ordinary word "Does".
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import cli_output
from mt.checksums import write_checksums
from mt.config import DecodeConfig
from mt.data.prepared_dir import load_prepared
from mt.decode.placeholders import protect
from mt.decode.translator import open_translator
from mt.text.lexicon import NO_LEXICON, lexicon_of_part

LEGACY = Path(__file__).parent / "fixtures" / "legacy"


def test_an_old_prepared_directory_loads_with_its_arrays() -> None:
    prepared = load_prepared(LEGACY / "data")
    train = prepared.encoded("train", max_src_len=56, max_tgt_len=53)
    assert len(train) == len(prepared.read_part("train")) == 231
    assert prepared.source.vocab_size == 120


@pytest.mark.parametrize("model", ["run", "export"])
def test_an_old_run_and_export_translate_as_they_did(model: str, tmp_path: Path) -> None:
    copy = tmp_path / model
    shutil.copytree(LEGACY / model, copy)
    _point_at(copy, tmp_path / "gone")  # as on a machine where /tmp/legacy/data is not
    out = tmp_path / "out.es"
    inputs = LEGACY / "inputs.en"
    # The export's int8 weights are read in float32: CTranslate2's int8 kernels differ between
    # CPUs (AVX2, AVX-512) and so do a tiny model's outputs; the files are what must still load.
    precision = ["--compute-type", "float32"] if model == "export" else []
    cli_output("translate", copy, "--device", "cpu", *precision, "-i", inputs, "-o", out)
    assert out.read_text(encoding="utf-8") == (LEGACY / f"expected.{model}.es").read_text()


def test_an_old_run_counts_the_lexicon_of_its_prepared_directory(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(LEGACY / "run", run)
    _point_at(run, LEGACY / "data")
    translator = open_translator(run, DecodeConfig(), device="cpu")
    assert translator.protectable.lexicon == lexicon_of_part(LEGACY / "data" / "train.tsv")
    inputs = (LEGACY / "inputs.en").read_text(encoding="utf-8").splitlines()
    before = (LEGACY / "expected.run.es").read_text(encoding="utf-8").splitlines()
    for source, old, new in zip(inputs, before, translator.translate(inputs), strict=True):
        protected, _ = protect(source, translator.protectable)
        if source.startswith("Does "):
            assert protected.startswith("Does "), "the training pairs translate 'Does'"
            assert new.text.startswith("¿") and new.text.endswith("?")
        else:
            assert new.text == old, source
    gone = tmp_path / "gone"
    _point_at(run, gone)
    assert open_translator(run, DecodeConfig(), device="cpu").protectable.lexicon is NO_LEXICON


def test_an_old_run_scores_as_it_did(tmp_path: Path) -> None:
    figures = tmp_path / "evaluate.json"
    run = tmp_path / "run"
    shutil.copytree(LEGACY / "run", run)
    _point_at(run, LEGACY / "data")
    cli_output("evaluate", run, "--device", "cpu", "--json", figures)
    now = json.loads(figures.read_text())
    before = json.loads((LEGACY / "expected.evaluate.json").read_text())
    assert now["pairs"] == before["pairs"]
    for name in ("cross_entropy", "accuracy"):
        assert now[name] == pytest.approx(before[name], abs=1e-6), name
    # The lexicon counted from the data spares "Does" its stand-in: 54.04 -> 57.89 BLEU.
    assert now["bleu"] > before["bleu"] + 3 and now["chrf"] > before["chrf"]


def test_an_old_run_resumes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(LEGACY / "run", run)
    _point_at(run, LEGACY / "data")
    output = cli_output("train", "--resume", run, "--max-steps", "408", "--device", "cpu")
    assert "408 steps" in output


def _point_at(model: Path, prepared: Path) -> None:
    """The copied run's or export's train.json made to name `prepared` (an export's checksums
    then listed again)."""
    path = model / "train.json"
    data = json.loads(path.read_text())
    data["prepared"] = str(prepared)
    path.write_text(json.dumps(data))
    if (model / "checksums.sha256").exists():
        write_checksums(model)
