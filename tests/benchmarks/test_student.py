"""The never-ending student run's pieces (benchmarks.quality.student, dev_curve): it starts as the
grown shipped model and resumes once claimed, counts the CPU of its whole process tree, and its
dev curve keeps every earlier point."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from benchmarks.quality.dev_curve import (
    COLUMNS,
    append_rows,
    averaged_copy,
    last_step,
    plot_curve,
)
from benchmarks.quality.student import BASE, GROWTH, train_command, tree_cpu_seconds
from mt.model.checkpoint import load_tensors, save_tensors
from mt.train.run_config import FINETUNE_WARMUP


def options(run: Path, anneal_from: Path | None = None) -> argparse.Namespace:
    return argparse.Namespace(
        data=Path("prepared"), run=run, batch_size=128, eval_every=250, seed=11, threads=2,
        anneal_from=anneal_from, anneal_steps=1500,
    )  # fmt: skip


def test_the_run_starts_grown_from_the_shipped_model_and_resumes_once_claimed(
    tmp_path: Path,
) -> None:
    first = train_command(options(tmp_path / "student"))
    assert first[first.index("--init-from") + 1] == BASE
    assert " ".join(GROWTH) in " ".join(first) and "--resume" not in first
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "train.json").write_text("{}")
    again = train_command(options(tmp_path / "student"))
    assert again[again.index("--resume") + 1] == str(tmp_path / "student")
    assert "--init-from" not in again


def test_an_annealed_branch_starts_at_the_rate_its_run_has_reached(tmp_path: Path) -> None:
    base = tmp_path / "student"
    base.mkdir()
    (base / "metrics.csv").write_text("step,lr\n250,0.0004\n500,0.0003\n")
    first = train_command(options(tmp_path / "anneal", anneal_from=base))
    assert first[first.index("--init-from") + 1] == str(base)
    peak = float(first[first.index("--lr") + 1]) * FINETUNE_WARMUP**-0.5
    assert peak == pytest.approx(0.0003)
    assert first[first.index("--max-steps") + 1] == "1500"
    assert first[first.index("--lr-decay") + 1] == "budget" and "--encoder-layers" not in first


def test_the_cpu_of_a_working_child_counts() -> None:
    burn = "import time\nend = time.process_time() + 0.6\nwhile time.process_time() < end: pass"
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}]); input()",
        ],
        stdin=subprocess.PIPE,
    )
    try:
        for _ in range(200):
            seconds = tree_cpu_seconds(parent.pid)
            if seconds >= 0.6:
                break
            os.sched_yield()
            subprocess.run(["sleep", "0.05"], check=True)
        assert seconds >= 0.6  # the grandchild's burn, waited for, is in the parent's tree
    finally:
        parent.communicate(b"\n", timeout=30)


def test_the_curve_keeps_its_points_and_is_drawn(tmp_path: Path) -> None:
    assert last_step(tmp_path) == 0
    (tmp_path / "metrics.csv").write_text("step,epoch\n250,0.1\n500,0.2\n")
    assert last_step(tmp_path) == 500
    row = {"utc": "t", "step": 250, "cpu_hours": 1.0, "set": "news", "pairs": 9}
    curve = tmp_path / "dev-curve.csv"  # one written before the weights column
    curve.write_text(",".join(COLUMNS[:-1]) + "\nt,0,0.0,news,9,9.5,39.0\n")
    append_rows(curve, [{**row, "bleu": 10.0, "chrf": 40.0, "weights": "last"}])
    average = "average of steps 250/500"
    append_rows(curve, [{**row, "cpu_hours": 2.0, "bleu": 11.5, "chrf": 41, "weights": average}])
    lines = curve.read_text().splitlines()
    assert lines[0] == ",".join(COLUMNS) and len(lines) == 4
    assert lines[1].endswith(",9.5,39.0,last")
    assert lines[3].split(",")[2:] == ["2.0", "news", "9", "11.5", "41", average]
    plot_curve(tmp_path / "dev-curve.csv", tmp_path / "curve.png")
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")


def test_the_averaged_copy_is_a_model_whose_best_weights_are_the_snapshots_mean(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run"
    (run / "snapshots").mkdir(parents=True)
    (run / "model.json").write_text("{}")
    (run / "words.tsv").write_text("a\t1\n")
    (run / "metrics.csv").write_text("step\n")
    assert averaged_copy(run, tmp_path) is None  # no snapshots: the last checkpoint is scored
    for step, value in ((250, 1.0), (500, 3.0)):
        tensors = {"w": torch.full((2, 2), value)}
        save_tensors(run / "snapshots" / f"step-{step:08d}.safetensors", tensors)
    (tmp_path / "out").mkdir()
    copy, weights = averaged_copy(run, tmp_path / "out")
    assert weights == "average of steps 250/500"
    assert sorted(p.name for p in copy.iterdir()) == ["best.safetensors", "model.json", "words.tsv"]
    best, metadata = load_tensors(copy / "best.safetensors")
    assert torch.equal(best["w"], torch.full((2, 2), 2.0)) and metadata["format_version"]
