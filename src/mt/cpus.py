"""How many CPU cores this process may use, counted without importing torch (an exported model
translates without it)."""

from __future__ import annotations

import functools
import os
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")


@functools.cache
def physical_cores(cpuinfo: Path = CPUINFO) -> int:
    """Cores (not hyper-threads) among the CPUs this process may run on: what torch uses by
    default, and one CTranslate2 worker each. Where /proc/cpuinfo can't tell, the CPUs."""
    allowed = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        blocks = cpuinfo.read_text().split("\n\n")
    except OSError:
        return len(allowed) if allowed else os.cpu_count() or 1
    cores = set()
    for block in blocks:
        fields = dict(
            (key.strip(), value.strip())
            for key, _, value in (line.partition(":") for line in block.splitlines())
        )
        if "processor" not in fields or (allowed and int(fields["processor"]) not in allowed):
            continue
        cores.add((fields.get("physical id"), fields.get("core id", fields["processor"])))
    return len(cores) or (len(allowed) if allowed else os.cpu_count() or 1)
