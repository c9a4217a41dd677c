"""Mixed precision: `--precision auto|fp32|bf16|fp16` as one autocast context on any device.

`auto` (the default) takes bf16 only where it was measured to pay: a GPU with bf16 support, or a
CPU with AMX bf16 tiles (oneDNN's bf16 matrix products run on them). An AVX2-only CPU has no bf16
arithmetic, so autocast there converts and computes slower (benchmarks/bench_precision.py,
docs/recipe.md); such a CPU stays fp32.
"""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path

import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
CPUINFO = Path("/proc/cpuinfo")


@functools.cache
def cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str]:
    """The CPU's feature flags (avx2, avx512_bf16, amx_bf16, ...) from the first processor's
    `flags` line; empty where the file can't be read (not Linux), which then counts as no support.
    """
    try:
        lines = cpuinfo.read_text().splitlines()
    except OSError:
        return frozenset()
    for line in lines:
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


def resolve_precision(
    requested: str, device: torch.device, *, flags: frozenset[str] | None = None
) -> tuple[str, str]:
    """The concrete mode for ``requested`` on ``device``, and a short reason to print.

    Any mode but "auto" is kept as asked. "auto" is bf16 on a CUDA GPU that supports it, and on a
    CPU with AMX (flag amx_bf16), where oneDNN's bf16 is clearly faster; otherwise fp32. A CPU
    with avx512_bf16 but no AMX was not measured and stays fp32. ``flags`` replaces the CPU's own
    (tests).
    """
    if requested != "auto":
        return requested, f"{requested} (as asked)"
    if device.type == "cuda":
        if torch.cuda.is_bf16_supported():
            return "bf16", "bf16 (this GPU supports it)"
        return "fp32", "fp32 (this GPU has no bf16)"
    if device.type != "cpu":
        return "fp32", f"fp32 (bf16 not measured on {device.type})"
    return _cpu_precision(cpu_flags() if flags is None else flags)


def _cpu_precision(flags: frozenset[str]) -> tuple[str, str]:
    if "amx_bf16" in flags:
        return "bf16", "bf16 (this CPU has AMX bf16 tiles)"
    if "avx512_bf16" in flags:
        return "fp32", "fp32 (this CPU has AVX-512 bf16 but no AMX: not measured)"
    return "fp32", "fp32 (this CPU has no AMX or AVX-512 bf16)"


def autocast(device: torch.device, precision: str) -> contextlib.AbstractContextManager:
    """Autocast to the chosen half type; fp32 runs as written. "auto" (a stored run's setting,
    or a Trainer built without mt.train.launch) is resolved here for this device."""
    concrete, _ = resolve_precision(precision, device)
    dtype = DTYPES.get(concrete)
    return torch.autocast(device.type, dtype=dtype, enabled=dtype is not None)
