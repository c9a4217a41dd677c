"""Two runs of one shape and tokenizers averaged weight by weight into a copy of the first, for
`bench_general` to score (docs/release.md, "Averaging and ensembles") or to ship: version 13 is
the student's two annealed branches so averaged (`make student-soup`).

    python -m benchmarks.quality.average_runs en-es-general-4 runs/shipped-v2 runs/soup-v2-v4
    python -m benchmarks.quality.bench_general --run runs/soup-v2-v4 --tatoeba runs/tatoeba-split \
        --part dev

OUT gets the first's files (settings, tokenizers, tables, decode.json, metrics.csv), not its
checkpoints nor what that run alone spent and scored (cpu.json, dev-curve.*); its cpu.json is
the sum of both runs' CPU ledgers where they kept one, so a card made from OUT counts what both
cost (mt.cli.ship).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from benchmarks import harness
from mt.catalog.modelinfo import resolve
from mt.model.checkpoint import load_tensors, save_tensors
from mt.storage.files import BEST_WEIGHTS, CHECKSUMS, CPU_LEDGER, read_json, write_json

NOT_COPIED = (CHECKSUMS, CPU_LEDGER)
ALONE = "dev-curve"  # benchmarks.quality.dev_curve's files: what the first run alone scored


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("first", help="run directory or shipped model name: files, weights")
    parser.add_argument("second", help="run directory or shipped model name: weights")
    parser.add_argument("out", type=Path)
    parser.add_argument("--share", type=float, default=0.5, help="the second run's share")
    args = parser.parse_args(argv)
    first, second = resolve(args.first).directory, resolve(args.second).directory
    ours, metadata = load_tensors(first / BEST_WEIGHTS)
    theirs, _ = load_tensors(second / BEST_WEIGHTS)
    if ours.keys() != theirs.keys() or any(ours[k].shape != theirs[k].shape for k in ours):
        raise SystemExit(f"{first} and {second}: not the same shape")
    averaged = {
        name: ((1 - args.share) * ours[name].float() + args.share * theirs[name].float())
        .to(ours[name].dtype)
        .contiguous()
        for name in ours
    }
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    for path in first.iterdir():
        copied = path.suffix != ".safetensors" and path.name not in NOT_COPIED
        if path.is_file() and copied and not path.name.startswith(ALONE):
            shutil.copy2(path, args.out / path.name)
    format_version = {"format_version": metadata["format_version"]}
    save_tensors(args.out / BEST_WEIGHTS, averaged, metadata=format_version)
    ledgers = [run / CPU_LEDGER for run in (first, second) if (run / CPU_LEDGER).is_file()]
    if ledgers:
        seconds = round(sum(read_json(ledger)["seconds"] for ledger in ledgers), 2)
        write_json(args.out / CPU_LEDGER, {"seconds": seconds, "scored": 0})
    print(f"{args.out}: {1 - args.share:g} x {first} + {args.share:g} x {second}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
