"""Tokens/s, model TFLOP/s and MFU (mt.train.throughput): the arithmetic, the metrics rows a run
writes, a resumed older run, and metrics.csv files written before the columns existed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import LEGACY
from mt.catalog.modelinfo import resolve
from mt.model.rundir import write_metrics
from mt.storage.files import CHECKPOINTS, METRICS_CSV, read_metrics
from mt.train.flops import TokenCounts
from mt.train.peaks import Peak
from mt.train.plots import plot_curves
from mt.train.throughput import RATE_COLUMNS, Throughput
from train_support import copy_task, make_trainer


def test_rates_and_mfu_of_a_measured_window() -> None:
    tokens = TokenCounts(sentences=10, source=100, target=60)
    measured = Throughput(2.0, tokens, 4 * 10**12, Peak(10.0, "--peak-tflops"))
    assert measured.tokens_per_second == 80 and measured.target_tokens_per_second == 30
    assert measured.tflops == 2.0 and measured.mfu == pytest.approx(0.2)
    assert measured.columns() == dict(zip(RATE_COLUMNS, (80, 30, 2.0, 0.2), strict=True))
    assert "MFU 20.00% of 10 TFLOP/s" in measured.describe()

    two_devices = Throughput(2.0, tokens, 4 * 10**12, Peak(10.0, "x"), devices=2)
    assert two_devices.mfu == pytest.approx(0.1)  # each device's peak counts

    unknown = Throughput(2.0, tokens, 4 * 10**12, Peak(None, "no peak known for a cpu"))
    assert "mfu" not in unknown.columns() and "MFU n/a" in unknown.describe()


def test_a_run_records_its_tokens_and_rates_in_every_row(tmp_path: Path) -> None:
    trainer = make_trainer(tmp_path, copy_task(100, seed=3), max_steps=12, eval_every=4)
    trainer.train()
    rows = read_metrics(tmp_path)
    totals = [(row["source_tokens"], row["target_tokens"]) for row in rows]
    assert totals == sorted(totals) and len(set(totals)) == len(totals)
    # the copy task's target is its source, each side with one end label: the sides agree,
    # and both agree with the real target positions the loop counts for the padding share
    assert totals[-1] == (trainer.target_positions[0], trainer.target_positions[0])
    for row in rows:
        assert row["source_target_tokens_per_second"] > row["target_tokens_per_second"] > 0
        assert row["model_tflop_per_second"] > 0 and "mfu" not in row  # a CPU: no peak
    summary = trainer.meter.summary()
    assert summary is not None and summary.tokens.target == totals[-1][1]
    assert summary.seconds == pytest.approx(rows[-1]["elapsed"] - rows[-1]["eval_seconds"])


def test_a_given_peak_gives_the_mfu_of_every_row(tmp_path: Path) -> None:
    trainer = make_trainer(
        tmp_path, copy_task(60, seed=3), max_steps=4, eval_every=2, peak_tflops=0.5
    )
    trainer.train()
    rows = read_metrics(tmp_path)
    assert len(rows) == 2  # one a selection evaluation, every 2 of the 4 steps
    for row in rows:
        assert row["mfu"] == pytest.approx(row["model_tflop_per_second"] / 0.5)


def test_a_run_from_before_the_counts_resumes_and_counts_from_there(tmp_path: Path) -> None:
    data = copy_task(100, seed=1)
    make_trainer(tmp_path, data, max_steps=6, eval_every=3).train()
    old_columns = ("source_tokens", "target_tokens", *RATE_COLUMNS)
    for state_file in (tmp_path / CHECKPOINTS).glob("*.json"):  # as an older mt saved them
        state = json.loads(state_file.read_text())
        for key in ("source_tokens", "target_tokens"):
            del state["progress"][key]
        for row in state["progress"]["history"]:
            for key in old_columns:
                row.pop(key, None)
        state_file.write_text(json.dumps(state))

    resumed = make_trainer(tmp_path, data, max_steps=9, eval_every=3)
    resumed.restore()
    resumed.train()
    rows = read_metrics(tmp_path)
    before = [row for row in rows if row["step"] <= 6]
    assert len(before) == 2 and all(key not in row for row in before for key in old_columns)
    assert all("mfu" not in row and row["target_tokens"] > 0 for row in rows[2:])
    assert rows[-1]["target_tokens"] == resumed.target_positions[0]  # the steps since the resume


@pytest.mark.parametrize("run", [LEGACY / "run", None], ids=["legacy", "shipped"])
def test_metrics_written_before_the_new_columns_still_read(run: Path | None, tmp_path) -> None:
    run = run or resolve().directory  # the shipped model: the GPU run of docs/release.md's link 2
    rows = read_metrics(run)
    assert rows and all("tokens_per_second" in row and "mfu" not in row for row in rows)
    plot_curves(rows, tmp_path / "curves.png")
    write_metrics(tmp_path, rows)  # a resumed older run writes its old rows with blanks
    assert read_metrics(tmp_path) == rows
    header = (tmp_path / METRICS_CSV).read_text().splitlines()[0]
    assert header.endswith(",source_tokens,target_tokens," + ",".join(RATE_COLUMNS))
