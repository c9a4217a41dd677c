"""The never-ending student run's pieces (benchmarks.quality.student, dev_curve): it starts as the
grown shipped model and resumes once claimed, counts the CPU of its whole process tree, and its
dev curve keeps every earlier point."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from benchmarks.quality.dev_curve import COLUMNS, append_rows, last_step, plot_curve
from benchmarks.quality.student import BASE, GROWTH, train_command, tree_cpu_seconds


def options(run: Path) -> argparse.Namespace:
    return argparse.Namespace(
        data=Path("prepared"), run=run, batch_size=128, eval_every=250, seed=11, threads=2
    )


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
    append_rows(tmp_path / "dev-curve.csv", [{**row, "bleu": 10.0, "chrf": 40.0}])
    append_rows(tmp_path / "dev-curve.csv", [{**row, "cpu_hours": 2.0, "bleu": 11.5, "chrf": 41}])
    lines = (tmp_path / "dev-curve.csv").read_text().splitlines()
    assert lines[0] == ",".join(COLUMNS) and len(lines) == 3
    assert lines[2].split(",")[2:6] == ["2.0", "news", "9", "11.5"]
    plot_curve(tmp_path / "dev-curve.csv", tmp_path / "curve.png")
    assert (tmp_path / "curve.png").read_bytes().startswith(b"\x89PNG")
