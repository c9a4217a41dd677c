"""Scale-out: K accumulated micro-batches, or N ranks under DDP, take the step one process would.

The ranks here are CPU processes talking over gloo, so the tests run without a GPU: two spawned
trainers, and `torchrun` driving the real command line.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.torch import load_file

from conftest import cli_output as invoke
from mt.config import ModelConfig
from mt.data.feed.batching import TrainData, collate, epoch_batches, step_batches
from mt.errors import MtError
from mt.model.loss import masked_loss_terms
from mt.model.transformer import make_model
from mt.storage.files import read_metrics
from mt.train.distributed import Distributed, setup_distributed
from mt.train.schedule import learning_rate
from mt.train.throughput import RATE_COLUMNS
from mt.train.trainer import Trainer
from train_support import copy_task
from train_support import make_trainer as make_copy_trainer

MODEL = ModelConfig(src_vocab=14, tgt_vocab=14, d_model=32, ff=64, heads=4, layers=1, dropout=0.0)
TIMING = {"tokens_per_second", "elapsed", "eval_seconds", *RATE_COLUMNS}


def make_trainer(run_dir: Path, data: TrainData, dist: Distributed, **changes: object) -> Trainer:
    """The copy-task trainer with settings that learn within a handful of steps."""
    values: dict[str, object] = dict(lr=0.01, warmup=1, batch_size=8)
    values.update(changes)
    return make_copy_trainer(run_dir, data, model=MODEL, dist=dist, **values)


def record_gradients(trainer: Trainer) -> list[dict[str, torch.Tensor]]:
    """The gradients each optimizer step sees, after DDP's all-reduce."""
    seen: list[dict[str, torch.Tensor]] = []
    step = trainer.optimizer.step

    def spy() -> None:
        seen.append({n: p.grad.clone() for n, p in trainer.model.named_parameters()})
        step()

    trainer.optimizer.step = spy  # type: ignore[method-assign]
    return seen


def assert_weights_close(actual: dict, expected: dict, atol: float) -> None:
    """Equal weights, leaving out the key biases.

    A key bias has zero gradient in exact arithmetic (softmax ignores a shift of all scores), so
    Adam turns its rounding noise, which differs between two ways of summing, into steps of about
    lr. Their gradients are compared instead.
    """
    for name, tensor in expected.items():
        keep = torch.ones_like(tensor, dtype=torch.bool)
        size = tensor.shape[0] if tensor.dim() == 1 else 0
        if name.endswith("qkv.bias"):
            keep[size // 3 : 2 * size // 3] = False
        elif name.endswith(".kv.bias"):
            keep[: size // 2] = False
        torch.testing.assert_close(
            actual[name][keep], tensor[keep], atol=atol, rtol=0, msg=lambda m, n=name: f"{n}: {m}"
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ----- gradient accumulation --------------------------------------------------------------------


def test_accumulated_step_equals_one_adam_step_over_the_joined_batches(tmp_path: Path) -> None:
    data = copy_task(40, seed=4)
    trainer = make_trainer(tmp_path, data, Distributed(), grad_accum=2)
    gradients = record_gradients(trainer)
    first, second, *_ = epoch_batches(data.train, trainer.config, epoch=0)
    step = step_batches(data.train, [first, second], world_size=1, rank=0, grad_accum=2)[0]
    micro = step.micro_batches
    assert len(micro) == 2 and step.target_tokens == sum(b.target_tokens for b in micro)
    loss, correct, finite = trainer.train_step(step)

    # By hand: one batch holding both micro-batches, mean loss over its real target tokens.
    torch.manual_seed(trainer.config.seed)
    model = make_model(MODEL)
    joined = collate(data.train, np.concatenate([first, second]))
    logits = model(joined.src, joined.src_mask, joined.tgt_in)[joined.tgt_mask]  # boolean: by hand
    loss_sum, hits = masked_loss_terms(logits, joined.tgt_out[joined.tgt_mask])
    (loss_sum / joined.target_tokens).backward()
    optimizer = torch.optim.Adam(
        model.parameters(), lr=learning_rate(1, 0.01, 1), betas=(0.9, 0.999), eps=1e-9
    )
    optimizer.step()

    assert finite and int(correct) == int(hits)
    assert float(loss) == pytest.approx(float(loss_sum.detach()), rel=1e-6)
    for name, parameter in model.named_parameters():
        torch.testing.assert_close(gradients[0][name], parameter.grad, atol=1e-7, rtol=1e-5)
    assert_weights_close(trainer.model.state_dict(), model.state_dict(), atol=1e-6)


# ----- two ranks against one process --------------------------------------------------------------


def _train_rank(rank: int, port: int, out: Path) -> None:
    """One spawned rank: train 3 steps over gloo and leave gradients and weights for the parent."""
    os.environ.update(
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(port),
        WORLD_SIZE="2",
        RANK=str(rank),
        LOCAL_RANK=str(rank),
    )
    torch.set_num_threads(1)
    dist, device = setup_distributed("auto")
    assert device == "cpu" and dist.rank == rank
    trainer = make_trainer(out / f"run{rank}", copy_task(60, seed=5), dist, max_steps=3)
    gradients = record_gradients(trainer)
    draw = torch.rand(4)  # what the next dropout mask would be drawn from
    reason = trainer.train()
    dist.close()
    torch.save(
        {
            "reason": reason,
            "draw": draw,
            "gradients": gradients,
            "weights": trainer.model.state_dict(),
            "history": trainer.progress.history,
        },
        out / f"rank{rank}.pt",
    )


@pytest.mark.slow
def test_two_ranks_take_the_step_of_one_process_accumulating_two_batches(tmp_path: Path) -> None:
    (tmp_path / "run0").mkdir()
    (tmp_path / "run1").mkdir()
    context = torch.multiprocessing.start_processes(
        _train_rank, args=(free_port(), tmp_path), nprocs=2, join=False, start_method="spawn"
    )
    deadline = time.monotonic() + 120
    try:
        while not context.join(timeout=1):
            assert time.monotonic() < deadline, "the two ranks did not finish in time"
    finally:
        for process in context.processes:
            if process.is_alive():
                process.kill()
    ranks = [torch.load(tmp_path / f"rank{r}.pt") for r in (0, 1)]

    single = make_trainer(
        tmp_path / "single", copy_task(60, seed=5), Distributed(), grad_accum=2, max_steps=3
    )
    gradients = record_gradients(single)
    reason = single.train()

    for result in ranks:
        assert result["reason"] == reason
        assert len(result["gradients"]) == 3
        for step, expected in enumerate(gradients):
            for name, tensor in expected.items():
                torch.testing.assert_close(
                    result["gradients"][step][name], tensor, atol=1e-7, rtol=1e-5
                )
        assert_weights_close(result["weights"], single.model.state_dict(), atol=1e-5)
        # Metrics are summed over ranks: the same rows as the single process.
        for row, expected_row in zip(result["history"], single.progress.history, strict=True):
            for key, value in expected_row.items():
                if key not in TIMING:
                    assert row[key] == pytest.approx(value, rel=1e-6), key
    assert not torch.equal(ranks[0]["draw"], ranks[1]["draw"]), "ranks share dropout masks"
    assert (tmp_path / "run0" / "last.safetensors").is_file()
    assert not any((tmp_path / "run1").iterdir()), "only rank 0 writes files"


def test_resume_refuses_a_world_size_that_cannot_share_the_step(tmp_path: Path) -> None:
    data = copy_task(40, seed=6)
    make_trainer(tmp_path, data, Distributed(), grad_accum=3, max_steps=1).train()
    resumed = make_trainer(tmp_path, data, Distributed(), max_steps=2)
    resumed.dist = Distributed(rank=0, world_size=2)  # restore itself needs no process group
    with pytest.raises(MtError, match="3 batches, which 2 processes cannot share evenly"):
        resumed.restore()


def test_resume_on_fewer_processes_accumulates_to_keep_the_step(tmp_path: Path) -> None:
    data = copy_task(40, seed=6)
    make_trainer(tmp_path, data, Distributed(), grad_accum=4, max_steps=1).train()
    resumed = make_trainer(tmp_path, data, Distributed(), max_steps=2)
    resumed.dist = Distributed(rank=0, world_size=2)
    notes = resumed.restore()
    assert resumed.config.grad_accum == 2
    assert any("share each step's 4 batches" in note for note in notes)


def test_without_torchrun_one_process_and_no_process_group(monkeypatch) -> None:
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    dist, device = setup_distributed("cpu")
    assert (dist.world_size, dist.rank, dist.is_main, dist.enabled) == (1, 0, True, False)
    assert device == "cpu"
    assert dist.agree("why") == "why"
    value = torch.tensor([1.5])
    assert dist.sum(value) is value


def test_torchrun_with_a_fixed_cuda_index_is_refused(monkeypatch) -> None:
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("RANK", "1")
    with pytest.raises(MtError, match="each process uses cuda:LOCAL_RANK"):
        setup_distributed("cuda:1")


# ----- torchrun end to end ---------------------------------------------------------------------

TRAIN = [
    "--preset", "thesis-small", "--dropout", "0", "--batch-size", "8", "--lr", "0.01",
    "--warmup", "1", "--eval-every", "2", "--device", "cpu",
]  # fmt: skip


@pytest.mark.slow
def test_torchrun_two_processes_then_resume_on_one_equals_one_process(
    corpus_file: Path, tmp_path: Path
) -> None:
    prepared, two, one = tmp_path / "prepared", tmp_path / "two", tmp_path / "one"
    invoke("prepare", corpus_file, "--out", prepared, "--src-vocab", "150", "--tgt-vocab", "180")
    command = [
        sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
        "-m", "mt", "train", str(prepared), "--out", str(two), *TRAIN, "--max-steps", "2",
        "--threads", "1",
    ]  # fmt: skip
    env = {**os.environ, "OMP_NUM_THREADS": "1", "COLUMNS": "200"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=180)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "world size: 2" in output
    assert output.count("parameters:") == 1, "only rank 0 reports"

    invoke("train", prepared, "--out", one, *TRAIN, "--max-steps", "4", "--grad-accum", "2")
    step_two = "checkpoints/step-00000002.safetensors"
    expected, actual = load_file(one / step_two), load_file(two / step_two)
    model_only = {name: t for name, t in expected.items() if name.startswith("model.")}
    assert_weights_close(actual, model_only, atol=1e-5)

    output = invoke("train", "--resume", two, "--max-steps", "4")
    assert "--grad-accum 2 for this resumed run" in output
    expected, actual = load_file(one / "last.safetensors"), load_file(two / "last.safetensors")
    assert_weights_close(actual, expected, atol=1e-5)
    rows = read_metrics(two)
    expected_rows = read_metrics(one)
    assert [r["step"] for r in rows] == [r["step"] for r in expected_rows] == [2, 4]
    for row, expected_row in zip(rows, expected_rows, strict=True):
        for key, value in expected_row.items():
            if key not in TIMING:
                assert row[key] == pytest.approx(value, rel=1e-6), key
