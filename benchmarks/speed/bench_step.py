"""Milliseconds per training step of `mt train`'s own Trainer, wall and CPU time (issue 43).

    OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.speed.bench_step --data runs/peer-data \
        --threads 1 --precision fp32 --steps 60 [--change compile=true] [--profile 20]

The default recipe's first steps of epoch 0 (the same seed, so the same batches every time), run
through `Trainer.train_step` with the batch collated inside the timed region, as `mt train` does.
CPU time (time.process_time) of a 1-thread process moves far less with other load on a shared
machine than wall time, so both are printed. `--profile N` prints torch.profiler's table of N
more steps instead. The loss after the steps is printed too: a lever that changes numerics shows.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import torch

from benchmarks import harness
from mt.data.prepared_dir import load_prepared
from mt.train.distributed import Distributed
from mt.train.launch import train_data
from mt.train.reporting import SilentReporter
from mt.train.run_config import new_run_config
from mt.train.trainer import Trainer


def parse_change(text: str) -> tuple[str, object]:
    key, _, value = text.partition("=")
    return key, json.loads(value) if value not in ("true", "false") else value == "true"


def build(data_dir: Path, changes: dict[str, object], run_dir: Path) -> Trainer:
    prepared = load_prepared(data_dir)
    run = new_run_config(
        src_vocab=prepared.source.vocab_size,
        tgt_vocab=prepared.target.vocab_size,
        preset=None,
        changes=changes,
    )
    return Trainer(
        model_config=run.model,
        config=run.train,
        data=train_data(prepared, run.train),
        run_dir=run_dir,
        device=torch.device("cpu"),
        reporter=SilentReporter(),
        dist=Distributed(),
    )


def run_steps(trainer: Trainer, steps, first: int, count: int) -> tuple[list[float], list[float]]:
    walls, cpus = [], []
    for index in range(first, first + count):
        wall, cpu = time.perf_counter(), time.process_time()
        loss, correct, _ = trainer.train_step(steps[index])
        float(loss), int(correct)  # the loop reads both every step on a CPU
        trainer.progress.step += 1
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_data(parser, default=Path("runs/peer-data"), help="a prepared directory")
    harness.add_threads(parser, 1)
    parser.add_argument("--precision", default="fp32")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--change", action="append", default=[], help="config field=JSON value")
    parser.add_argument("--profile", type=int, default=0)
    harness.add_out(parser, None, flag="--json", help="the figures as JSON (they are printed)")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    changes: dict[str, object] = {"precision": args.precision}
    changes.update(parse_change(text) for text in args.change)
    with tempfile.TemporaryDirectory() as run_dir:
        trainer = build(args.data, changes, Path(run_dir))
        steps = trainer._epoch_steps()
        started = time.perf_counter()
        run_steps(trainer, steps, 0, args.warmup)
        warm_seconds = time.perf_counter() - started
        if args.profile:
            return profile(trainer, steps, args.warmup, args.profile)
        walls, cpus = run_steps(trainer, steps, args.warmup, args.steps)
        loss, correct, _ = trainer.train_step(steps[args.warmup + args.steps])
    tokens = sum(steps[i].target_tokens for i in range(args.warmup, args.warmup + args.steps))
    result = {
        "changes": changes,
        "machine": harness.describe(torch.get_num_threads()),
        "load": harness.load_average(),
        "warmup_seconds": round(warm_seconds, 2),
        "ms_step_wall_median": round(1000 * statistics.median(walls), 2),
        "ms_step_cpu_median": round(1000 * statistics.median(cpus), 2),
        "ms_step_wall_mean": round(1000 * sum(walls) / len(walls), 2),
        "ms_step_cpu_mean": round(1000 * sum(cpus) / len(cpus), 2),
        "target_tokens_per_step": round(tokens / args.steps, 1),
        "next_loss": round(float(loss) / steps[args.warmup + args.steps].target_tokens, 5),
        "cpu_ms": [round(1000 * x, 2) for x in cpus],
        "wall_ms": [round(1000 * x, 2) for x in walls],
    }
    print(json.dumps(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))
    return 0


def profile(trainer: Trainer, steps, first: int, count: int) -> int:
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof:
        run_steps(trainer, steps, first, count)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=40))
    return 0


if __name__ == "__main__":
    sys.exit(main())
