"""Two runs of one shape and tokenizers averaged weight by weight into a copy of the first, for
`bench_general` to score (docs/release.md, "Averaging and ensembles"):

    python -m benchmarks.quality.average_runs en-es-general-4 runs/shipped-v2 runs/soup-v2-v4
    python -m benchmarks.quality.bench_general --run runs/soup-v2-v4 --tatoeba runs/tatoeba-split \
        --part dev
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from benchmarks import harness
from mt.catalog.modelinfo import resolve
from mt.model.checkpoint import load_tensors, save_tensors


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("first", help="run directory or shipped model name: files, weights")
    parser.add_argument("second", help="run directory or shipped model name: weights")
    parser.add_argument("out", type=Path)
    parser.add_argument("--share", type=float, default=0.5, help="the second run's share")
    args = parser.parse_args(argv)
    first, second = resolve(args.first).directory, resolve(args.second).directory
    ours, metadata = load_tensors(first / "best.safetensors")
    theirs, _ = load_tensors(second / "best.safetensors")
    if ours.keys() != theirs.keys() or any(ours[k].shape != theirs[k].shape for k in ours):
        raise SystemExit(f"{first} and {second}: not the same shape")
    averaged = {
        name: ((1 - args.share) * ours[name].float() + args.share * theirs[name].float())
        .to(ours[name].dtype)
        .contiguous()
        for name in ours
    }
    shutil.rmtree(args.out, ignore_errors=True)
    shutil.copytree(first, args.out, ignore=shutil.ignore_patterns("checksums.sha256"))
    format_version = {"format_version": metadata["format_version"]}
    save_tensors(args.out / "best.safetensors", averaged, metadata=format_version)
    print(f"{args.out}: {1 - args.share:g} x {first} + {args.share:g} x {second}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
