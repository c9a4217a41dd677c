"""--precision auto/bf16/fp16 (autocast, a loss scaler for fp16) and --compile, on the CPU."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch
from torch import nn

import mt.train.launch
from conftest import write_corpus
from mt.catalog.modelinfo import read_train_config, resolve
from mt.config import ConfigError, DecodeConfig, ModelConfig, PrepareConfig, TrainConfig
from mt.data.prepare.pipeline import prepare_corpus
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.model.loss import evaluate_teacher_forced
from mt.model.precision import (
    PROBE_ROUNDS,
    ProbeResult,
    autocast,
    cpu_flags,
    machine_id,
    probe_precision,
    resolve_precision,
)
from mt.model.precision import busy_machine as real_busy_machine
from mt.model.probes import probe_decoding, probe_training
from mt.model.transformer import make_model
from mt.train.launch import train_run
from mt.train.reporting import SilentReporter
from mt.train.run_config import resumed_train_config
from mt.train.trainer import Trainer
from train_support import copy_task, epoch_steps, make_trainer

CPU = torch.device("cpu")
BF16_CPU = frozenset({"avx2", "avx512_bf16"})


@pytest.fixture(autouse=True)
def cpu_with_bf16(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests probe as a CPU with bf16 instructions would, whatever this one has (an
    AVX2-only CPU takes fp32 without probing: its own test below)."""
    monkeypatch.setattr("mt.model.precision.cpu_flags", lambda: BF16_CPU)


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


class FakeClock:
    """Time that passes only when a workload says so: probes are tested without timing."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def fake_workload(clock: FakeClock, seconds: dict[str, float], outputs: dict[str, float]):
    calls = {"fp32": 0, "bf16": 0}

    def run(mode: str) -> torch.Tensor:
        calls[mode] += 1
        clock.now += seconds[mode]
        return torch.tensor(outputs[mode])

    return run, calls


def close(a: torch.Tensor, b: torch.Tensor) -> bool:
    return abs(float(a - b)) < 0.01


@pytest.mark.parametrize(
    ("seconds", "outputs", "expected"),
    [
        ({"fp32": 1.0, "bf16": 0.7}, {"fp32": 2.0, "bf16": 2.001}, "bf16"),
        ({"fp32": 1.0, "bf16": 0.95}, {"fp32": 2.0, "bf16": 2.001}, "fp32"),  # within the noise
        ({"fp32": 1.0, "bf16": 2.0}, {"fp32": 2.0, "bf16": 2.0}, "fp32"),  # AVX2: bf16 slower
        ({"fp32": 1.0, "bf16": 0.5}, {"fp32": 2.0, "bf16": 2.5}, "fp32"),  # faster but different
    ],
)
def test_auto_takes_bf16_only_where_the_probe_finds_it_faster_with_the_same_results(
    tmp_path: Path, seconds: dict, outputs: dict, expected: str
) -> None:
    clock = FakeClock()
    run, _ = fake_workload(clock, seconds, outputs)
    probe = lambda: probe_precision(  # noqa: E731
        run, close, key={"k": 1}, clock=clock, cache=tmp_path / "cache.json"
    )
    mode, reason = resolve_precision("auto", CPU, probe=probe, what="training")
    assert mode == expected
    assert reason.startswith(f"{expected} (probe of training on this CPU: bf16 ")


def test_the_verdict_is_cached_per_key_and_a_broken_cache_is_probed_again(tmp_path: Path) -> None:
    clock, cache = FakeClock(), tmp_path / "cache.json"
    run, calls = fake_workload(clock, {"fp32": 1.0, "bf16": 0.5}, {"fp32": 1.0, "bf16": 1.0})
    first = probe_precision(run, close, key={"model": "a"}, clock=clock, cache=cache)
    measured = dict(calls)
    again = probe_precision(run, close, key={"model": "a"}, clock=clock, cache=cache)
    assert (first.cached, again.cached, again.choice) == (False, True, "bf16")
    assert calls == measured, "a cached verdict runs nothing"
    probe_precision(run, close, key={"model": "b"}, clock=clock, cache=cache)
    assert calls["fp32"] > measured["fp32"], "another model shape is probed"
    cache.write_text("{not json")
    assert not probe_precision(run, close, key={"model": "a"}, clock=clock, cache=cache).cached


def test_a_busy_machine_verdict_serves_its_run_but_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mt.model import precision

    assert real_busy_machine(lambda: (1.0, 1.0, 1.0)) == ""
    busy = real_busy_machine(lambda: (64.0, 1.0, 1.0))
    assert busy.startswith("load average 64.0 on ")
    monkeypatch.setattr(precision, "busy_machine", lambda: busy)
    clock, cache = FakeClock(), tmp_path / "cache.json"
    run, _ = fake_workload(clock, {"fp32": 1.0, "bf16": 0.5}, {"fp32": 1.0, "bf16": 1.0})
    first = probe_precision(run, close, key={"model": "a"}, clock=clock, cache=cache)
    assert (first.choice, first.busy) == ("bf16", busy)
    assert "not cached, load average 64.0" in first.reason("training")
    again = probe_precision(run, close, key={"model": "a"}, clock=clock, cache=cache)
    assert not again.cached, "the next start probes again"


def test_a_model_that_cannot_run_in_bf16_here_trains_in_fp32(tmp_path: Path) -> None:
    # oneDNN has no bf16 LSTM on AVX2-only CPUs: the RNN baseline's probe must not crash.
    def workload(mode: str) -> torch.Tensor:
        if mode == "bf16":
            raise RuntimeError("could not create a primitive descriptor for the LSTM. Run more")
        return torch.ones(1)

    cache = tmp_path / "cache.json"
    probe = lambda: probe_precision(workload, close, key={"k": 2}, cache=cache)  # noqa: E731
    mode, reason = resolve_precision("auto", CPU, probe=probe, what="training")
    assert mode == "fp32"
    assert reason == (
        "fp32 (bf16 cannot run training on this CPU: could not create a primitive descriptor "
        "for the LSTM)"
    )
    assert probe_precision(workload, close, key={"k": 2}, cache=cache).cached


def test_auto_without_a_probe_stays_fp32() -> None:
    assert resolve_precision("auto", CPU) == (
        "fp32",
        "fp32 (auto without a probe: nothing measured)",
    )


@pytest.mark.parametrize(("supported", "expected"), [(True, "bf16"), (False, "fp32")])
def test_auto_on_a_gpu_follows_its_bf16_support(
    monkeypatch: pytest.MonkeyPatch, supported: bool, expected: str
) -> None:
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: supported)
    assert resolve_precision("auto", torch.device("cuda"))[0] == expected


@pytest.mark.parametrize("requested", ["fp32", "bf16", "fp16"])
def test_a_named_precision_is_kept_whatever_the_machine(requested: str) -> None:
    def never() -> ProbeResult:
        raise AssertionError("a named precision needs no probe")

    assert resolve_precision(requested, CPU, probe=never)[0] == requested


def test_cpu_flags_come_from_the_cpuinfo_flags_line(tmp_path: Path) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\nmodel name\t: Some Xeon\nflags\t\t: fpu avx2 amx_bf16 amx_tile\n\n"
        "processor\t: 1\nflags\t\t: fpu avx2 amx_bf16 amx_tile\n"
    )
    assert cpu_flags(cpuinfo) == {"fpu", "avx2", "amx_bf16", "amx_tile"}
    assert cpu_flags(tmp_path / "missing") == frozenset()


@pytest.mark.parametrize(("mode", "expected"), [("bf16", torch.bfloat16), ("auto", torch.float32)])
def test_autocast_computes_in_the_named_dtype(mode: str, expected: torch.dtype) -> None:
    """A stored run's "auto" (teacher-forced evaluation) computes as written, in fp32."""
    layer = nn.Linear(4, 4)
    with autocast(CPU, mode):
        assert layer(torch.ones(2, 4)).dtype == expected


def test_the_real_probes_leave_the_model_and_the_random_state_as_they_were() -> None:
    torch.manual_seed(3)
    model = make_model(
        ModelConfig(src_vocab=40, tgt_vocab=50, d_model=16, ff=32, heads=2, layers=1)
    )
    weights = {k: v.clone() for k, v in model.state_dict().items()}
    state = torch.random.get_rng_state()
    for result in (probe_training(model.config, CPU, lambda: model), probe_decoding(model, CPU)):
        assert result.choice in ("fp32", "bf16") and result.fp32_seconds > 0
    assert torch.equal(torch.random.get_rng_state(), state)
    assert all(torch.equal(v, weights[k]) for k, v in model.state_dict().items())
    assert all(p.grad is None for p in model.parameters())


def test_decoding_in_bf16_computes_in_bf16(trained_run: Path) -> None:
    translator = open_translator(
        resolve(trained_run), TranslateOptions(decode=DecodeConfig(precision="bf16")), device="cpu"
    )
    dtypes: set[torch.dtype] = set()
    for module in translator.run.model.modules():
        if isinstance(module, nn.Linear):
            module.register_forward_hook(lambda _m, _i, output: dtypes.add(output.dtype))
    translator.translate(["Ilse likes bread."]).__next__()
    assert dtypes == {torch.bfloat16}
    assert translator.precision_reason == "bf16 (as asked)"


def test_auto_is_the_default_and_a_resumed_run_keeps_it() -> None:
    assert TrainConfig().precision == "auto"
    assert DecodeConfig().precision == "auto"
    resumed = resumed_train_config(TrainConfig(), {"max_steps": 5})
    assert (resumed.precision, resumed.max_steps) == ("auto", 5)


def test_a_run_stores_auto_reports_the_choice_and_keeps_it_where_it_resumes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def verdict(choice: str):
        return lambda config, device, build: ProbeResult(choice, 1.0, 0.5, agrees=True)

    monkeypatch.setattr(mt.train.launch, "probe_training", verdict("bf16"))
    prepared = tmp_path / "prepared"
    prepare_corpus(
        write_corpus(tmp_path / "corpus.tsv"),
        out=prepared,
        config=PrepareConfig(src_vocab=150, tgt_vocab=180),
    )
    run, reporter = tmp_path / "run", SilentReporter()
    tiny = {"max_steps": 2, "batch_size": 16, "lr": 0.5, "warmup": 20}
    train_run(prepared=prepared, out=run, preset="thesis-small", changes=tiny, reporter=reporter)
    assert any("precision: bf16 (probe of training on this CPU" in m for m in reporter.messages)
    assert read_train_config(run)[0].precision == "auto", "decided again on another machine"
    monkeypatch.setattr(mt.train.launch, "probe_training", verdict("fp32"))  # a fresh probe differs
    resumed = SilentReporter()
    summary = train_run(resume=run, changes={"max_steps": 3}, reporter=resumed)
    assert summary.steps == 3
    assert "precision: bf16 (kept from this run's checkpoint)" in " ".join(resumed.messages)

    monkeypatch.setattr(mt.train.launch, "machine_id", lambda: "another machine")
    moved = SilentReporter()
    train_run(resume=run, changes={"max_steps": 4}, reporter=moved)
    assert any("precision: fp32 (probe of training" in m for m in moved.messages)


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("MT_COMPILE_TESTS") != "1",
    reason="compiling costs about 50 s of CPU (docs/code.md): make test-compile runs it",
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


def test_a_cached_training_verdict_builds_no_model() -> None:
    config = ModelConfig(src_vocab=40, tgt_vocab=50, d_model=16, ff=32, heads=2, layers=1)
    first = probe_training(config, CPU, lambda: make_model(config))

    def never() -> nn.Module:
        raise AssertionError("a cached verdict needs no model")

    again = probe_training(config, CPU, never)
    assert (again.cached, again.choice) == (True, first.choice)


@pytest.mark.parametrize(("bf16_seconds", "cached"), [(0.95, False), (0.7, True), (2.0, True)])
def test_a_close_call_is_timed_again_and_not_cached(
    tmp_path: Path, bf16_seconds: float, cached: bool
) -> None:
    """bf16 at 1.05x (the threshold is 1.1x) is timed for twice the rounds and decides only its
    own run; clear verdicts (1.43x, 0.5x) are timed once and kept."""
    clock, cache = FakeClock(), tmp_path / "cache.json"
    run, calls = fake_workload(clock, {"fp32": 1.0, "bf16": bf16_seconds}, {"fp32": 1, "bf16": 1})
    first = probe_precision(run, close, key={"model": "a"}, clock=clock, cache=cache, repeats=1)
    assert calls["bf16"] == 1 + PROBE_ROUNDS * (1 if cached else 2)
    assert bool(first.busy) is not cached
    again = probe_precision(run, close, key={"model": "a"}, clock=clock, cache=cache, repeats=1)
    assert again.cached is cached
    if not cached:
        assert "not cached, bf16 1.05x is too close to the 1.1x threshold" in first.reason("x")


def test_lowering_the_kernels_instruction_set_is_another_machine(monkeypatch) -> None:
    """A verdict probed with AVX-512 kernels must not be reused under ONEDNN_MAX_CPU_ISA=AVX2."""
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    full = machine_id()
    monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", "AVX2")
    assert machine_id() != full


def test_a_cpu_without_bf16_instructions_takes_fp32_without_probing() -> None:
    def never() -> ProbeResult:
        raise AssertionError("nothing to probe on an AVX2-only CPU")

    avx2 = frozenset({"avx", "avx2", "fma"})
    assert resolve_precision("auto", CPU, probe=never, flags=avx2) == (
        "fp32",
        "fp32 (this CPU has no bf16 instructions: nothing to probe)",
    )
    assert resolve_precision("bf16", CPU, probe=never, flags=avx2)[0] == "bf16"


def test_an_undecided_decoding_probe_keeps_fp32_for_a_while(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mt.model import precision

    monkeypatch.setattr(precision, "busy_machine", lambda: "load average 9.0 on 2 CPUs")
    clock, cache = FakeClock(), tmp_path / "cache.json"
    run, calls = fake_workload(clock, {"fp32": 1.0, "bf16": 0.5}, {"fp32": 1.0, "bf16": 1.0})
    first = probe_precision(run, close, key={"m": 1}, clock=clock, cache=cache, keep_undecided=60)
    assert first.choice == "fp32" and "undecided, load average 9.0" in first.reason("decoding")
    measured = dict(calls)
    again = probe_precision(run, close, key={"m": 1}, clock=clock, cache=cache, keep_undecided=60)
    assert again.cached and again.choice == "fp32" and calls == measured, "not probed again"
    monkeypatch.setattr(precision.time, "time", lambda: first.until + 1)
    assert precision.cached_verdict({"m": 1}, cache=cache) is None, "its time is up"


def test_an_uncached_auto_decodes_in_fp32_and_probes_after_enough_sentences(
    trained_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mt.decode.engine as engine

    probed: list[int] = []

    def probe(model, device) -> ProbeResult:
        probed.append(translator.engine.decoded)
        return ProbeResult("bf16", 1.0, 0.5, agrees=True)

    monkeypatch.setattr(engine, "probe_decoding", probe)
    monkeypatch.setattr(engine, "PROBE_AFTER", 4)
    options = TranslateOptions(decode=DecodeConfig(beam_size=1, precision="auto", batch_size=2))
    translator = open_translator(resolve(trained_run), options, device="cpu")
    assert translator.engine.precision == "fp32" and "probed after 4 sentences" in (
        translator.precision_reason
    )
    list(translator.translate(["Ilse likes bread."] * 3))
    assert probed == [] and translator.engine.precision == "fp32"
    list(translator.translate(["Bruno likes soup."] * 3))
    assert len(probed) == 1 and probed[0] >= 4 and translator.engine.precision == "bf16"
