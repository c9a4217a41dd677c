"""`make bench-scale`: do `mt prepare` and `mt train` scale from the 119k corpus to millions?

    python -m benchmarks.scale.bench_scale --corpus data/spa-eng.tsv [--sizes 1M,4M,16M] \
        [--out bench/scale] [--steps 100]

For the real corpus and for each size of a synthetic corpus made from it (synthetic_corpus.py,
cached in --out), it runs the real CLI as subprocesses: `mt prepare` (wall time, pairs/s, peak
resident memory of its process tree, size of the prepared directory) and `mt train --preset
thesis-small` (time to the end of the first step, peak resident memory over --steps steps).
Training throughput comes from an in-process A/B on the same prepared directory (scale_train.py):
the default recipe's model trained on the first batches of epoch 0, collated per step from the
prepared token-array files (what `mt train` does) or from per-sentence int64 arrays in Python
lists (what it did before), in alternating rounds. It prints a table, then checks the targets
(MET/MISS with the figures): prepare time linear in the pairs, prepare peak <= 4 GiB at the
largest size, train start <= 30 s and train resident memory <= 2 GiB at every size, token-array
tokens/s within 5% of in-memory lists at every size. Figures go to --out/results.json with the
machine, commit, date and command (benchmarks/harness.py); the exit status is 1 on a miss.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import psutil
import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, report
from benchmarks.scale.scale_train import (
    ABResult,
    ABSettings,
    ab_settings,
    add_ab_options,
    measure_sources,
)
from benchmarks.scale.synthetic_corpus import output_paths, parse_count, write_synthetic
from mt.storage.files import read_metrics

GIB = 2**30
MIB = 2**20
PREPARE_PEAK_LIMIT = 4 * GIB
TRAIN_START_LIMIT = 30.0  # seconds
TRAIN_RSS_LIMIT = 2 * GIB
TOKENS_TOLERANCE = 0.05  # token-array tokens/s against in-memory lists' (the A/B's ratio)
PREPARE_CONSTANT = 10.0
"""Seconds allowed on top of proportional prepare time: start-up, and tokenizer training once
tokenizers learn from a fixed-size sample."""
POLL = 0.1  # seconds between resident-memory samples
LOOP_LINE = "parameters:"
"""The start of the line the trainer prints just before its first step."""
PRESET = "thesis-small"
SUFFIXES = {"none": ".tsv", "gz": ".tsv.gz", "zst": ".tsv.zst"}


@dataclass(frozen=True)
class Settings:
    """What every size shares: where files go and how `mt train` runs."""

    out: Path
    steps: int
    device: str
    threads: int | None
    ab: ABSettings
    earlier: dict[str, dict] = field(default_factory=dict)  # size -> row of an earlier results.json


@dataclass
class Finished:
    """A subprocess that ended well: its wall time, the peak resident memory of its process tree,
    and the seconds after launch at which its output first contained `mark`."""

    seconds: float
    peak_rss: int
    mark_seconds: float | None
    output: str


@dataclass
class Row:
    size: str
    pairs: int
    prepare_seconds: float
    prepare_peak_rss: int
    prepared_bytes: int
    loop_start_seconds: float  # launch of `mt train --max-steps 1` -> its loop starts
    train_start_seconds: float  # launch -> end of the first step
    train_peak_rss: int
    train_seconds: float  # wall time of the --steps run, final evaluation and saving included
    ab: ABResult  # training throughput: token-array batches against in-memory lists
    pairs_per_second: float = field(init=False)

    def __post_init__(self) -> None:
        self.pairs_per_second = self.pairs / self.prepare_seconds


def tree_rss(process: psutil.Process) -> int:
    """Resident bytes of the process and all its descendants (0 once it has gone)."""
    try:
        members = [process, *process.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for member in members:
        with contextlib.suppress(psutil.NoSuchProcess, psutil.AccessDenied):
            total += member.memory_info().rss
    return total


def run_measured(command: list[str], *, mark: str = "") -> Finished:
    """Run `command`, sampling its tree's resident memory every POLL s; exit on its failure."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # lines arrive when printed: `mark` timing
    started = time.perf_counter()
    child = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    lines: list[str] = []
    seen: list[float] = []

    def read() -> None:
        for line in child.stdout:
            if mark and not seen and mark in line:
                seen.append(time.perf_counter() - started)
            lines.append(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    process, peak = psutil.Process(child.pid), 0
    while child.poll() is None:
        peak = max(peak, tree_rss(process))
        time.sleep(POLL)
    seconds = time.perf_counter() - started
    reader.join()
    output = "".join(lines)
    if child.returncode:
        tail = "\n".join(output.splitlines()[-20:])
        raise SystemExit(f"{' '.join(command)} failed (exit {child.returncode}):\n{tail}")
    return Finished(seconds, peak, seen[0] if seen else None, output)


def mt(*arguments: str | Path) -> list[str]:
    """The real CLI, run by this interpreter (the venv's mt)."""
    return [sys.executable, "-m", "mt", *map(str, arguments)]


def directory_bytes(directory: Path) -> int:
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


def train(prepared: Path, run: Path, *, steps: int, settings: Settings) -> Finished:
    command = mt("train", prepared, "--out", run, "--force", "--preset", PRESET)
    command += ["--max-steps", str(steps)]
    command += ["--eval-every", "0", "--device", settings.device]  # 0: evaluate only at the end
    command += ["--threads", str(settings.threads)] if settings.threads else []
    return run_measured(command, mark=LOOP_LINE)


def metrics_row(run: Path) -> dict[str, float]:
    rows = read_metrics(run)
    if not rows:
        raise SystemExit(f"{run}: no metrics.csv row after training")
    return rows[-1]


def prepare_inputs(corpus: tuple[Path, ...]) -> list[str | Path]:
    """One TSV as the argument, or a line-aligned English and Spanish file as options."""
    if len(corpus) == 1:
        return [corpus[0]]
    source, target = corpus
    return ["--source-file", source, "--target-file", target]


def measure(*, size: str, pairs: int, corpus: tuple[Path, ...], settings: Settings) -> Row:
    """Prepare `corpus`, train on it twice (one step: start-up; `steps` steps: memory), then time
    training in-process with each batch source (throughput)."""
    prepared, runs = settings.out / f"prepared-{size}", settings.out / f"run-{size}"
    earlier = settings.earlier.get(size)
    if earlier and (prepared / "prepare.json").is_file():  # --keep-prepared: its earlier figures
        prepare = Finished(earlier["prepare_seconds"], earlier["prepare_peak_rss"], None, "")
    else:
        prepare = run_measured(mt("prepare", *prepare_inputs(corpus), "--out", prepared, "--force"))
    first = train(prepared, runs.with_name(runs.name + "-1step"), steps=1, settings=settings)
    if first.mark_seconds is None:
        raise SystemExit(f"mt train printed no {LOOP_LINE!r} line:\n{first.output}")
    loop_elapsed = metrics_row(runs.with_name(runs.name + "-1step"))["elapsed"]  # to step 1 end
    full = train(prepared, runs, steps=settings.steps, settings=settings)
    return Row(
        size=size,
        pairs=pairs,
        prepare_seconds=prepare.seconds,
        prepare_peak_rss=prepare.peak_rss,
        prepared_bytes=directory_bytes(prepared),
        loop_start_seconds=first.mark_seconds,
        train_start_seconds=first.mark_seconds + loop_elapsed,
        train_peak_rss=full.peak_rss,
        train_seconds=full.seconds,
        ab=measure_sources(prepared, settings.ab),
    )


def synthetic(
    *, corpus: Path, pairs: int, size: str, out: Path, seed: int, compression: str, parallel: bool
) -> tuple[Path, ...]:
    """The synthetic corpus of `pairs` pairs (one TSV, or .en and .es files), generated once and
    reused from --out."""
    path = out / f"synthetic-{size}-seed{seed}{SUFFIXES[compression]}"
    paths = output_paths(path, parallel=parallel)
    if all(path.is_file() for path in paths):
        print(f"{size}: reusing {', '.join(map(str, paths))}")
        return paths
    started = time.perf_counter()
    write_synthetic(corpus=corpus, pairs=pairs, out=path, seed=seed, parallel=parallel)
    print(f"{size}: generated {path} in {time.perf_counter() - started:.1f} s", flush=True)
    return paths


def count_lines(path: Path) -> int:
    with path.open("rb") as stream:
        return sum(1 for line in stream if line.strip())


def print_table(rows: list[Row], *, steps: int, ab: ABSettings, console: Console) -> None:
    table = Table(
        title=f"mt prepare, then mt train --preset {PRESET} for {steps} steps",
        caption=(
            "train start: launch of a separate `mt train --max-steps 1` until its step 1 ends (the "
            f"{LOOP_LINE!r} line printed just before the loop + the loop's elapsed time at step 1 "
            "in metrics.csv); train RSS: peak over the --steps run, final selection evaluation "
            "included; tokens/s: target tokens/s of the default recipe's model, in process, "
            "batches collated per step from the prepared token-array files; vs lists: that / "
            "the same steps collated from per-sentence arrays in lists, the median of alternating "
            f"rounds of {ab.steps} step(s) per arm over {ab.seconds:.0f} s"
        ),
    )
    for column in ("size", "pairs", "prepare s", "pairs/s", "prepare peak MiB", "disk MiB",
                   "train start s", "train RSS MiB", "tokens/s", "vs lists"):  # fmt: skip
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(
            row.size,
            f"{row.pairs:,}",
            f"{row.prepare_seconds:,.1f}",
            f"{row.pairs_per_second:,.0f}",
            f"{row.prepare_peak_rss / MIB:,.0f}",
            f"{row.prepared_bytes / MIB:,.1f}",
            f"{row.train_start_seconds:.1f}",
            f"{row.train_peak_rss / MIB:,.0f}",
            f"{row.ab.mapped_tokens_per_second:,.0f}",
            f"{row.ab.ratio:.3f}",
        )
    console.print(table)


def linear_check(rows: list[Row]) -> list[Target]:
    """Prepare time at the largest size within its pairs' multiple of the smallest's time (plus
    PREPARE_CONSTANT seconds); none with a single synthetic size."""
    small, large = rows[0], rows[-1]
    if small is large:
        return []
    scale = large.pairs / small.pairs
    limit = scale * small.prepare_seconds + PREPARE_CONSTANT
    name = (
        f"prepare s at {large.size} ({scale:g}x the pairs of {small.size}: "
        f"{small.prepare_seconds:.1f} s x {scale:g} + {PREPARE_CONSTANT:.0f})"
    )
    return [Target(name, large.prepare_seconds, "<=", limit)]


def checks(reference: Row, synthetic_rows: list[Row]) -> list[Target]:
    largest = synthetic_rows[-1]
    found = [
        *linear_check(synthetic_rows),
        Target(f"prepare peak GiB at {largest.size}", largest.prepare_peak_rss / GIB, "<=",
               PREPARE_PEAK_LIMIT / GIB),
    ]  # fmt: skip
    for row in [reference, *synthetic_rows]:
        found.append(
            Target(f"train start s at {row.size}", row.train_start_seconds, "<=", TRAIN_START_LIMIT)
        )
        found.append(
            Target(f"train RSS GiB at {row.size}", row.train_peak_rss / GIB, "<=",
                   TRAIN_RSS_LIMIT / GIB)
        )  # fmt: skip
    found.extend(tokens_check(row) for row in [reference, *synthetic_rows])
    return found


def tokens_check(row: Row) -> Target:
    name = f"tokens/s at {row.size}, token arrays / in memory - 1 ({row.ab.figures()})"
    return Target(name, row.ab.ratio - 1, "within", TOKENS_TOLERANCE)


def lengths_note(rows: list[Row]) -> str:
    """Mean target length per size: synthetic pairs join 2-3 sentences, so their batches (64
    pairs) hold more tokens and their tokens/s differs from the real corpus' for that reason."""
    lengths = ", ".join(f"{row.size} {row.ab.mean_target_tokens:.1f}" for row in rows)
    return (
        f"note: mean target tokens per pair (EOS included): {lengths} (synthetic pairs join 2-3 "
        "sentences: tokens/s differs across sizes for that reason)"
    )


def machine_line(threads: int, device: str) -> str:
    return f"{harness.machine_line(threads)}; train device {device}"


def parse_sizes(text: str) -> list[tuple[str, int]]:
    """'1M,4M,16M' as (label, pairs), smallest first; argparse reports a ValueError as usage."""
    sizes = [(label.strip(), parse_count(label)) for label in text.split(",")]
    return sorted(sizes, key=lambda labelled: labelled[1])


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--corpus", type=Path, required=True, help="the real english<TAB>spanish")
    parser.add_argument(
        "--sizes", type=parse_sizes, default="1M,4M,16M", help="synthetic corpus sizes, e.g. 20k,1M"
    )
    harness.add_out(parser, Path("bench/scale"), help="corpora, prepared data, runs, results.json")
    parser.add_argument("--steps", type=int, default=100, help="training steps per size")
    parser.add_argument("--seed", type=int, default=0, help="of the synthetic corpora")
    parser.add_argument("--compression", choices=sorted(SUFFIXES), default="none")
    parser.add_argument(
        "--parallel", action="store_true", help="synthetic corpora as .en/.es files (--source-file)"
    )
    harness.add_device(parser)
    harness.add_threads(parser, None)
    parser.add_argument(
        "--keep-prepared",
        action="store_true",
        help="reuse prepared directories and the prepare figures of --out/results.json; "
        "measure training again (after a change to training only)",
    )
    add_ab_options(parser)
    return parser.parse_args(argv)


def measure_all(args: argparse.Namespace, settings: Settings, console: Console) -> list[Row]:
    """The real corpus' row, then one per synthetic size, smallest first."""
    real_pairs = count_lines(args.corpus)
    real = f"{real_pairs / 1000:.0f}k"
    rows = [measure(size=real, pairs=real_pairs, corpus=(args.corpus,), settings=settings)]
    console.print(f"{real}: done (A/B {rows[-1].ab.seconds:.0f} s)", highlight=False)
    for size, pairs in args.sizes:
        corpus = synthetic(
            corpus=args.corpus,
            pairs=pairs,
            size=size,
            out=args.out,
            seed=args.seed,
            compression=args.compression,
            parallel=args.parallel,
        )
        rows.append(measure(size=size, pairs=pairs, corpus=corpus, settings=settings))
        console.print(f"{size}: done (A/B {rows[-1].ab.seconds:.0f} s)", highlight=False)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.corpus.is_file():
        print(f"bench-scale: no corpus at {args.corpus} (make corpus fetches it)", file=sys.stderr)
        raise SystemExit(1)
    threads = args.threads or torch.get_num_threads()
    console = Console(width=160)
    start_line = machine_line(threads, args.device)
    console.print(start_line, highlight=False, soft_wrap=True)
    args.out.mkdir(parents=True, exist_ok=True)
    ab = ab_settings(args)
    earlier = {}
    if args.keep_prepared and (args.out / "results.json").is_file():
        previous = json.loads((args.out / "results.json").read_text())
        previous = previous.get("figures", previous)  # written by targets.report, or before it
        earlier = {row["size"]: row for row in previous["rows"]}
        console.print(
            f"--keep-prepared: prepare figures of {', '.join(earlier)} from the earlier run "
            f"({previous['machine_at_start']}); training measured again",
            highlight=False,
            soft_wrap=True,
        )
    settings = Settings(args.out, args.steps, args.device, args.threads, ab, earlier)
    rows = measure_all(args, settings, console)

    print_table(rows, steps=args.steps, ab=ab, console=console)
    found = checks(rows[0], rows[1:])
    note = lengths_note(rows)
    console.print(note, highlight=False)
    end_line = machine_line(threads, args.device)
    console.print(end_line, highlight=False, soft_wrap=True)
    results = {
        "machine_at_start": start_line,
        "machine_at_end": end_line,
        "preset": PRESET,
        "steps": args.steps,
        "seed": args.seed,
        "compression": args.compression,
        "parallel": args.parallel,
        "ab": asdict(ab),
        "prepare_figures_reused": sorted(earlier),
        "rows": [asdict(row) for row in rows],
        "note": note,
    }
    return report(args.out / "results.json", results, found, threads=threads)


if __name__ == "__main__":
    sys.exit(main())
