"""mt.runtime.native_memory: the caches are capped before oneDNN builds a primitive (a user's own
setting wins), and freed heap memory goes back to the system, measured in a fresh process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mt.runtime.native_memory import CACHE_CAPACITY, CACHE_VARIABLES

SHAPES = textwrap.dedent(
    """
    import sys, torch
    {setup}
    torch.set_num_threads(1)
    layer = torch.nn.Linear(64, 512)
    for rows in range(1, 300):  # a new shape each time, as sentence batches are
        with torch.autocast("cpu", dtype=torch.bfloat16):
            layer(torch.randn(rows, 64)).float().sum().backward()
    status = open("/proc/self/status").read()
    print(int(status.split("VmRSS:")[1].split()[0]) // 1024)
    """
)


def resident_mb(setup: str, env: dict[str, str]) -> int:
    code = SHAPES.format(setup=setup)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return int(result.stdout.split()[-1])


def test_the_cli_caps_both_caches_and_a_users_setting_wins() -> None:
    code = "import os, mt.cli.app; print(*(os.environ[n] for n in {names}))"
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES}
    shown = subprocess.run(
        [sys.executable, "-c", code.format(names=CACHE_VARIABLES)],
        capture_output=True, text=True, check=True, env=env,
    ).stdout.split()  # fmt: skip
    assert shown == [str(CACHE_CAPACITY)] * 2
    env["LRU_CACHE_CAPACITY"] = "7"
    shown = subprocess.run(
        [sys.executable, "-c", code.format(names=CACHE_VARIABLES)],
        capture_output=True, text=True, check=True, env=env,
    ).stdout.split()  # fmt: skip
    assert shown == [str(CACHE_CAPACITY), "7"]


def _bf16_kernels() -> bool:
    """Whether this CPU runs bf16 in oneDNN primitives (avx512_bf16 or AMX): on one with only
    AVX2 the bf16 layer goes another way and builds no primitives to cache."""
    try:
        flags = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or not __import__("torch").backends.mkldnn.is_available(),
    reason="oneDNN on Linux only",
)
@pytest.mark.skipif(not _bf16_kernels(), reason="no bf16 oneDNN kernels on this CPU (AVX2 only)")
def test_capped_caches_keep_resident_memory_down_with_new_shapes() -> None:
    env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES}
    unbounded = resident_mb("", env)
    bounded = resident_mb(
        "from mt.runtime.native_memory import bound_native_caches; bound_native_caches()", env
    )
    assert bounded < 0.75 * unbounded, (bounded, unbounded)


def test_release_freed_memory_runs_where_glibc_is() -> None:
    from mt.runtime.native_memory import release_freed_memory

    assert release_freed_memory() is sys.platform.startswith("linux")
