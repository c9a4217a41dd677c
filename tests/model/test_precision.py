"""--precision auto/bf16/fp16 (autocast, a loss scaler for fp16) and --compile, on the CPU."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from torch import nn

import mt.model.precision
from conftest import write_corpus
from mt.config import ConfigError, PrepareConfig, TrainConfig, resumed_train_config
from mt.data.prepare import prepare_corpus
from mt.model.loss import evaluate_teacher_forced
from mt.model.precision import autocast, cpu_flags, resolve_precision
from mt.model.rundir import read_train_config
from mt.train.launch import train_run
from mt.train.reporting import SilentReporter
from mt.train.trainer import Trainer
from train_support import copy_task, epoch_steps, make_trainer

CPU = torch.device("cpu")
AMX = frozenset({"avx2", "avx512f", "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8"})


def linear_output_dtypes(trainer: Trainer) -> set[torch.dtype]:
    """Dtypes the model's linear layers compute in during training."""
    seen: set[torch.dtype] = set()
    for module in trainer.model.modules():
        if isinstance(module, nn.Linear):
            module.register_forward_hook(lambda _m, _i, output: seen.add(output.dtype))
    return seen


def train_steps(tmp_path: Path, precision: str, steps: int = 4) -> Trainer:
    """A few optimizer steps in ``precision``, checking it is the dtype the layers compute in."""
    data = copy_task(40, seed=7)
    trainer = make_trainer(tmp_path / precision, data, precision=precision, lr=0.01, warmup=1)
    dtypes = linear_output_dtypes(trainer)
    for step in epoch_steps(trainer)[:steps]:
        loss, _, finite = trainer.train_step(step)
        assert finite and torch.isfinite(loss)
    expected = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[precision]
    assert dtypes == {expected}
    assert all(p.dtype == torch.float32 for p in trainer.model.parameters()), "master weights"
    return trainer


def selection_loss(trainer: Trainer) -> float:
    data, config = trainer.data.selection, trainer.config
    return evaluate_teacher_forced(trainer.model, data, config, trainer.device).loss


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_half_precision_on_cpu_trains_close_to_fp32(tmp_path: Path, precision: str) -> None:
    reference = train_steps(tmp_path, "fp32")
    trainer = train_steps(tmp_path, precision)
    untrained = make_trainer(tmp_path / "untrained", reference.data)
    assert selection_loss(reference) < selection_loss(untrained) - 0.3, "the steps must learn"
    assert selection_loss(trainer) == pytest.approx(selection_loss(reference), abs=0.05)
    # fp16 needs a loss scale against gradient underflow; bf16 has fp32's range and needs none.
    assert trainer.scaler.is_enabled() == (precision == "fp16")


def test_unknown_precision_is_refused() -> None:
    with pytest.raises(ConfigError, match="unknown --precision 'fp8'"):
        TrainConfig(precision="fp8")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (AMX, "bf16"),
        (frozenset({"avx2", "avx512f", "avx512_bf16"}), "fp32"),  # no AMX: not measured
        (frozenset({"avx", "avx2"}), "fp32"),  # the AMD EPYC the recipe was measured on
        (frozenset(), "fp32"),  # no /proc/cpuinfo
    ],
)
def test_auto_on_a_cpu_takes_bf16_only_with_amx(flags: frozenset[str], expected: str) -> None:
    mode, reason = resolve_precision("auto", CPU, flags=flags)
    assert mode == expected
    assert reason.startswith(f"{expected} (this CPU ")


@pytest.mark.parametrize(("supported", "expected"), [(True, "bf16"), (False, "fp32")])
def test_auto_on_a_gpu_follows_its_bf16_support(
    monkeypatch: pytest.MonkeyPatch, supported: bool, expected: str
) -> None:
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: supported)
    assert resolve_precision("auto", torch.device("cuda"))[0] == expected


@pytest.mark.parametrize("requested", ["fp32", "bf16", "fp16"])
def test_a_named_precision_is_kept_whatever_the_machine(requested: str) -> None:
    assert resolve_precision(requested, CPU, flags=frozenset())[0] == requested
    assert resolve_precision(requested, CPU, flags=AMX)[0] == requested


def test_cpu_flags_come_from_the_cpuinfo_flags_line(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nmodel name\t: Some Xeon\nflags\t\t: fpu avx2 amx_bf16 amx_tile\n\n"
        "processor\t: 1\nflags\t\t: fpu avx2 amx_bf16 amx_tile\n"
    )
    assert cpu_flags(cpuinfo) == {"fpu", "avx2", "amx_bf16", "amx_tile"}
    assert cpu_flags(tmp_path / "missing") == frozenset()


@pytest.mark.parametrize(
    ("flags", "expected"), [(AMX, torch.bfloat16), (frozenset(), torch.float32)]
)
def test_auto_autocast_computes_in_the_dtype_it_resolves_to(
    monkeypatch: pytest.MonkeyPatch, flags: frozenset[str], expected: torch.dtype
) -> None:
    """A Trainer built without mt.train.launch, or a stored run's "auto" at evaluation, works."""
    monkeypatch.setattr(mt.model.precision, "cpu_flags", lambda: flags)
    layer = nn.Linear(4, 4)
    with autocast(CPU, "auto"):
        assert layer(torch.ones(2, 4)).dtype == expected


def test_auto_is_the_default_and_a_resumed_run_keeps_it() -> None:
    assert TrainConfig().precision == "auto"
    resumed = resumed_train_config(TrainConfig(), {"max_steps": 5})
    assert (resumed.precision, resumed.max_steps) == ("auto", 5)


def test_a_run_stores_auto_reports_the_choice_and_resumes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(mt.model.precision, "cpu_flags", lambda: AMX)
    prepared = tmp_path / "prepared"
    prepare_corpus(
        write_corpus(tmp_path / "corpus.tsv"),
        out=prepared,
        config=PrepareConfig(src_vocab=150, tgt_vocab=180),
    )
    run, reporter = tmp_path / "run", SilentReporter()
    tiny = {"max_steps": 2, "batch_size": 16, "lr": 0.5, "warmup": 20}
    train_run(prepared=prepared, out=run, preset="thesis-small", changes=tiny, reporter=reporter)
    assert any("precision: bf16 (this CPU has AMX bf16 tiles)" in m for m in reporter.messages)
    assert read_train_config(run)[0].precision == "auto", "decided again where it resumes"
    monkeypatch.setattr(mt.model.precision, "cpu_flags", lambda: frozenset({"avx2"}))
    resumed = SilentReporter()
    summary = train_run(resume=run, changes={"max_steps": 3}, reporter=resumed)
    assert summary.steps == 3
    assert any("precision: fp32 (this CPU has no AMX" in m for m in resumed.messages)


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("MT_COMPILE_TESTS") != "1",
    reason="compiling takes 20-40 s on 2 CPU cores; run with MT_COMPILE_TESTS=1",
)
def test_compiled_training_follows_eager_training(tmp_path: Path) -> None:
    """torch.compile (with a C compiler, inductor on the CPU) computes the same steps."""
    data = copy_task(40, seed=8)
    eager = make_trainer(tmp_path / "eager", data, max_steps=2)
    compiled = make_trainer(tmp_path / "compiled", data, max_steps=2, compile=True)
    assert compiled.forward is not compiled.model
    eager.train()
    compiled.train()
    for row, expected in zip(compiled.progress.history, eager.progress.history, strict=True):
        assert row["train_loss"] == pytest.approx(expected["train_loss"], rel=1e-5)
        assert row["selection_loss"] == pytest.approx(expected["selection_loss"], rel=1e-4)
