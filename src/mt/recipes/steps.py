"""Resumable steps for a recipe (`make model`): each step declares its inputs, options and outputs,
and is skipped when its stamp says the same inputs and options gave outputs still there, unchanged.

STAMPS/STEP.json is written before a step runs ("complete": false) and after it succeeds
("complete": true, outputs added). Next time a step is skipped (complete, all the same), resumed
(incomplete, same inputs and options) or run again: its outputs removed first and every step
downstream of it rerun (their stamps removed at its start, so a killed recipe still redoes them).

A file is known by its SHA-256, trusted without rereading while its size and nanosecond mtime
match the stamp (as git's index does): a recipe's files come to hundreds of megabytes.
"""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Protocol

from mt._version import __version__
from mt.errors import MtError
from mt.runtime.interrupts import handling
from mt.storage.checksums import file_sha256
from mt.storage.files import write_json

STAMP_FORMAT = 1

Listing = dict[str, dict[str, Any] | None]
"""path -> {"size", "mtime_ns", "sha256"} of every file below the paths named; None for a path
that does not exist."""


@dataclass(frozen=True)
class Glob:
    """The files of `folder` matching `pattern`, in name order, found when the command runs (an
    earlier step writes them)."""

    folder: Path
    pattern: str


@dataclass(frozen=True)
class Command:
    """A program and its arguments, run without a shell; `python -m mt` is the `mt` command line
    of this very environment."""

    argv: tuple[str | Path | Glob, ...]

    def expand(self) -> list[str]:
        words: list[str] = []
        for word in self.argv:
            if isinstance(word, Glob):
                words += [str(path) for path in sorted(word.folder.glob(word.pattern))]
            else:
                words.append(str(word))
        return words

    def shown(self) -> str:
        """As a person would type it: `mt ...` and `python ...`, not the interpreter's path."""
        words = self.expand()
        if words[:3] == [sys.executable, "-m", "mt"]:
            words = ["mt", *words[3:]]
        elif words[:1] == [sys.executable]:
            words = ["python", *words[1:]]
        return shlex.join(words)


@dataclass(frozen=True)
class Resume:
    """How a step goes on after a kill: `commands`, when every file of `needs` was left."""

    commands: tuple[Command, ...]
    needs: tuple[Path, ...] = ()


@dataclass(frozen=True)
class Step:
    name: str
    commands: tuple[Command, ...]
    inputs: tuple[Path, ...] = ()  # files, or folders (every file below them)
    options: Mapping[str, Any] = field(default_factory=dict)  # JSON values
    outputs: tuple[Path, ...] = ()  # files, or folders it alone writes
    clears: tuple[Path, ...] | None = None  # what a new run removes first; None: the outputs
    after: tuple[str, ...] = ()  # the steps whose outputs it reads
    resume: Resume | None = None
    keeps_outputs: bool = False  # its command checks what it finds and goes on from it
    absent: str = ""  # why it has nothing to do (its data is missing): its outputs are removed
    tools: tuple[tuple[str, str], ...] = ()  # (program, how to install it), checked before it runs


class Action(Enum):
    SKIP = "skipped"
    RUN = "run"
    RESUME = "resumed"


@dataclass(frozen=True)
class Decision:
    action: Action
    why: str  # "up to date", "options changed: vocab", "after prepare", ...
    fresh: bool = True  # a run removes the outputs first


class Report(Protocol):
    """What a recipe tells its user: a line a step (mt.cli.release prints them)."""

    def skipped(self, step: Step, decision: Decision) -> None: ...

    def running(self, step: Step, decision: Decision) -> None: ...

    def done(self, step: Step, seconds: float) -> None: ...


Runner = Callable[[Command], None]


# ----- files -----------------------------------------------------------------------------------


def listing(paths: Sequence[Path], known: Listing | None = None) -> Listing:
    """Every file below `paths` with its size, modification time and digest; a digest in `known`
    is reused for a file of the same size and modification time."""
    known = known or {}
    found: Listing = {}
    for path in paths:
        if path.is_dir():
            files = sorted(p for p in path.rglob("*") if p.is_file())
            found.update((p.as_posix(), _record(p, known.get(p.as_posix()))) for p in files)
        elif path.is_file():
            found[path.as_posix()] = _record(path, known.get(path.as_posix()))
        else:
            found[path.as_posix()] = None
    return found


def _record(path: Path, known: dict[str, Any] | None) -> dict[str, Any]:
    stat = path.stat()
    record = {"size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    if known and all(known.get(key) == value for key, value in record.items()):
        return {**record, "sha256": known["sha256"]}
    return {**record, "sha256": file_sha256(path)}


def changed(recorded: Listing, now: Listing) -> list[str]:
    """The paths whose content differs (or that came or went)."""
    digests = [
        {path: (r or {}).get("sha256") for path, r in side.items()} for side in (recorded, now)
    ]
    names = sorted(set(digests[0]) | set(digests[1]))
    return [name for name in names if digests[0].get(name, "") != digests[1].get(name, "")]


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


# ----- stamps ----------------------------------------------------------------------------------


def read_stamp(stamps: Path, step: Step) -> dict[str, Any] | None:
    """The step's stamp; None when it is missing or not one (garbled, another format)."""
    try:
        stamp = json.loads((stamps / f"{step.name}.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    fields = ("options", "inputs", "outputs", "complete")
    if not isinstance(stamp, dict) or stamp.get("format") != STAMP_FORMAT:
        return None
    if stamp.get("step") != step.name or any(key not in stamp for key in fields):
        return None
    return stamp


def _write_stamp(stamps: Path, step: Step, inputs: Listing, outputs: Listing | None) -> None:
    write_json(
        stamps / f"{step.name}.json",
        {
            "format": STAMP_FORMAT,
            "step": step.name,
            "mt": __version__,  # for the record: a new mt alone does not redo a step
            "complete": outputs is not None,
            "options": _plain(step.options),
            "inputs": inputs,
            "outputs": outputs or {},
        },
    )


def _plain(options: Mapping[str, Any]) -> Any:
    """The options as a JSON round trip gives them back (tuples become lists)."""
    return json.loads(json.dumps(dict(options), sort_keys=True))


# ----- deciding and running --------------------------------------------------------------------


def decide(step: Step, stamp: dict[str, Any] | None, inputs: Listing, forced: str = "") -> Decision:
    """Skip, resume or run `step`, and why; `forced` is a reason to run it whatever the stamp."""
    if forced:
        return Decision(Action.RUN, forced)
    if stamp is None:
        return Decision(Action.RUN, "no stamp", fresh=not step.keeps_outputs)
    old, new = stamp["options"], _plain(step.options)
    options = sorted(k for k in {*old, *new} if k not in old or k not in new or old[k] != new[k])
    if options:
        return Decision(Action.RUN, f"options changed: {', '.join(options)}")
    moved = changed(stamp["inputs"], inputs)
    if moved:
        return Decision(Action.RUN, f"inputs changed: {_few(moved)}")
    if not stamp["complete"]:
        if step.resume and all(path.exists() for path in step.resume.needs):
            return Decision(Action.RESUME, "it stopped before the end")
        return Decision(Action.RUN, "it stopped before the end", fresh=not step.keeps_outputs)
    moved = changed(stamp["outputs"], listing(step.outputs, stamp["outputs"]))
    if moved:
        return Decision(Action.RUN, f"outputs changed: {_few(moved)}", fresh=not step.keeps_outputs)
    return Decision(Action.SKIP, "up to date")


def _few(paths: list[str]) -> str:
    return ", ".join(paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")


def run_steps(
    steps: Sequence[Step],
    *,
    stamps: Path,
    runner: Runner,
    report: Report,
    forced: Collection[str] = (),
) -> list[tuple[str, Decision]]:
    """Each step skipped, resumed or run in order (`forced`: names run whatever their stamps);
    what was decided for each. A failed command ends it with an MtError naming the step."""
    ran: set[str] = set()
    decisions = []
    for index, step in enumerate(steps):
        stamp = read_stamp(stamps, step)
        inputs = listing(step.inputs, stamp["inputs"] if stamp else None)
        why = "--from-step" if step.name in forced else ""
        why = why or next((f"after {name}" for name in step.after if name in ran), "")
        decision = decide(step, stamp, inputs, why)
        decisions.append((step.name, decision))
        if decision.action is Action.SKIP:
            report.skipped(step, decision)
            continue
        report.running(step, decision)
        started = time.monotonic()
        for later in dependents(steps, index):
            (stamps / f"{later.name}.json").unlink(missing_ok=True)
        _run_step(step, decision, inputs, stamps=stamps, runner=runner)
        ran.add(step.name)
        report.done(step, time.monotonic() - started)
    return decisions


def dependents(steps: Sequence[Step], index: int) -> list[Step]:
    """The steps after steps[index] that read its outputs, directly or through another."""
    names = {steps[index].name}
    found = []
    for step in steps[index + 1 :]:
        if names.intersection(step.after):
            names.add(step.name)
            found.append(step)
    return found


def _run_step(
    step: Step, decision: Decision, inputs: Listing, *, stamps: Path, runner: Runner
) -> None:
    for program, advice in () if step.absent else step.tools:
        if shutil.which(program) is None:
            raise MtError(f"{step.name}: {program} is missing: {advice}")
    if decision.action is Action.RUN and (decision.fresh or step.absent):
        for path in step.outputs if step.clears is None else step.clears:
            _remove(path)
    _write_stamp(stamps, step, inputs, None)
    commands = () if step.absent else step.commands
    if step.resume and decision.action is Action.RESUME:
        commands = step.resume.commands
    for command in commands:
        try:
            runner(command)
        except MtError as error:
            raise MtError(f"{step.name}: {error}", error.exit_code) from None
    _write_stamp(stamps, step, inputs, listing(step.outputs))


def run_command(command: Command) -> None:
    """Run `command` in the foreground, its output the terminal's. Ctrl-C reaches it as it reaches
    this process (one process group), so this waits for it to stop; a SIGTERM sent to this process
    alone is passed on (mt's commands stop on it as on Ctrl-C, their state saved)."""
    words = command.expand()
    try:
        process = subprocess.Popen(words)
    except OSError as error:
        raise MtError(f"cannot run {words[0]}: {error.strerror or error}", 1) from None
    interrupted = []

    def pass_on(signum: int, frame: object) -> None:
        interrupted.append(signum)
        process.send_signal(signal.SIGTERM)

    with handling(pass_on, signal.SIGTERM):
        while True:
            try:
                code = process.wait()
                break
            except KeyboardInterrupt:
                interrupted.append(signal.SIGINT)
    if interrupted or code in (130, -signal.SIGINT, -signal.SIGTERM):
        raise MtError("interrupted; run the recipe again to go on from this step", 130)
    if code:
        raise MtError(f"`{command.shown()}` failed (exit status {code})", 1)
