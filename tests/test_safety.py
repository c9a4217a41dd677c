"""Run directories are trusted for nothing: damaged, foreign or hostile files give clear errors.

A truncated or corrupted file fails its checksum and is named; a resume falls back to the older
checkpoint and says so; a full disk or a refused write leaves the previous checkpoint as it was; a
non-finite loss stops training (or is skipped when allowed); a planted pickle is never unpickled;
a run whose parts do not fit together is refused with the mismatch named.
"""

from __future__ import annotations

import errno
import json
import os
import pickle
import re
import shutil
from pathlib import Path

import pytest
import torch

from conftest import cli_output as invoke
from conftest import prepare_tiny
from mt.catalog.modelinfo import resolve
from mt.errors import MtError
from mt.model.checkpoint import load_tensors, save_tensors
from mt.model.rundir import CHECKPOINTS, load_latest_checkpoint, load_run
from mt.storage import atomic
from mt.train import trainer as train_module
from mt.train.launch import start_training
from mt.train.reporting import SilentReporter
from train_support import copy_task, epoch_steps, make_trainer

SOURCE = Path(__file__).parents[1] / "src" / "mt"


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny run with checkpoints at steps 4 and 6."""
    root = tmp_path_factory.mktemp("safety")
    prepared = prepare_tiny(root)
    start_training(
        prepared_dir=prepared,
        run_dir=root / "run",
        preset="thesis-small",
        changes={"max_steps": 6, "eval_every": 2, "batch_size": 16, "lr": 0.5, "warmup": 20},
        device_name="cpu",
        threads=None,
        force=False,
        reporter=SilentReporter(),
    )
    return root / "run"


@pytest.fixture
def run(trained: Path, tmp_path: Path) -> Path:
    """A copy of the tiny run that a test may damage."""
    return Path(shutil.copytree(trained, tmp_path / "run"))


def checkpoint(run: Path, step: int, suffix: str = ".safetensors") -> Path:
    return run / CHECKPOINTS / f"step-{step:08d}{suffix}"


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# ----- damaged files ------------------------------------------------------------------------------


def test_truncated_weights_are_reported_with_their_path(run: Path) -> None:
    weights = run / "best.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(MtError, match=re.escape(f"{weights}: not a valid safetensors file")):
        load_run(resolve(run))
    output = invoke("translate", "--model", run, "Hello.", "--device", "cpu", code=2)
    assert output.startswith("error:") and "best.safetensors" in output, output


def test_a_changed_byte_fails_the_checksum(run: Path) -> None:
    weights = run / "last.safetensors"
    data = bytearray(weights.read_bytes())
    data[-5] ^= 0x40  # inside the last tensor: still a well-formed file
    weights.write_bytes(bytes(data))
    with pytest.raises(MtError, match=re.escape(f"{weights}: checksum mismatch")):
        load_tensors(weights)
    assert "checksum mismatch" in invoke(
        "translate", "--model", run, "Hi.", "--checkpoint", "last", code=2
    )


def test_resume_skips_a_damaged_checkpoint_and_warns(run: Path) -> None:
    newest = checkpoint(run, 6)
    newest.write_bytes(newest.read_bytes()[:-100])
    output = invoke("train", "--resume", run, "--max-steps", "7", "--device", "cpu")
    assert re.search(r"warning: skipping damaged checkpoint: .*step-00000006\.safetensors", output)
    assert f"resuming {run} at step 4" in output, output
    assert "stopped: reached --max-steps 7" in output


def test_damaged_checkpoint_json_is_skipped_too(run: Path) -> None:
    checkpoint(run, 6, ".json").write_text('{"format_version": 1, "progress": {', encoding="utf-8")
    _, state, warnings = load_latest_checkpoint(run)
    assert state["progress"]["step"] == 4
    assert len(warnings) == 1 and "step-00000006.json" in warnings[0]


def test_no_good_checkpoint_left_is_a_clear_error(run: Path) -> None:
    for step in (4, 6):
        checkpoint(run, step).write_bytes(b"\0" * 64)
    output = invoke("train", "--resume", run, "--max-steps", "8", code=2)
    assert "no resumable checkpoint found" in output and "--force" in output, output


def test_checkpoint_state_from_another_format_is_skipped(run: Path) -> None:
    path = checkpoint(run, 6, ".json")
    state = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**state, "format_version": 99}), encoding="utf-8")
    _, state, warnings = load_latest_checkpoint(run)
    assert state["progress"]["step"] == 4
    assert "format version 99" in warnings[0]


def test_checkpoint_of_another_model_is_a_clear_error(run: Path) -> None:
    for step in (4, 6):
        tensors, _ = load_tensors(checkpoint(run, step))
        name = next(k for k in sorted(tensors) if k.startswith("model.") and k.endswith("weight"))
        tensors[name] = torch.zeros(3, 3)
        save_tensors(checkpoint(run, step), tensors)
    line = invoke("train", "--resume", run, "--max-steps", "8", code=2).strip()
    assert line.startswith("error: ") and "no resumable checkpoint found" in line, line
    assert f"step-00000004.safetensors: weights do not match model.json: {name[6:]}" in line


# ----- failed writes ------------------------------------------------------------------------------


def fail_with(number: int):
    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(number, os.strerror(number))

    return fail


@pytest.mark.parametrize(
    ("target", "number"),
    [(os, errno.ENOSPC), (atomic, errno.EACCES)],
    ids=["disk full at fsync", "permission denied at create"],
)
def test_a_failed_write_is_one_line_and_keeps_the_previous_checkpoint(
    run: Path, monkeypatch: pytest.MonkeyPatch, target: object, number: int
) -> None:
    before = snapshot(run / CHECKPOINTS)
    monkeypatch.setattr(target, "fsync" if target is os else "_create_temporary", fail_with(number))
    output = invoke("train", "--resume", run, "--max-steps", "8", code=1)
    assert re.search(
        rf"error: cannot write {re.escape(str(run))}/\S+: {os.strerror(number)}", output
    )
    monkeypatch.undo()
    assert snapshot(run / CHECKPOINTS) == before
    assert [p.name for p in run.rglob(".*tmp*")] == []
    _, state, warnings = load_latest_checkpoint(run)
    assert state["progress"]["step"] == 6 and warnings == []


# ----- non-finite losses --------------------------------------------------------------------------


def poison(monkeypatch: pytest.MonkeyPatch, targets: list[tuple[int, ...]]) -> None:
    """Training batches with exactly these target labels get a NaN loss."""
    real = train_module.masked_loss_terms

    def masked_loss_terms(logits, target, *rest):
        loss_sum, correct = real(logits, target, *rest)
        if torch.is_grad_enabled() and tuple(target.tolist()) in targets:
            loss_sum = loss_sum * float("nan")
        return loss_sum, correct

    monkeypatch.setattr(train_module, "masked_loss_terms", masked_loss_terms)


def batch_targets(trainer, position: int) -> tuple[int, ...]:
    batch = epoch_steps(trainer)[position].micro_batches[0]
    return tuple(batch.tgt_out[batch.tgt_mask].tolist())


def test_a_non_finite_loss_stops_training_and_keeps_the_last_good_checkpoint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    trainer = make_trainer(tmp_path, copy_task(160, seed=3), max_steps=9, eval_every=2)
    poison(monkeypatch, [batch_targets(trainer, 5)])
    with pytest.raises(MtError, match=r"non-finite loss at step 6; training stopped") as caught:
        trainer.train()
    assert caught.value.exit_code == 1 and "--skip-nonfinite" in str(caught.value)
    tensors, state, _ = load_latest_checkpoint(tmp_path)
    assert state["progress"]["step"] == 4
    assert all(bool(torch.isfinite(t.float()).all()) for t in tensors.values())
    last, _ = load_tensors(tmp_path / "last.safetensors")
    assert all(bool(torch.isfinite(t).all()) for t in last.values())


def test_skipped_batches_are_counted_and_a_resume_does_not_replay_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = copy_task(160, seed=4)  # 10 batches of 16: every step below is in the first epoch
    settings = {"eval_every": 3, "skip_nonfinite": 2}
    straight = make_trainer(tmp_path / "straight", data, max_steps=8, **settings)
    poison(monkeypatch, [batch_targets(straight, 2), batch_targets(straight, 4)])
    straight.train()
    first, *skipped = straight.reporter.messages
    assert first.startswith("first step ") and first.endswith(" s after the command started")
    assert skipped == [
        "skipped a batch with a non-finite loss at step 3",
        "skipped a batch with a non-finite loss at step 4",
    ]

    first = make_trainer(tmp_path / "resumed", data, max_steps=5, **settings)
    first.train()
    second = make_trainer(tmp_path / "resumed", data, max_steps=8, **settings)
    second.restore()
    second.train()
    for name, tensor in straight.model.state_dict().items():
        assert torch.equal(tensor, second.model.state_dict()[name]), name


# ----- nothing is ever unpickled ------------------------------------------------------------------


class Payload:
    """Unpickling this runs a shell command that creates the marker file."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("form", ["pickle", "torch.save"])
def test_planted_pickles_are_refused_and_never_run(run: Path, tmp_path: Path, form: str) -> None:
    marker = tmp_path / "pwned"

    def plant(path: Path) -> None:
        if form == "pickle":
            path.write_bytes(pickle.dumps(Payload(marker)))
        else:
            torch.save({"weight": Payload(marker)}, path)

    plant(run / "best.safetensors")
    with pytest.raises(MtError, match="best.safetensors: not a valid safetensors file"):
        load_run(resolve(run))
    for step in (4, 6):
        plant(checkpoint(run, step))
    with pytest.raises(MtError, match="no resumable checkpoint found"):
        load_latest_checkpoint(run)
    plant(run / "source-tokenizer.json")
    with pytest.raises(MtError, match="source-tokenizer.json is corrupt"):
        load_run(resolve(run), "last")
    plant(run / "model.json")
    assert "model.json: not a readable JSON file" in invoke(
        "translate", "--model", run, "Hi.", code=2
    )
    assert not marker.exists()


def test_no_module_can_unpickle() -> None:
    unsafe = re.compile(r"\bpickle\b|\btorch\.load\b|\bnp\.load\b|\bexec\(|(?<![.\w])eval\(")
    modules = sorted(SOURCE.rglob("*.py"))
    assert len(modules) > 100  # every module of every subpackage, not only the top level's
    for path in modules:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            assert not unsafe.search(line), f"{path.name}:{number}: {line.strip()}"


# ----- parts that do not fit together -------------------------------------------------------------


def edit_json(path: Path, change) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    change(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_tokenizer_of_another_size_is_refused(run: Path) -> None:
    shutil.copy(run / "source-tokenizer.json", run / "target-tokenizer.json")
    with pytest.raises(MtError, match="target tokenizer has 150 labels, model.json says 180"):
        load_run(resolve(run))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["model"].update(d_model=32),
            r"weights do not match model.json: \S+ has shape \(.+\), the config needs \(.+\)",
        ),
        (lambda d: d["model"].update(layers=2), "weights do not match model.json: missing"),
        (lambda d: d["model"].update(src_vocab=151), "source tokenizer has 150 labels"),
        (lambda d: d.update(format_version=99), "run format version 99, this mt reads version 2"),
        (lambda d: d["model"].update(colour="red"), "unknown field"),
        (lambda d: d.pop("model"), "model.json: no model configuration"),
        (lambda d: d["model"].update(heads="four"), "model.json: not a valid model configuration"),
    ],
)
def test_model_json_that_does_not_fit_the_weights_is_refused(run: Path, change, message) -> None:
    edit_json(run / "model.json", change)
    with pytest.raises(MtError, match=message):
        load_run(resolve(run))
    assert "Traceback" not in invoke("translate", "--model", run, "Hi.", code=2)


def test_train_json_of_another_format_is_refused(run: Path) -> None:
    edit_json(run / "train.json", lambda d: d.update(format_version=3))
    with pytest.raises(MtError, match="train.json: run format version 3, .* the mt version that"):
        load_run(resolve(run))


def test_weights_of_another_format_version_are_refused(run: Path) -> None:
    tensors, _ = load_tensors(run / "best.safetensors")
    save_tensors(run / "best.safetensors", tensors, metadata={"format_version": "7"})
    with pytest.raises(MtError, match="best.safetensors: weights of run format version 7"):
        load_run(resolve(run))


def test_weights_missing_a_tensor_are_refused(run: Path) -> None:
    tensors, metadata = load_tensors(run / "best.safetensors")
    name = sorted(tensors)[0]
    del tensors[name]
    save_tensors(run / "best.safetensors", tensors, metadata={"format_version": "1"})
    with pytest.raises(MtError, match=f"weights do not match model.json: missing {name}"):
        load_run(resolve(run))
