"""WiSE-FT, tried against forgetting: a run whose weights lie between a base run and a run
fine-tuned from it (docs/domain.md, "The recipe").

    python benchmarks/blend_weights.py --base bench/run --tuned bench/domain/mix-30m \
        --share 0.75 --out bench/domain/blend-0.75

The new run directory is the fine-tuned one's (tokenizers, model.json, train.json) with
best.safetensors = (1 - share) * base + share * tuned. A grown vocabulary (`mt prepare
--tokenizers-from`) appends labels, so the base's rows are the tuned run's first rows; the rows of
labels the base never had are the tuned run's as they are, since the base has nothing to say
about them. Score the result with bench_domain.py like any run.
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from torch import Tensor

from mt.files import BEST_WEIGHTS
from mt.model.checkpoint import load_tensors
from mt.model.rundir import save_weights
from mt.model.transformer import make_model
from mt.models import read_model_config


def blended(base: dict[str, Tensor], tuned: dict[str, Tensor], share: float) -> dict[str, Tensor]:
    """`share` of the tuned weights and the rest of the base's, name by name; rows past the
    base's (labels it never had) stay the tuned run's."""
    out = {}
    for name, tensor in tuned.items():
        head = slice(0, base[name].shape[0]) if tensor.dim() else ...
        mixed = tensor.float().clone()
        mixed[head] = (1 - share) * base[name].float() + share * tensor[head].float()
        out[name] = mixed.to(tensor.dtype)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base", type=Path, required=True)
    parser.add_argument("--tuned", type=Path, required=True)
    parser.add_argument("--share", type=float, required=True, help="of the tuned weights, 0-1")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if not 0 <= args.share <= 1:
        parser.error(f"--share must be between 0 and 1, got {args.share}")
    base, _ = load_tensors(args.base / BEST_WEIGHTS)
    tuned, _ = load_tensors(args.tuned / BEST_WEIGHTS)
    model = make_model(read_model_config(args.tuned))
    model.load_state_dict(blended(base, tuned, args.share))  # checks the shapes against model.json
    if args.out.exists():
        shutil.rmtree(args.out)
    keep = shutil.ignore_patterns("checkpoints", "last.safetensors", "calibration.json")
    shutil.copytree(args.tuned, args.out, ignore=keep)
    save_weights(args.out / BEST_WEIGHTS, model)
    print(f"{args.out}: {args.share:.0%} of {args.tuned}, {1 - args.share:.0%} of {args.base}")


if __name__ == "__main__":
    main()
