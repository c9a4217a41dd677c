"""Branches of one run averaged into one model (issue 75, version 13): the student's annealed
branches, started from the same weights with different seeds, each end in a different place on
the same slope; their element-wise average scored better on dev than either (docs/history/
2026-11-29-version-13.md), as averaging a run's last snapshots does (mt.train.selection).

    python -m benchmarks.quality.soup runs/student-anneal runs/student-anneal-13 \\
        --out runs/student-soup

OUT gets the last branch's small files (settings, tokenizers, tables, decode.json, metrics.csv:
its curve stands for the branches'), best.safetensors the average of the branches' best weights,
and cpu.json the sum of their CPU ledgers, so a card made from OUT counts what every branch cost
(mt.cli.ship). The branches must share a start (the SHA-256 of the weights their train.json
lineage names) and a shape.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from benchmarks import harness
from mt.model.checkpoint import load_tensors, save_tensors
from mt.storage.files import BEST_WEIGHTS, CPU_LEDGER, TRAIN_JSON, WEIGHTS_FORMAT, read_json
from mt.train.selection import average_weights

SMALL_FILES = (".json", ".tsv", ".csv")
BRANCH_ONLY = (CPU_LEDGER, "dev-curve.csv")  # what the branch alone spent and scored


def make_soup(branches: list[Path], out: Path) -> Path:
    """OUT as described above; refuses branches of different starts or shapes."""
    starts = {
        read_json(b / TRAIN_JSON).get("lineage", {}).get("init_from", {}).get("sha256")
        for b in branches
    }
    if len(starts) != 1:
        raise SystemExit(f"soup: {', '.join(map(str, branches))} do not share a start")
    weights = [load_tensors(branch / BEST_WEIGHTS)[0] for branch in branches]
    if len({tuple((k, tuple(v.shape)) for k, v in sorted(w.items())) for w in weights}) != 1:
        raise SystemExit("soup: the branches' weights differ in shape")
    out.mkdir(parents=True, exist_ok=False)
    for path in branches[-1].iterdir():
        if path.is_file() and path.suffix in SMALL_FILES and path.name not in BRANCH_ONLY:
            shutil.copy2(path, out / path.name)
    metadata = {"format_version": str(WEIGHTS_FORMAT)}
    save_tensors(out / BEST_WEIGHTS, average_weights(weights), metadata=metadata)
    seconds = sum(
        read_json(b / CPU_LEDGER)["seconds"] for b in branches if (b / CPU_LEDGER).is_file()
    )
    (out / CPU_LEDGER).write_text(json.dumps({"seconds": round(seconds, 2), "scored": 0}) + "\n")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("branches", type=Path, nargs="+", help="runs of one start (two or more)")
    parser.add_argument("--out", type=Path, required=True, help="a new folder")
    args = parser.parse_args(argv)
    if len(args.branches) < 2:
        parser.error("give two branches or more")
    if args.out.exists():
        parser.error(f"{args.out} exists: give a new folder")
    print(f"{make_soup(args.branches, args.out)}: the average of {len(args.branches)} branches")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
