"""Directories written before the stage layout (tests/fixtures/legacy, made by commit 8ae3155):
the prepared directory loads as it is; the run and the export are refused with one line that
says to run `mt upgrade`, and once upgraded (copies: the fixture stays as it is) they translate
to the same words, score the same and resume training.

They were also written before lexicons (mt.text.lexicon): upgraded with the prepared directory
their train.json names gone, they get empty tables, the stand-ins go by the built-in lists and
the vocabulary alone, and these inputs translate exactly as they did; with it there, its lexicon
is counted and the stand-ins no longer take the ordinary word "Does".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import LEGACY, cli_output, legacy_copy, run_cli, upgraded_legacy_copy
from mt.data.prepared_dir import load_prepared
from mt.decode.run_tables import lexicon_for, word_stats_for
from mt.text.lexicon import lexicon_of_part
from mt.text.wordstats import word_stats_of_part


def test_an_old_prepared_directory_loads_with_its_arrays() -> None:
    prepared = load_prepared(LEGACY / "data")
    train = prepared.encoded("train", max_src_len=56, max_tgt_len=53)
    assert len(train) == len(prepared.read_part("train")) == 231
    assert prepared.source.vocab_size == 120


@pytest.mark.parametrize("model", ["run", "export"])
def test_an_old_run_and_export_are_sent_to_mt_upgrade(model: str, tmp_path: Path) -> None:
    copy = legacy_copy(tmp_path, model, prepared=LEGACY / "data")
    before = {path: path.read_bytes() for path in copy.rglob("*") if path.is_file()}
    commands = [["translate", "--model", copy, "Hello."], ["evaluate", copy]]
    commands += [["train", "--resume", copy]] if model == "run" else []
    for command in commands:
        lines = run_cli(*command, "--device", "cpu", code=2).output.strip().splitlines()
        assert len(lines) == 1, lines
        assert lines[0].endswith(
            f"run format version 1, this mt reads version 2; run `mt upgrade {copy}`"
        )
    assert {path: path.read_bytes() for path in copy.rglob("*") if path.is_file()} == before


@pytest.mark.parametrize("model", ["run", "export"])
def test_an_old_run_and_export_translate_as_they_did(model: str, tmp_path: Path) -> None:
    # as on a machine where the prepared directory its train.json names (/tmp/legacy/data) is not
    copy = upgraded_legacy_copy(tmp_path, model, prepared=tmp_path / "gone")
    out = tmp_path / "out.es"
    inputs = LEGACY / "inputs.en"
    # The export's int8 weights are read in float32: CTranslate2's int8 kernels differ between
    # CPUs (AVX2, AVX-512) and so do a tiny model's outputs; the files are what must still load.
    precision = ["--compute-type", "float32"] if model == "export" else []
    cli_output("translate", "--model", copy, "--device", "cpu", *precision, "-i", inputs, "-o", out)
    assert out.read_text(encoding="utf-8") == (LEGACY / f"expected.{model}.es").read_text()


def test_an_old_run_counts_the_lexicon_of_its_prepared_directory(tmp_path: Path) -> None:
    run = upgraded_legacy_copy(tmp_path, prepared=LEGACY / "data")
    lexicon = lexicon_for(run)
    assert lexicon == lexicon_of_part(LEGACY / "data" / "train.tsv")
    assert word_stats_for(run) == word_stats_of_part(LEGACY / "data" / "train.tsv")
    assert lexicon.copied_share("Does") == 0.0, "the training pairs translate 'Does'"
    inputs = (LEGACY / "inputs.en").read_text(encoding="utf-8").splitlines()
    before = (LEGACY / "expected.run.es").read_text(encoding="utf-8").splitlines()
    out = tmp_path / "out.es"
    cli_output(
        "translate", "--model", run, "--device", "cpu", "-i", LEGACY / "inputs.en", "-o", out
    )
    now = out.read_text(encoding="utf-8").splitlines()
    for source, old, new in zip(inputs, before, now, strict=True):
        if source.startswith("Does "):
            assert new.startswith("¿") and new.endswith("?"), source
        else:
            assert new == old, source
    assert any(source.startswith("Does ") for source in inputs)


def test_an_old_run_scores_as_it_did(tmp_path: Path) -> None:
    figures = tmp_path / "evaluate.json"
    run = upgraded_legacy_copy(tmp_path, prepared=LEGACY / "data")
    cli_output("evaluate", run, "--device", "cpu", "--json", figures)
    now = json.loads(figures.read_text())
    before = json.loads((LEGACY / "expected.evaluate.json").read_text())
    assert now["pairs"] == before["pairs"]
    for name in ("cross_entropy", "accuracy"):
        assert now[name] == pytest.approx(before[name], abs=1e-6), name
    # The lexicon counted from the data spares "Does" its stand-in: 54.04 -> 57.89 BLEU.
    assert now["bleu"] > before["bleu"] + 3 and now["chrf"] > before["chrf"]


def test_an_old_run_resumes(tmp_path: Path) -> None:
    run = upgraded_legacy_copy(tmp_path, prepared=LEGACY / "data")
    output = cli_output("train", "--resume", run, "--max-steps", "408", "--device", "cpu")
    assert "408 steps" in output
