"""What the benchmarks share: their common options, the machine they ran on, their stated
targets, and the JSON they write.

Every benchmark is a module of this package, run from the repository root:

    python -m benchmarks.quality.bench_general --help

Its `main(argv)` builds its parser with `parser(__spec__.name, __doc__)` and adds the options
several benchmarks share with the `add_*` functions below (one spelling, default and help each;
a benchmark still names its own default where it measures at another size), then its own.

`report` prints each target's line, writes the figures as JSON beside the printed table (the
machine, the git commit, the date and the command line with them, so a doc's table can cite the
file), and gives the exit status, which fails on a miss:

    checks = [Target("CT2 int8 speed, x PyTorch fp32", speed, ">=", 3.0)]
    sys.exit(report(args.out / "results.json", figures, checks, threads=args.threads))

A benchmark that prints "MISS" and exits 0 hides the miss from `make` and from CI; here the
status is 1 whenever one target is missed.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import torch

from mt.storage.atomic import atomic_write_text

DOMAINS = Path("../shared/data/domains")
"""The four domains' shared development data (mt.recipes.domain_split splits it by document)."""
GENERAL = Path("../shared/data/general")
"""FLORES, TICO-19, XQuAD and the monolingual Spanish (mt.recipes.general_split)."""
MISSED = 1
"""The exit status of a benchmark that missed one of its targets."""
_COMPARE = {
    ">=": lambda value, bound: value >= bound,
    "<=": lambda value, bound: value <= bound,
    "within": lambda value, bound: abs(value) <= bound,
}


@dataclass(frozen=True)
class Target:
    """One stated target: `value` `op` `bound` ("speed >= 3.0"; "gap within 1.0": |gap| <= 1)."""

    name: str
    value: float
    op: str
    bound: float

    def __post_init__(self) -> None:
        if self.op not in _COMPARE:
            raise ValueError(f"target {self.name!r}: op must be one of {sorted(_COMPARE)}")

    @property
    def met(self) -> bool:
        return not math.isnan(self.value) and _COMPARE[self.op](self.value, self.bound)

    def line(self) -> str:
        """What the benchmark prints: the figure, the target, and MET or MISS."""
        return f"{self.name}: {self.value:.4g} (target {self.op} {self.bound:g}): " + (
            "MET" if self.met else "MISS"
        )


def parser(module: str, doc: str | None) -> argparse.ArgumentParser:
    """A benchmark's parser: `python -m MODULE` as its program, its docstring as the description,
    shown as written (its usage lines and what it measures)."""
    return argparse.ArgumentParser(
        prog=f"python -m {module}",
        description=doc,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def add_run(
    parser: argparse.ArgumentParser,
    *,
    default: Path | None = None,
    help: str = "the run (or `mt export`) to measure",
) -> None:
    """--run: the model measured; required where there is no default."""
    parser.add_argument("--run", type=Path, default=default, required=default is None, help=help)


def add_data(
    parser: argparse.ArgumentParser,
    *,
    default: Path | None = None,
    required: bool = False,
    help: str = "a prepared directory (mt prepare): its selection and test parts",
) -> None:
    """--data: the prepared directory whose parts are translated."""
    parser.add_argument("--data", type=Path, default=default, required=required, help=help)


def add_domains(parser: argparse.ArgumentParser) -> None:
    """--domains: the shared domain data, split by mt.recipes.domain_split."""
    parser.add_argument(
        "--domains", type=Path, default=DOMAINS, help="the four domains' data (../shared)"
    )


def add_part(
    parser: argparse.ArgumentParser,
    *,
    choices: tuple[str, str] = ("dev", "test"),
    default: str = "test",
) -> None:
    """--part: the development part, where choices are made, or the test part, scored once for
    the record (`choices[0]` names the development part)."""
    parser.add_argument(
        "--part",
        choices=choices,
        default=default,
        help=f"{choices[0]}: where choices are made; {choices[1]}: once, for the record",
    )


def add_limit(
    parser: argparse.ArgumentParser,
    default: int,
    *,
    flag: str = "--limit",
    help: str = "pairs translated at most",
) -> None:
    """--limit (or --sentences): how much of a part is translated."""
    parser.add_argument(flag, type=int, default=default, help=help)


def add_beam(parser: argparse.ArgumentParser, default: int, *, flag: str = "--beam") -> None:
    """--beam (or --beam-size, where a benchmark has always spelt it so): the beam width."""
    parser.add_argument(flag, type=int, default=default, help="beam width (1: greedy search)")


def add_threads(
    parser: argparse.ArgumentParser, default: int | None = 2, *, help: str = ""
) -> None:
    """--threads: the CPU threads each engine translates (or trains) with."""
    parser.add_argument(
        "--threads", type=int, default=default, help=help or "CPU threads (default: %(default)s)"
    )


def add_device(parser: argparse.ArgumentParser, default: str = "auto") -> None:
    parser.add_argument("--device", default=default, help="auto, cpu or cuda")


def add_out(
    parser: argparse.ArgumentParser, default: Path | None, *, flag: str = "--out", help: str = ""
) -> None:
    """--out (a folder) or --json (a file): where the figures go."""
    parser.add_argument(flag, type=Path, default=default, help=help or "where the figures go")


def cpu() -> tuple[str, list[str]]:
    """The CPU's model name and its flags that matter for matrix work (avx2, avx512*, amx*):
    machines of one type differ in them, and they decide what bf16 and int8 cost."""
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
    """The machine line printed beside a benchmark's figures."""
    model, flags = cpu()
    return (
        f"cpu: {model} ({os.cpu_count()} cores), flags: {' '.join(flags) or 'none'}, "
        f"torch {torch.__version__} capability {torch.backends.cpu.get_cpu_capability()}, "
        f"threads {threads}"
    )


def load_average() -> str:
    """The load average: a shared machine is slower."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def machine_line(threads: int) -> str:
    """The machine and its load, printed before a benchmark's figures."""
    return f"machine: {describe(threads)}; load average {load_average()}"


def commit() -> str:
    """The checked-out commit, with "+changes" when the tree differs from it ("unknown" outside
    git)."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        status = ["git", "status", "--porcelain", "--untracked-files=no"]
        dirty = subprocess.run(status, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+changes" if dirty else "")


def provenance(threads: int) -> dict[str, object]:
    """Where and when the figures were measured, and how to measure them again."""
    model, flags = cpu()
    return {
        "machine": {
            "cpu": model,
            "cores": os.cpu_count(),
            "flags": flags,
            "threads": threads,
            "described": describe(threads),
            "load_average": load_average(),
        },
        "commit": commit(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": command_line(),
    }


def command_line() -> str:
    """How this benchmark was started, to start it again: `python -m benchmarks.GROUP.NAME ARGS`
    for a module of this package (sys.argv[0] holds only its file), else `python SCRIPT ARGS`."""
    spec = getattr(sys.modules["__main__"], "__spec__", None)
    program = ["-m", spec.name] if spec is not None else sys.argv[:1]
    return " ".join([Path(sys.executable).name, *program, *sys.argv[1:]])


def report(path: Path, figures: object, targets: Sequence[Target], *, threads: int) -> int:
    """Print each target's line, write `figures`, the targets and the provenance to `path` as
    JSON (atomically), and return the exit status: 0 when every target is met, MISSED if not."""
    for target in targets:
        print(target.line(), flush=True)
    missed = [target.name for target in targets if not target.met]
    document = {
        **provenance(threads),
        "figures": figures,
        "targets": [{**asdict(target), "met": target.met} for target in targets],
        "missed": missed,
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(path, json.dumps(document, indent=2, default=str) + "\n")
    print(f"figures: {path}" + (f"; {len(missed)} target(s) missed" if missed else ""), flush=True)
    return MISSED if missed else 0
