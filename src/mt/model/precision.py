"""Mixed precision: `--precision auto|fp32|bf16|fp16` as one autocast context on any device.

On a CPU `auto` is measured, not guessed from flags (whether bf16 pays depends on the model's
shapes as much): `probe_precision` runs the model's own workload in both for a second or two and
takes bf16 only where it is PROBE_GAIN faster with the same results; the verdict is cached per
machine, torch, shape and workload. A CUDA GPU takes bf16 where it supports it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import platform
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
CPUINFO = Path("/proc/cpuinfo")
PROBE_GAIN = 1.1  # bf16 must be at least this much faster: smaller gains are within the noise
PROBE_ROUNDS = 3  # alternating rounds; each mode's best round counts
CLOSE_CALL = 0.1  # a speed-up within 10% of PROBE_GAIN is timed again, and not cached if still so
CACHE_ENV = "MT_PRECISION_CACHE"
BF16_INSTRUCTIONS = frozenset({"avx512_bf16", "amx_bf16"})
"""A CPU without either emulates bf16 through fp32 and is never faster: a training probe on a
2-core AVX2 EPYC measured bf16 at 0.03x fp32. Such a CPU takes fp32 without a probe."""

Workload = Callable[[str], torch.Tensor]
"""Runs one unit of the model's own work in the given mode ("fp32" or "bf16") and returns what
the two modes must agree on (a loss, or logits)."""
Agrees = Callable[[torch.Tensor, torch.Tensor], bool]


@functools.cache
def cpu_flags(cpuinfo: Path = CPUINFO) -> frozenset[str]:
    """The CPU's feature flags (avx2, avx512_bf16, amx_bf16, ...) from the first processor's
    `flags` line; empty where the file can't be read (not Linux)."""
    try:
        lines = cpuinfo.read_text().splitlines()
    except OSError:
        return frozenset()
    for line in lines:
        if line.startswith("flags"):
            return frozenset(line.split(":", 1)[1].split())
    return frozenset()


@dataclass(frozen=True)
class ProbeResult:
    choice: str  # "bf16" or "fp32"
    fp32_seconds: float  # the best round of each mode
    bf16_seconds: float
    agrees: bool  # bf16 gave the same results as fp32
    cached: bool = False
    until: float = 0.0  # an undecided verdict (busy) kept until this time.time(), then probed again
    busy: str = ""  # why this verdict was not cached: a busy machine, or too close to call
    failed: str = ""  # bf16 could not run at all here (an operation without bf16 on this CPU)

    @property
    def speedup(self) -> float:
        return self.fp32_seconds / self.bf16_seconds if self.bf16_seconds else 0.0

    def reason(self, what: str) -> str:
        if self.failed:
            return f"fp32 (bf16 cannot run {what} on this CPU: {self.failed})"
        verdict = "same results" if self.agrees else "different results"
        source = "cached probe" if self.cached else "probe"
        busy = f"; not cached, {self.busy}" if self.busy else ""
        if self.busy and self.until:
            busy = f"; undecided, {self.busy}: fp32 until it is probed again"
        return (
            f"{self.choice} ({source} of {what} on this CPU: bf16 {self.speedup:.2f}x fp32, "
            f"{verdict}{busy})"
        )


def resolve_precision(
    requested: str,
    device: torch.device,
    *,
    probe: Callable[[], ProbeResult] | None = None,
    what: str = "the model",
    flags: frozenset[str] | None = None,
) -> tuple[str, str]:
    """The concrete mode for ``requested`` on ``device`` and a reason to print. "auto" is bf16 on
    a CUDA GPU that has it; on a CPU, what ``probe`` measured where ``flags`` show bf16 (or can't
    be read), else fp32."""
    if requested != "auto":
        return requested, f"{requested} (as asked)"
    if device.type == "cuda":
        if torch.cuda.is_bf16_supported():
            return "bf16", "bf16 (this GPU supports it)"
        return "fp32", "fp32 (this GPU has no bf16)"
    if device.type != "cpu":
        return "fp32", f"fp32 (bf16 not measured on {device.type})"
    flags = cpu_flags() if flags is None else flags
    if flags and not flags & BF16_INSTRUCTIONS:
        return "fp32", "fp32 (this CPU has no bf16 instructions: nothing to probe)"
    if probe is None:
        return "fp32", "fp32 (auto without a probe: nothing measured)"
    result = probe()
    return result.choice, result.reason(what)


def probe_precision(
    workload: Workload,
    agrees: Agrees,
    *,
    key: dict[str, object],
    repeats: int = 3,
    clock: Callable[[], float] = time.perf_counter,
    cache: Path | None = None,
    keep_undecided: float = 0.0,
) -> ProbeResult:
    """Time `workload` in fp32 and bf16, alternating rounds of `repeats` calls so that machine
    noise hits both modes alike; bf16 wins when it is PROBE_GAIN faster and `agrees` with fp32.
    The verdict is cached under `key` plus this machine and torch version. One that can't
    decide (a busy machine, a close call) is not, unless `keep_undecided` seconds are given:
    then it is fp32, and later starts take it without probing for that long."""
    known = cached_verdict(key, cache=cache)
    if known is not None:
        return known
    outputs = {"fp32": workload("fp32")}  # warm-up and the comparison
    try:
        outputs["bf16"] = workload("bf16")
    except RuntimeError as error:  # oneDNN has no bf16 LSTM on AVX2-only CPUs, for one
        failed = str(error).split(". ")[0][:120]
        result = ProbeResult("fp32", 0.0, 0.0, agrees=False, failed=failed)
        _write_cache(cache or cache_path(), _cache_key(key), result)
        return result
    best = {"fp32": float("inf"), "bf16": float("inf")}

    def time_rounds() -> None:
        for _ in range(PROBE_ROUNDS):
            for mode in best:
                started = clock()
                for _ in range(repeats):
                    workload(mode)
                best[mode] = min(best[mode], clock() - started)

    time_rounds()
    if close_call(best["fp32"] / best["bf16"]):
        time_rounds()  # more rounds give each mode more chances of a round the host left alone
    same = bool(agrees(outputs["fp32"].float(), outputs["bf16"].float()))
    faster = best["bf16"] * PROBE_GAIN <= best["fp32"]
    result = ProbeResult(
        choice="bf16" if same and faster else "fp32",
        fp32_seconds=best["fp32"],
        bf16_seconds=best["bf16"],
        agrees=same,
        busy=busy_machine() or close_call(best["fp32"] / best["bf16"]),
    )
    if result.busy and keep_undecided > 0:
        result = dataclasses.replace(result, choice="fp32", until=time.time() + keep_undecided)
    if not result.busy or result.until:
        _write_cache(cache or cache_path(), _cache_key(key), result)
    return result


def close_call(speedup: float) -> str:
    """Why a speed-up this near the threshold can't decide for later runs, or "": a probe right
    after training measured 1.04x where fresh ones measure 1.30-1.37x, and its cached verdict
    kept later translations in fp32."""
    if abs(speedup / PROBE_GAIN - 1.0) >= CLOSE_CALL:
        return ""
    return f"bf16 {speedup:.2f}x is too close to the {PROBE_GAIN}x threshold"


def busy_machine(load: Callable[[], tuple[float, ...]] = os.getloadavg) -> str:
    """Why timings taken now can't stand for this machine, or "": with more runnable processes than
    CPUs a probe measured bf16 at 0.59x fp32 where a quiet one measures 1.45x."""
    cpus = os.cpu_count() or 1
    recent = load()[0]
    return f"load average {recent:.1f} on {cpus} CPUs" if recent > cpus else ""


def cached_verdict(key: dict[str, object], *, cache: Path | None = None) -> ProbeResult | None:
    """The verdict an earlier probe left for `key` on this machine, if any: callers check it
    before they build what a probe would need."""
    known = _read_cache(cache or cache_path()).get(_cache_key(key))
    if known is None or (known.get("until") and known["until"] < time.time()):
        return None  # never probed, or an undecided verdict whose time is up
    try:
        return ProbeResult(**{**known, "cached": True})
    except TypeError:  # written by another version of mt: probe again
        return None


def cache_path() -> Path:
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "mt" / "precision.json"


def _cache_key(key: dict[str, object]) -> str:
    text = json.dumps({**key, **_machine()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def machine_id() -> str:
    """What a probe's verdict depends on besides the model: a run resumed where this is the same
    keeps the precision it started in (a fresh probe of a close call could choose otherwise, and
    the resumed run would no longer end as the uninterrupted one)."""
    text = json.dumps(_machine(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _machine() -> dict[str, object]:
    """What decides which precision is faster: the CPU, and the instruction sets torch's and
    oneDNN's kernels may use, which ATEN_CPU_CAPABILITY and ONEDNN_MAX_CPU_ISA can lower."""
    return {
        "cpu": _cpu_name(),
        "flags": sorted(cpu_flags()),
        "kernels": [torch.backends.cpu.get_cpu_capability(), os.environ.get("ONEDNN_MAX_CPU_ISA")],
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "python": platform.python_version(),
    }


@functools.cache
def _cpu_name() -> str:
    try:
        for line in CPUINFO.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _read_cache(path: Path) -> dict[str, dict]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # no cache yet, or one we can't read: probe again
    return data if isinstance(data, dict) else {}


def _write_cache(path: Path, entry: str, result: ProbeResult) -> None:
    from mt.storage.atomic import atomic_write_text

    data = _read_cache(path)
    data[entry] = {k: v for k, v in asdict(result).items() if k != "cached"}
    with contextlib.suppress(OSError):  # a read-only home only costs the next run a probe
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(data, indent=1, sort_keys=True))


def autocast(device: torch.device, precision: str) -> contextlib.AbstractContextManager:
    """Autocast to the chosen half type; fp32 (and "auto", which only mt.train.launch and the
    decoders resolve) runs as written."""
    dtype = DTYPES.get(precision)
    return torch.autocast(device.type, dtype=dtype, enabled=dtype is not None)
