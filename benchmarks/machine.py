"""The machine a benchmark ran on, printed beside its figures: machines of one type differ in their
CPU flags (AVX-512, AMX decide what bf16 and int8 cost), and a shared machine is slower (load)."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import torch


def cpu() -> tuple[str, list[str]]:
    """The CPU's model name and its flags that matter for matrix work (avx2, avx512*, amx*)."""
    model = platform.processor() or platform.machine()
    flags: set[str] = set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
            elif line.startswith("flags"):
                flags = {f for f in line.split() if f == "avx2" or f.startswith(("avx512", "amx"))}
    except OSError:
        pass
    return model, sorted(flags)


def describe(threads: int) -> str:
    model, flags = cpu()
    return (
        f"cpu: {model} ({os.cpu_count()} cores), flags: {' '.join(flags) or 'none'}, "
        f"torch {torch.__version__} capability {torch.backends.cpu.get_cpu_capability()}, "
        f"threads {threads}"
    )


def load_average() -> str:
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())
