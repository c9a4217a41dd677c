"""Directories written before the stage layout (tests/fixtures/legacy, made by commit 8ae3155)
still load, translate to the same words, score the same and resume training."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import cli_output
from mt.data.prepared_dir import load_prepared

LEGACY = Path(__file__).parent / "fixtures" / "legacy"


def test_an_old_prepared_directory_loads_with_its_arrays() -> None:
    prepared = load_prepared(LEGACY / "data")
    train = prepared.encoded("train", max_src_len=56, max_tgt_len=53)
    assert len(train) == len(prepared.read_part("train")) == 231
    assert prepared.source.vocab_size == 120


@pytest.mark.parametrize("model", ["run", "export"])
def test_an_old_run_and_export_translate_as_they_did(model: str, tmp_path: Path) -> None:
    out = tmp_path / "out.es"
    inputs = LEGACY / "inputs.en"
    cli_output("translate", LEGACY / model, "--device", "cpu", "-i", inputs, "-o", out)
    assert out.read_text(encoding="utf-8") == (LEGACY / f"expected.{model}.es").read_text()


def test_an_old_run_scores_as_it_did(tmp_path: Path) -> None:
    figures = tmp_path / "evaluate.json"
    run = tmp_path / "run"
    shutil.copytree(LEGACY / "run", run)
    _point_at_legacy_data(run)
    cli_output("evaluate", run, "--device", "cpu", "--json", figures)
    now = json.loads(figures.read_text())
    before = json.loads((LEGACY / "expected.evaluate.json").read_text())
    for name in ("pairs", "bleu", "chrf", "ter"):
        assert now[name] == before[name], name
    for name in ("cross_entropy", "accuracy"):
        assert now[name] == pytest.approx(before[name], abs=1e-6), name


def test_an_old_run_resumes(tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(LEGACY / "run", run)
    _point_at_legacy_data(run)
    output = cli_output("train", "--resume", run, "--max-steps", "408", "--device", "cpu")
    assert "408 steps" in output


def _point_at_legacy_data(run: Path) -> None:
    """The copied run's train.json names the prepared directory where the fixture was made."""
    path = run / "train.json"
    data = json.loads(path.read_text())
    data["prepared"] = str(LEGACY / "data")
    path.write_text(json.dumps(data))
