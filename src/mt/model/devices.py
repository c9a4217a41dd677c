"""Where a model runs: `--device auto|cpu|cuda[:N]` checked once, for training and decoding."""

from __future__ import annotations

import torch

from mt.errors import MtError


def resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise MtError("--device cuda: no CUDA device is available (use --device cpu or auto)")
    if name not in ("cpu", "cuda") and not name.startswith("cuda:"):
        raise MtError(f"--device must be auto, cpu or cuda, got {name!r}")
    return torch.device(name)
