"""Decided --average-last 3 (docs/recipe.md, "Averaging more snapshots").

How many evaluation snapshots to average: the selection figures of the last k, for each k.

    python -m experiments.average_snapshots --run bench/run --snapshots bench/snapshots \
        [--counts 1,2,3,4,6,8]

`mt train` keeps only its newest few checkpoints, so a run measured this way has its
`checkpoints/step-N.safetensors` copied into --snapshots as they appear (`make bench` does not;
see docs/recipe.md for the loop that did). For each k, the model weights of the last k snapshots
are averaged and scored teacher-forced on the run's selection part, as `mt train` scores its own
average (`--average-last k`). Prints one row per k with the machine it ran on.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import torch

from benchmarks.harness import describe
from mt.catalog.modelinfo import read_model_config, read_train_config
from mt.data.prepared_dir import load_prepared
from mt.model.checkpoint import load_tensors
from mt.model.devices import resolve_device
from mt.model.loss import evaluate_teacher_forced
from mt.model.rundir import model_tensors
from mt.model.transformer import make_model
from mt.train.selection import average_weights

STEP = re.compile(r"step-(\d+)\.safetensors$")


def snapshot_paths(folder: Path) -> list[Path]:
    """The copied checkpoints, oldest first."""
    found = [(int(m.group(1)), path) for path in folder.iterdir() if (m := STEP.search(path.name))]
    return [path for _, path in sorted(found)]


def averaged(paths: list[Path]) -> dict[str, torch.Tensor]:
    """As `mt train --average-last k` averages its last k evaluation snapshots."""
    return average_weights([model_tensors(load_tensors(path)[0]) for path in paths])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--snapshots", type=Path, required=True)
    parser.add_argument("--counts", default="1,2,3,4,6,8")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    device = resolve_device(args.device)
    print(describe(torch.get_num_threads()), flush=True)
    config, (train, prepared) = read_model_config(args.run), read_train_config(args.run)
    limits = {"max_src_len": train.max_src_len, "max_tgt_len": train.max_tgt_len}
    selection = load_prepared(prepared).encoded("selection", **limits)
    paths = snapshot_paths(args.snapshots)
    print(f"{len(paths)} snapshots: {', '.join(p.stem for p in paths)}")
    print("| snapshots averaged | steps | selection CE | selection accuracy |")
    print("| --- | --- | --- | --- |")
    for count in (int(c) for c in args.counts.split(",")):
        if count > len(paths):
            break
        chosen = paths[-count:]
        model = make_model(config).to(device)
        model.load_state_dict(averaged(chosen))
        stats = evaluate_teacher_forced(model, selection, train, device)
        steps = f"{STEP.search(chosen[0].name).group(1).lstrip('0')}-"
        steps += STEP.search(chosen[-1].name).group(1).lstrip("0")
        print(f"| {count} | {steps} | {stats.loss:.4f} | {stats.accuracy:.4f} |", flush=True)


if __name__ == "__main__":
    main()
