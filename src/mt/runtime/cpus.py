"""How many CPU cores this process may use, counted without importing torch (an exported model
translates without it)."""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")
_IMPORTED = time.monotonic()


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


def seconds_since_start() -> float:
    """Seconds since this process started (Linux: /proc/self/stat, so the interpreter's start
    and every import count), else since mt was first imported."""
    try:
        fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime
        return time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic() - _IMPORTED
