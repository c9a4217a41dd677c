"""`make bench-train-start`: how soon `mt train` starts, and whether an epoch's start slows it.

    python -m benchmarks.speed.bench_train_start --data runs/model-data \
        [--init-from NAME]    # by default the shipped model

1. `mt train DATA --init-from NAME --max-steps 2` in a new process, as `make model`'s training
   and the chain's links start: seconds from the command to its first step, which the trainer
   prints ("first step N s after the command started"), median of --repeats. Target (issue 53):
   <= 15 s.
2. Epochs: a small model trained for two epochs on the first --pairs pairs of DATA's training part
   (prepared again with the tokenizers of --init-from), with the recipe's placeholders and source
   noise, whose pairs are made as batches read them: each epoch's steps/s from metrics.csv, its
   evaluation left out. Target: the first epoch within 5% of the second.

The figures go to --out/results.json (benchmarks/harness.py); exit status 1 on a missed target.
"""

from __future__ import annotations

import csv
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.catalog.modelinfo import DEFAULT_MODEL
from mt.data.prepared_dir import read_pairs

MT = Path(sys.executable).with_name("mt")
FIRST_STEP = re.compile(r"first step ([\d.]+) s after the command started")
AUGMENTED = ["--source-noise", "0.3", "--source-noise-kinds", "lower,punctuation,apostrophes,typos"]
"""The recipe's noise; placeholders are on by default where the tokenizers have the tokens."""


def first_step(data: Path, init_from: str, out: Path, threads: int) -> tuple[float, float]:
    """(seconds to the first step as the trainer counts them, wall seconds of the command)."""
    command = [str(MT), "train", str(data), "--init-from", init_from, "--max-steps", "2"]
    command += ["--out", str(out), "--threads", str(threads), "--seed", "1"]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - started
    found = FIRST_STEP.search(done.stdout + done.stderr)
    if done.returncode or not found:
        raise SystemExit(f"mt train failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return float(found.group(1)), wall


def epoch_speeds(data: Path, tokenizers: str, pairs: int, work: Path, threads: int) -> list[float]:
    """Steps/s of each of two epochs on the first `pairs` training pairs of `data`, prepared
    with the tokenizers of `tokenizers` (a model: those of `data` where it continues them)."""
    subset = work / "subset.tsv"
    rows = read_pairs(data / "train.tsv")[:pairs]
    subset.write_text("".join(f"{en}\t{es}\n" for en, es in rows), encoding="utf-8")
    prepared, run = work / "subset-data", work / "epochs"
    subprocess.run(
        [str(MT), "prepare", str(subset), "--tokenizers-from", tokenizers, "--no-extend"]
        + ["--out", str(prepared)],
        check=True,
        capture_output=True,
    )
    subprocess.run(
        [str(MT), "train", str(prepared), "--out", str(run), "--max-epochs", "2"]
        + ["--d-model", "64", "--ff", "128", "--heads", "4", "--layers", "1", "--patience", "0"]
        + ["--threads", str(threads), "--seed", "1", "--eval-sample", "200", *AUGMENTED],
        check=True,
        capture_output=True,
    )
    with (run / "metrics.csv").open(encoding="utf-8") as file:
        ends = [row for row in csv.DictReader(file) if float(row["epoch"]).is_integer()]
    speeds, before = [], {"step": 0.0, "elapsed": 0.0, "eval_seconds": 0.0}
    for row in ends[:2]:
        spent = float(row["elapsed"]) - before["elapsed"]
        spent -= float(row["eval_seconds"] or 0) - before["eval_seconds"]
        speeds.append((int(row["step"]) - before["step"]) / spent)
        before = {key: float(row[key] or 0) for key in before}
    return speeds


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_data(parser, required=True, help="make model's prepared directory")
    parser.add_argument("--init-from", default=DEFAULT_MODEL, help="the model continued")
    parser.add_argument("--repeats", type=int, default=3, help="starts timed (the median counts)")
    parser.add_argument("--pairs", type=int, default=6400, help="pairs of the epochs part")
    harness.add_threads(parser, default=2)
    harness.add_out(parser, Path("bench/train-start"))
    args = parser.parse_args(argv)
    print(harness.machine_line(args.threads), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        starts = [
            first_step(args.data, args.init_from, work / f"start-{n}", args.threads)
            for n in range(args.repeats)
        ]
        for seconds, wall in starts:
            print(f"first step {seconds:.1f} s after the command (the command: {wall:.1f} s)")
        speeds = epoch_speeds(args.data, str(args.init_from), args.pairs, work, args.threads)
    print(f"epoch 1: {speeds[0]:.2f} steps/s, epoch 2: {speeds[1]:.2f} steps/s")
    median = statistics.median(seconds for seconds, _ in starts)
    figures = {
        "data": str(args.data),
        "init_from": args.init_from,
        "first_step_seconds": [seconds for seconds, _ in starts],
        "first_step_median": median,
        "command_seconds": [wall for _, wall in starts],
        "epoch_steps_per_second": speeds,
    }
    targets = [
        Target("first step, seconds after the command (median)", median, "<=", 15.0),
        Target("epoch 1 steps/s / epoch 2's - 1", speeds[0] / speeds[1] - 1, "within", 0.05),
    ]
    return report(args.out / "results.json", figures, targets, threads=args.threads)


if __name__ == "__main__":
    sys.exit(main())
