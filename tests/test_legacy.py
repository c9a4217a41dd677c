"""Directories written before the stage layout (tests/fixtures/legacy, made by commit 8ae3155):
the prepared directory loads as it is; the run and the export, rewritten in today's format (with
empty lexicon.tsv and words.tsv: their training data is gone), translate to the same words, score
the same and resume training.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import LEGACY, cli_output, legacy_copy
from mt.data.prepared_dir import load_prepared


def test_an_old_prepared_directory_loads_with_its_arrays() -> None:
    prepared = load_prepared(LEGACY / "data")
    train = prepared.encoded("train", max_src_len=56, max_tgt_len=53)
    assert len(train) == len(prepared.read_part("train")) == 231
    assert prepared.source.vocab_size == 120


@pytest.mark.parametrize("model", ["run", "export"])
def test_an_old_run_and_export_translate_as_they_did(model: str, tmp_path: Path) -> None:
    # as on a machine where the prepared directory its train.json names (/tmp/legacy/data) is not
    copy = legacy_copy(tmp_path, model, prepared=tmp_path / "gone")
    out = tmp_path / "out.es"
    inputs = LEGACY / "inputs.en"
    # The export's int8 weights are read in float32: CTranslate2's int8 kernels differ between
    # CPUs (AVX2, AVX-512) and so do a tiny model's outputs; the files are what must still load.
    precision = ["--compute-type", "float32"] if model == "export" else []
    cli_output("translate", "--model", copy, "--device", "cpu", *precision, "-i", inputs, "-o", out)
    assert out.read_text(encoding="utf-8") == (LEGACY / f"expected.{model}.es").read_text()


def test_an_old_run_scores_as_it_did(tmp_path: Path) -> None:
    figures = tmp_path / "evaluate.json"
    run = legacy_copy(tmp_path, prepared=LEGACY / "data")
    cli_output("evaluate", run, "--device", "cpu", "--json", figures)
    now = json.loads(figures.read_text())
    before = json.loads((LEGACY / "expected.evaluate.json").read_text())
    assert now["pairs"] == before["pairs"]
    for name in ("cross_entropy", "accuracy"):
        assert now[name] == pytest.approx(before[name], abs=1e-6), name


def test_an_old_run_resumes(tmp_path: Path) -> None:
    run = legacy_copy(tmp_path, prepared=LEGACY / "data")
    output = cli_output("train", "--resume", run, "--max-steps", "408", "--device", "cpu")
    assert "408 steps" in output
