"""Killed, interrupted or resumed at any moment, `mt train` loses nothing and ends bitwise the same.

One scenario runs real `mt train` processes: an uninterrupted run, and beside it a run that is
killed (SIGKILL) at seeded moments, once in the middle of writing a checkpoint and once before any
checkpoint exists, interrupted once with Ctrl-C (SIGINT), and resumed with `--resume` after each.
At every stop the files in the run directory must load, and the finished weights must equal the
uninterrupted run's bit for bit. The tests below read what the scenario recorded.
"""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import torch

from conftest import prepare_tiny
from mt.data.tokenization import WordPieceCodec
from mt.errors import MtError
from mt.model.checkpoint import load_tensors
from mt.model.rundir import CHECKPOINTS, load_latest_checkpoint
from mt.storage.files import read_metrics
from mt.train.throughput import RATE_COLUMNS
from train_support import copy_task, make_trainer

TRAIN_FLAGS = [
    *("--preset", "thesis-small", "--lr", "0.5", "--warmup", "20", "--batch-size", "16"),
    *("--max-steps", "48", "--eval-every", "4", "--seed", "3", "--threads", "1", "--device", "cpu"),
    *("--average-last", "3"),  # the snapshots it averages at the end must survive every stop too
    # Both runs compute in fp32: `auto` would probe in each, and on a busy machine two probes of
    # a close call may choose differently (test_precision covers auto on resume).
    *("--precision", "fp32"),
]
# Holds every finished write in its temporary file for a while, so that a kill lands mid-write.
SLOW_WRITES = """
import os, sys, time
real_replace = os.replace
def slow_replace(source, target):
    if str(source).endswith(".tmp"):
        time.sleep(3)
    real_replace(source, target)
os.replace = slow_replace
from mt.cli.app import app
app(args=sys.argv[1:], prog_name="mt")
"""
TIMING = {"tokens_per_second", "elapsed", "eval_seconds", *RATE_COLUMNS}


@dataclass
class Stop:
    """What one interrupted process left behind."""

    how: str
    returncode: int
    stderr: str
    checkpoint_steps: list[int]
    temporaries: list[str]
    problems: list[str] = field(default_factory=list)


@dataclass
class Scenario:
    straight: Path
    resumed: Path
    stops: list[Stop]
    final_stderr: str
    final_returncode: int


def start(args: list[str], program: list[str] | None = None) -> subprocess.Popen:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "COLUMNS": "200"}
    return subprocess.Popen(
        [sys.executable, *(program or ["-m", "mt"]), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def wait_for(process: subprocess.Popen, ready, what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if process.poll() is not None:
            raise AssertionError(f"mt ended (code {process.returncode}) before {what}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def checkpoint_steps(run: Path) -> list[int]:
    folder = run / CHECKPOINTS
    if not folder.is_dir():
        return []
    return sorted(int(p.stem.split("-")[1]) for p in folder.glob("step-*.json"))


def temporaries(run: Path) -> list[str]:
    return sorted(p.name for p in [*run.glob(".*.tmp*"), *run.glob(f"{CHECKPOINTS}/.*.tmp*")])


def loading_problems(run: Path) -> list[str]:
    """Everything that exists in the run directory must load; return what did not."""
    problems = []
    for path in [*run.glob("*.json"), *run.glob(f"{CHECKPOINTS}/*.json")]:
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except ValueError as error:
            problems.append(f"{path.name}: {error}")
    for name in ("source-tokenizer.json", "target-tokenizer.json"):
        if (run / name).exists():
            try:
                WordPieceCodec.load(run / name)
            except MtError as error:
                problems.append(str(error))
    for path in [run / "last.safetensors", run / "best.safetensors"]:
        if path.exists():
            try:
                load_tensors(path)
            except MtError as error:
                problems.append(str(error))
    if (run / "metrics.csv").exists():
        with (run / "metrics.csv").open(encoding="utf-8") as stream:
            list(csv.DictReader(stream))
    if checkpoint_steps(run):
        try:
            _, _, warnings = load_latest_checkpoint(run)
            problems.extend(warnings)
        except MtError as error:
            problems.append(str(error))
    return problems


def stop(process: subprocess.Popen, run: Path, how: str) -> Stop:
    process.send_signal(signal.SIGINT if how == "SIGINT" else signal.SIGKILL)
    _, stderr = process.communicate(timeout=60)
    record = Stop(how, process.returncode, stderr, checkpoint_steps(run), temporaries(run))
    record.problems = loading_problems(run)
    return record


def after_checkpoint(run: Path, step: int):
    return lambda: any(s >= step for s in checkpoint_steps(run))


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    root = tmp_path_factory.mktemp("reliability")
    prepared = prepare_tiny(root)
    straight, resumed = root / "straight", root / "resumed"
    rng = random.Random(6)
    uninterrupted = start(["train", str(prepared), "--out", str(straight), *TRAIN_FLAGS])
    resume = ["train", "--resume", str(resumed)]
    stops = []

    # 1. Killed before the first checkpoint, as soon as the run directory is set up.
    process = start(["train", str(prepared), "--out", str(resumed), *TRAIN_FLAGS])
    wait_for(process, (resumed / "model.json").exists, "model.json")
    stops.append(stop(process, resumed, "SIGKILL before any checkpoint"))

    # 2. Killed at a seeded moment after a seeded checkpoint.
    process = start(resume)
    wait_for(process, after_checkpoint(resumed, rng.randint(4, 12)), "a checkpoint")
    time.sleep(rng.uniform(0.0, 0.2))
    stops.append(stop(process, resumed, "SIGKILL"))

    # 3. Killed while a checkpoint file is being written.
    process = start(resume, ["-c", SLOW_WRITES])
    wait_for(process, lambda: temporaries(resumed), "a temporary checkpoint file")
    stops.append(stop(process, resumed, "SIGKILL while writing"))

    # 4. Ctrl-C at a seeded moment: a checkpoint is saved and mt says how to resume.
    process = start(resume)
    begun = max(checkpoint_steps(resumed))
    wait_for(process, after_checkpoint(resumed, begun + rng.randint(1, 8)), "a checkpoint")
    time.sleep(rng.uniform(0.0, 0.2))
    stops.append(stop(process, resumed, "SIGINT"))

    # 5. Killed at a seeded moment once more.
    process = start(resume)
    begun = max(checkpoint_steps(resumed))
    wait_for(process, after_checkpoint(resumed, begun + rng.randint(1, 8)), "a checkpoint")
    time.sleep(rng.uniform(0.0, 0.2))
    stops.append(stop(process, resumed, "SIGKILL"))

    process = start(resume)
    _, final_stderr = process.communicate(timeout=120)
    _, straight_stderr = uninterrupted.communicate(timeout=120)
    assert uninterrupted.returncode == 0, straight_stderr
    return Scenario(straight, resumed, stops, final_stderr, process.returncode)


@pytest.mark.slow
def test_every_stop_leaves_files_that_load(scenario: Scenario) -> None:
    assert len(scenario.stops) == 5
    for record in scenario.stops:
        assert record.problems == [], (record.how, record.stderr)
        assert "Traceback" not in record.stderr, (record.how, record.stderr)


@pytest.mark.slow
def test_a_kill_before_the_first_checkpoint_resumes_from_step_zero(scenario: Scenario) -> None:
    first, second = scenario.stops[:2]
    assert first.checkpoint_steps == []
    assert "no checkpoint yet: starting it again from step 0" in second.stderr, second.stderr


@pytest.mark.slow
def test_a_kill_during_a_checkpoint_write_keeps_the_previous_one(scenario: Scenario) -> None:
    during = scenario.stops[2]
    assert during.temporaries, "the kill was meant to land while a temporary file existed"
    assert during.checkpoint_steps, during.stderr
    assert temporaries(scenario.resumed) == []  # the next resume cleared the leftovers


@pytest.mark.slow
def test_ctrl_c_saves_a_checkpoint_and_says_how_to_resume(scenario: Scenario) -> None:
    interrupted = scenario.stops[3]
    assert interrupted.returncode == 130, interrupted.stderr
    lines = [line for line in interrupted.stderr.splitlines() if "interrupted" in line]
    assert len(lines) == 1, interrupted.stderr
    step = int(lines[0].split("interrupted at step ")[1].split(";")[0])
    assert f"mt train --resume {scenario.resumed}" in lines[0]
    assert max(interrupted.checkpoint_steps) == step
    resumed_after = scenario.stops[4]
    assert f"resuming {scenario.resumed} at step {step}" in resumed_after.stderr


@pytest.mark.slow
def test_resumed_run_ends_bitwise_equal_to_an_uninterrupted_one(scenario: Scenario) -> None:
    assert scenario.final_returncode == 0, scenario.final_stderr
    assert "Traceback" not in scenario.final_stderr
    for name in ("last.safetensors", "best.safetensors"):
        expected, _ = load_tensors(scenario.straight / name)
        actual, _ = load_tensors(scenario.resumed / name)
        assert expected.keys() == actual.keys()
        for key, tensor in expected.items():
            assert torch.equal(tensor, actual[key]), f"{name}: {key}"

    def rows(run: Path) -> list[dict[str, str]]:
        with (run / "metrics.csv").open(encoding="utf-8") as stream:
            return [{k: v for k, v in r.items() if k not in TIMING} for r in csv.DictReader(stream)]

    assert rows(scenario.resumed) == rows(scenario.straight)


@pytest.mark.parametrize("step", [6, 8], ids=["between evaluations", "on an evaluation step"])
def test_ctrl_c_at_any_step_resumes_to_the_same_weights_and_metrics(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: int
) -> None:
    data = copy_task(120, seed=5)
    straight = make_trainer(tmp_path / "straight", data, max_steps=12, eval_every=4)
    straight.train()

    first = make_trainer(tmp_path / "resumed", data, max_steps=12, eval_every=4)
    real_step = first.train_step

    def train_step(*args):
        if first.progress.step == step - 1:
            first.interrupted = True  # what the SIGINT handler does
        return real_step(*args)

    monkeypatch.setattr(first, "train_step", train_step)
    with pytest.raises(MtError, match=f"interrupted at step {step}; resume with") as caught:
        first.train()
    assert caught.value.exit_code == 130
    second = make_trainer(tmp_path / "resumed", data, max_steps=12, eval_every=4)
    second.restore()
    assert second.progress.step == step
    second.train()
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(tensor, second.model.state_dict()[name]), name
    rows = [
        {k: v for k, v in r.items() if k not in TIMING} for r in read_metrics(tmp_path / "resumed")
    ]
    assert rows == [
        {k: v for k, v in r.items() if k not in TIMING} for r in read_metrics(tmp_path / "straight")
    ]
