"""Starting and resuming runs from Python, without the command line: what `mt train` calls."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import prepare_tiny
from mt.catalog.modelinfo import read_model_config, read_train_config
from mt.config import RNN_CLIP_NORM
from mt.errors import MtError
from mt.storage.files import (
    BEST_WEIGHTS,
    CHECKPOINTS,
    CURVES_PNG,
    LAST_WEIGHTS,
    LEXICON,
    METRICS_CSV,
    MODEL_JSON,
    RUN_FORMAT,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    TRAIN_JSON,
    WORD_STATS,
)
from mt.train.launch import dry_run, train_run
from mt.train.reporting import SilentReporter

TINY = {"max_steps": 3, "batch_size": 16, "lr": 0.5, "warmup": 20}


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("launch")
    out = prepare_tiny(root)
    return out


def test_a_library_call_trains_a_complete_run_directory(prepared: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    summary = train_run(
        prepared=prepared, out=run, preset="thesis-small", changes={**TINY, "layers": 2}
    )
    assert (summary.steps, summary.stop_reason) == (3, "reached --max-steps 3")
    names = {p.name for p in run.iterdir()}
    assert names == {
        MODEL_JSON,
        TRAIN_JSON,
        SOURCE_TOKENIZER,
        TARGET_TOKENIZER,
        LEXICON,
        WORD_STATS,
        BEST_WEIGHTS,
        LAST_WEIGHTS,
        CHECKPOINTS,
        METRICS_CSV,
        CURVES_PNG,
    }
    assert (run / LEXICON).read_bytes() == (prepared / LEXICON).read_bytes()
    assert (run / WORD_STATS).read_bytes() == (prepared / WORD_STATS).read_bytes()
    assert read_model_config(run).layers == 2
    train, prepared_dir = read_train_config(run)
    assert (train.max_steps, train.batch_tokens, prepared_dir) == (3, 0, prepared.resolve())
    assert json.loads((run / MODEL_JSON).read_text())["format_version"] == RUN_FORMAT

    assert summary.throughput is not None and summary.throughput.mfu is None  # a CPU: no peak

    resumed = train_run(
        resume=run, changes={"max_steps": 5}, reporter=SilentReporter(), peak_tflops=2.0
    )
    assert resumed.steps == 5
    assert resumed.throughput is not None and resumed.throughput.peak.tflops == 2.0
    assert resumed.throughput.mfu == pytest.approx(resumed.throughput.tflops / 2.0)
    assert read_train_config(run)[0].max_steps == 3, "train.json keeps what the run started with"


def test_the_recurrent_rule_reaches_the_stored_config(prepared: Path, tmp_path: Path) -> None:
    run = tmp_path / "rnn"
    train_run(prepared=prepared, out=run, preset="rnn-small", changes={**TINY, "max_steps": 1})
    assert read_train_config(run)[0].clip_norm == RNN_CLIP_NORM


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"changes": TINY}, "give the prepared directory and --out RUN"),
        ({"resume": Path("r"), "preset": "default"}, "give no model size, preset or prepared"),
        ({"resume": Path("r"), "changes": {"lr": 0.1}}, "only stopping limits may be given"),
        ({"resume": Path("no-such-run")}, "--resume no-such-run: no such run directory"),
        ({"resume": Path("r"), "peak_tflops": 0.0}, "--peak-tflops must be a positive number"),
    ],
)
def test_what_is_asked_is_checked_before_any_work(arguments: dict, message: str) -> None:
    with pytest.raises(MtError, match=message):
        train_run(**arguments)


def test_a_bad_option_leaves_no_run_directory(prepared: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    with pytest.raises(MtError, match="--d-model 30 is not divisible by --heads 4"):
        train_run(prepared=prepared, out=run, preset="thesis-small", changes={"d_model": 30})
    with pytest.raises(MtError, match="--device must be auto, cpu or cuda"):
        train_run(prepared=prepared, out=run, changes=TINY, device="tpu")
    assert not run.exists()


def test_dry_run_counts_the_parameters_of_the_model_it_would_train(prepared: Path) -> None:
    small, count = dry_run(prepared, "thesis-small")
    larger, more = dry_run(prepared, "thesis-small", {"layers": 2})
    assert (small.layers, larger.layers) == (1, 2) and more > count > 0
    with pytest.raises(MtError, match="--dry-run needs the prepared directory"):
        dry_run(None, None)


def test_inference_and_selection_code_never_load_the_trainer() -> None:
    """Translation, evaluation, the command line and selection stand without mt.train.trainer (so no
    import cycle with selection, and no training code in a served model's process)."""
    code = (
        "import sys, mt.cli.app, mt.evaluate.evaluation, mt.decode.translator, mt.train.selection; "
        "import mt.data.feed.batching; "
        "print(sorted(m for m in ('mt.train.trainer', 'mt.train.launch') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
