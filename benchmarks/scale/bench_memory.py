"""Resident memory of a training run over time: does it stay flat once warmed up?

Starts `mt train` with the arguments after `--` (or watches a running process, --attach PID),
reads its resident set size (VmRSS of /proc/PID/status) every --every seconds until it ends, writes
the samples as CSV and the figures as JSON, and exits 1 when the growth from the end of the
warm-up (--warmup, a share of the samples) to the end of the run is over --max-growth (a share).

    python -m benchmarks.scale.bench_memory --out bench/memory -- runs/general-data --out runs/mem \
        --time-budget 30m --precision auto --threads 2 --force
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from rich.console import Console

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.storage.atomic import atomic_write_text


def resident_mb(pid: int) -> float | None:
    """VmRSS of `pid` in MiB, or None once it has gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


def watch(pid: int, every: float, alive) -> list[tuple[float, float]]:
    """(seconds, MiB) samples until `alive()` is false."""
    samples, started = [], time.monotonic()
    while alive():
        rss = resident_mb(pid)
        if rss is not None:
            samples.append((time.monotonic() - started, rss))
        time.sleep(every)
    return samples


def growth(samples: list[tuple[float, float]], warmup: float) -> dict[str, float]:
    """Resident memory at the end of the warm-up, at the end, its peak, and the growth between."""
    start = samples[min(len(samples) - 1, int(len(samples) * warmup))][1]
    end = samples[-1][1]
    return {
        "after_warmup_mb": start,
        "end_mb": end,
        "peak_mb": max(rss for _, rss in samples),
        "growth_mb": end - start,
        "growth_share": (end - start) / start,
        "seconds": samples[-1][0],
    }


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--attach", type=int, help="watch this process instead of starting one")
    parser.add_argument("--every", type=float, default=5.0)
    parser.add_argument("--warmup", type=float, default=0.15, help="share of the samples")
    parser.add_argument("--max-growth", type=float, default=0.10)
    harness.add_threads(parser)
    harness.add_out(parser, Path("bench/memory"), help="resident.csv and results.json")
    parser.add_argument("train", nargs="*", help="`mt train` arguments (after --)")
    args = parser.parse_args(argv)
    console = Console()
    if args.attach:
        pid = args.attach
        samples = watch(pid, args.every, lambda: Path(f"/proc/{pid}").exists())
    else:
        if not args.train:
            raise SystemExit("bench_memory: give `mt train` arguments after --, or --attach PID")
        command = [str(Path(sys.executable).with_name("mt")), "train", *args.train]
        console.print(" ".join(command))
        process = subprocess.Popen(command, env=os.environ.copy())
        samples = watch(process.pid, args.every, lambda: process.poll() is None)
        if process.returncode:
            raise SystemExit(f"bench_memory: mt train exited {process.returncode}")
    if len(samples) < 3:
        raise SystemExit("bench_memory: the process ended before three samples")
    args.out.mkdir(parents=True, exist_ok=True)
    lines = ["seconds,resident_mb", *(f"{s:.1f},{mb:.1f}" for s, mb in samples)]
    atomic_write_text(args.out / "resident.csv", "\n".join(lines) + "\n")
    figures = growth(samples, args.warmup)
    minutes = figures["seconds"] / 60
    console.print(
        f"{minutes:.1f} min, {len(samples)} samples: {figures['after_warmup_mb']:.0f} MiB after "
        f"the warm-up -> {figures['end_mb']:.0f} MiB at the end (peak {figures['peak_mb']:.0f})"
    )
    check = Target("growth after warm-up, share", figures["growth_share"], "<=", args.max_growth)
    return report(args.out / "results.json", figures, [check], threads=args.threads)


if __name__ == "__main__":
    sys.exit(main())
