"""What `mt evaluate` measures with: the engine that searches, and the one that scores the
references teacher-forced.

The search is the one `mt translate` uses for the model (the same `ct2_model`), so BLEU is what a
user gets. The teacher-forced figures come from PyTorch wherever the model has weights, because
CTranslate2's `score_batch` gives no accuracy; only an export is scored by `score_batch`.

On a CPU the teacher-forced pass runs as CTranslate2 searches: one worker a core, each with one
torch thread, each over every other sentence (two threads sharing a matrix product wait for each
other at every step: 15.5 s against about 7 s on the 2-core machine).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from mt.catalog.modelinfo import ModelInfo
from mt.config import TrainConfig
from mt.data.feed.batching import EncodedPairs
from mt.decode.ct2_engine import ExportedRun
from mt.decode.engine import TeacherForcedScores
from mt.decode.translator import Translator
from mt.model.loss import TokenStats, evaluate_teacher_forced
from mt.model.rundir import load_run
from mt.runtime.cpus import physical_cores


@dataclass(frozen=True)
class TeacherForcing:
    """Scores (source, reference) pairs teacher-forced; `name` says with what, for the report."""

    score: Callable[[EncodedPairs, TrainConfig], TeacherForcedScores]
    name: str


def teacher_forcing(
    translator: Translator, *, checkpoint: str = "best", threads: int | None = None
) -> TeacherForcing:
    """The translator's own PyTorch model; for a run searched with CTranslate2, its `checkpoint`
    weights loaded beside it; score_batch for an export. `threads`: the CPU workers."""
    run = translator.run
    workers = threads or physical_cores()
    if not isinstance(run, ExportedRun):
        name = _pytorch(run.info, "the weights it searched with", translator.device, workers)
        return TeacherForcing(_in_workers(run.model, translator.device, workers), name)
    if run.info.kind == "export":
        return TeacherForcing(
            run.engine.teacher_forced,
            "CTranslate2 score_batch (an export has no PyTorch weights: no accuracy)",
        )
    device = torch.device(translator.device)
    model = load_run(run.info, checkpoint, device).model
    name = _pytorch(
        run.info, f"the {checkpoint} weights, loaded beside the search", device, workers
    )
    return TeacherForcing(_in_workers(model, device, workers), name)


def _in_workers(
    model: nn.Module, device: torch.device, workers: int
) -> Callable[[EncodedPairs, TrainConfig], TokenStats]:
    """evaluate_teacher_forced over all pairs; on a CPU split between `workers` threads of one
    torch thread each, row k to worker k % workers (neighbours in a file are alike in length)."""

    def score(data: EncodedPairs, config: TrainConfig) -> TokenStats:
        if device.type != "cpu" or workers == 1:
            return evaluate_teacher_forced(model, data, config, device)
        parts = [np.arange(k, len(data), workers) for k in range(workers)]
        data.lengths()  # computed once, here, not by two workers at once
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            with ThreadPoolExecutor(workers) as pool:
                sums = pool.map(
                    lambda rows: evaluate_teacher_forced(model, data, config, device, rows), parts
                )
                return sum(sums, TokenStats())
        finally:
            torch.set_num_threads(threads)

    return score


def _pytorch(info: ModelInfo, weights: str, device: torch.device, workers: int) -> str:
    # evaluate_teacher_forced computes in the training precision; "auto" runs as written
    precision = info.train.precision if info.train.precision in ("bf16", "fp16") else "fp32"
    place = f"{workers} workers of one thread" if device.type == "cpu" and workers > 1 else device
    return f"PyTorch {precision} on {weights}, {place}"


def search_name(translator: Translator) -> str:
    """Which engine searched, in what, for the report: PyTorch's precision or CTranslate2's type."""
    run = translator.run
    if not isinstance(run, ExportedRun):
        return f"PyTorch, {translator.precision_reason}"
    loaded = run.engine.translator
    what = "an `mt export`"
    if run.info.kind != "export":
        what = f"the CTranslate2 copy of {run.info.label}"
    return f"CTranslate2 {loaded.compute_type} on {loaded.device}, {what}"
