"""Training that never stops (issue 75): the deep-encoder student started, or resumed where it
stopped, at the lowest CPU priority, and its dev curve scored every CPU-hour it has had.

The student is the shipped model grown (mt.train.depth_growth, mt.train.width_growth): 6+2
layers, perceptrons of 1536, translating exactly as the shipped model before its first step.
Its CPU time (the training process and its workers, from /proc) is added to RUN/cpu.json each
minute, so the hours add up across sessions; at each whole CPU-hour
benchmarks.quality.dev_curve scores the newest checkpoint. Run it first thing in a session, in
the background, and let it end with the session: `mt train --resume` goes on from the last
evaluation, bit for bit.

    nohup python -m benchmarks.quality.student --data runs/student-data --run runs/student &

A ship candidate is a branch of it whose rate falls to 0 (`make student-anneal`): --anneal-from
RUN --anneal-steps N starts `mt train --init-from RUN` (its best weights, a new seed so the data
comes in a new order) at the rate RUN has reached and ends it N steps later; it is resumed,
counted and scored the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import harness
from mt.catalog.modelinfo import DEFAULT_MODEL
from mt.storage.atomic import atomic_write_text
from mt.storage.files import CPU_LEDGER, read_metrics
from mt.train.run_config import FINETUNE_WARMUP

BASE = DEFAULT_MODEL
GROWTH = ("--encoder-layers", "6", "--ff", "1536")
TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float:
    """User and system time of `pid` and every live process below it, and of the children it
    has already waited for."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    total, todo = 0.0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields[11:15]: utime, stime, cutime, cstime (stat fields 14-17)
        total += sum(int(value) for value in fields[11:15]) / TICKS
        todo += parents.get(current, [])
    return total


def read_ledger(run: Path) -> dict:
    path = run / CPU_LEDGER
    return json.loads(path.read_text()) if path.is_file() else {"seconds": 0.0, "scored": 0}


def annealing_lr(base: Path) -> float:
    """--lr for a fine-tuning run whose peak, after its warmup, is the rate `base` has reached
    (the peak is lr·warmup^-0.5, mt.train.schedule)."""
    return read_metrics(base)[-1]["lr"] * FINETUNE_WARMUP**0.5


def train_command(args: argparse.Namespace) -> list[str]:
    """`mt train --resume` once the run is claimed, else the grown student's first start (or
    an annealed branch's)."""
    mt = [sys.executable, "-m", "mt"]
    if (args.run / "train.json").is_file():
        return [*mt, "train", "--resume", str(args.run), "--threads", str(args.threads)]
    if args.anneal_from:
        return [
            *mt, "train", str(args.data), "--init-from", str(args.anneal_from),
            "--lr", f"{annealing_lr(args.anneal_from):.6g}", "--max-steps", str(args.anneal_steps),
            "--lr-decay", "budget", "--out", str(args.run), "--eval-every", str(args.eval_every),
            "--seed", str(args.seed), "--threads", str(args.threads),
        ]  # fmt: skip
    return [
        *mt, "train", str(args.data), "--init-from", BASE, *GROWTH, "--out", str(args.run),
        "--batch-size", str(args.batch_size), "--eval-every", str(args.eval_every),
        "--patience", "20", "--seed", str(args.seed), "--threads", str(args.threads),
    ]  # fmt: skip


def score(args: argparse.Namespace, hours: float) -> None:
    """A point of the dev curve, in a process of its own (its CPU is not the run's)."""
    command = [
        sys.executable, "-m", "benchmarks.quality.dev_curve", "--run", str(args.run),
        "--tatoeba", str(args.tatoeba), "--cpu-hours", f"{hours:.3f}", "--threads", "1",
    ]  # fmt: skip
    with (args.run / "dev-curve.log").open("a") as log:
        subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, check=False)


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--data", type=Path, default=Path("runs/student-data"))
    parser.add_argument("--run", type=Path, default=Path("runs/student"))
    parser.add_argument("--tatoeba", type=Path, default=Path("runs/tatoeba-split"))
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--eval-every", type=int, default=250)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--anneal-from", type=Path, help="start as a branch of this run, annealed")
    parser.add_argument("--anneal-steps", type=int, default=1500, help="the branch's length")
    args = parser.parse_args(argv)
    os.nice(19)  # the run takes what the machine leaves
    ledger = read_ledger(args.run)
    before = ledger["seconds"]
    process = subprocess.Popen(train_command(args))
    while process.poll() is None:
        time.sleep(60)
        ledger["seconds"] = before + tree_cpu_seconds(process.pid)
        hours = ledger["seconds"] / 3600
        if not (args.run / "train.json").is_file():
            continue  # not claimed yet: `mt train --out` wants the folder to itself
        due = int(hours) > ledger["scored"] and (args.run / "metrics.csv").is_file()
        if due:
            ledger["scored"] = int(hours)
        atomic_write_text(args.run / CPU_LEDGER, json.dumps(ledger) + "\n")
        if due:
            score(args, hours)
    return process.returncode


if __name__ == "__main__":
    raise SystemExit(main())
