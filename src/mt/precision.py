"""Mixed precision: one autocast context for `--precision fp32|bf16|fp16` on any device."""

from __future__ import annotations

import contextlib

import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}


def autocast(device: torch.device, precision: str) -> contextlib.AbstractContextManager:
    """Autocast to the chosen half type; fp32 runs as written."""
    dtype = DTYPES.get(precision)
    return torch.autocast(device.type, dtype=dtype, enabled=dtype is not None)
