"""Decided which issue 43 step levers stay (docs/performance.md, issue 43: whole steps).

Interleaved A/B rounds of bench_step.py between source trees (issue 43's levers).

    .venv/bin/python -m experiments.ab_step --tree base=/tmp/mt-base/src --tree new=src \
        --rounds 3 -- --precision fp32 --steps 40

Each tree is a directory holding the `mt` package (a `git archive` of a commit, or src); the
rounds alternate trees so that machine noise hits each alike. Every step runs the same batch in
every round, so a step's best (lowest) time over the rounds is the figure least touched by other
load: the table sums those bests, wall and CPU, and also gives each tree's median round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", action="append", required=True, help="NAME=SRC_DIR")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("rest", nargs=argparse.REMAINDER, help="-- bench_step.py arguments")
    args = parser.parse_args()
    trees = dict(tree.split("=", 1) for tree in args.tree)
    rest = [a for a in args.rest if a != "--"]
    runs: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, src in trees.items():
            env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": src}
            out = subprocess.run(
                [sys.executable, "-m", "benchmarks.speed.bench_step", *rest],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            runs[name].append(json.loads(next(x for x in out.splitlines() if x.startswith("{"))))
    print(runs[next(iter(trees))][0]["machine"], "| rounds", args.rounds, "|", " ".join(rest))
    for name, results in runs.items():
        steps = len(results[0]["cpu_ms"])
        best = {
            key: sum(min(r[key][i] for r in results) for i in range(steps)) / steps
            for key in ("wall_ms", "cpu_ms")
        }
        medians = [r["ms_step_cpu_mean"] for r in results]
        print(
            f"{name:>10}: best-of-rounds ms/step wall {best['wall_ms']:.1f}"
            f" cpu {best['cpu_ms']:.1f}"
            f" | cpu mean per round {', '.join(f'{m:.0f}' for m in medians)}"
            f" (median {statistics.median(medians):.0f})"
            f" | loss after {results[0]['next_loss']} | load {results[-1]['load']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
