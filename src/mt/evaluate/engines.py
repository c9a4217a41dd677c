"""What `mt evaluate` measures with: the engine that searches, and the one that scores the
references teacher-forced.

The search is the one `mt translate` uses for the model (the command passes the same
`ct2_model`), so BLEU is what a user gets: for a shipped model on a CPU its int8 CTranslate2
copy, five times PyTorch's speed. The teacher-forced figures come from PyTorch wherever the
model has weights, because CTranslate2's `score_batch` gives only the reference's log-probs and
so no accuracy: a run searched through its copy has its weights loaded beside it for one batched
forward pass (a second or two, against minutes of search). Only an export, which has no weights,
is scored by `score_batch`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import torch

from mt.config import TrainConfig
from mt.data.feed.batching import EncodedPairs
from mt.decode.ct2_engine import ExportedRun
from mt.decode.engine import TeacherForcedScores
from mt.decode.translator import Translator
from mt.model.loss import evaluate_teacher_forced
from mt.model.rundir import load_run
from mt.modelinfo import ModelInfo


@dataclass(frozen=True)
class TeacherForcing:
    """Scores (source, reference) pairs given the reference's prefixes; `name` says with what,
    for the report."""

    score: Callable[[EncodedPairs, TrainConfig], TeacherForcedScores]
    name: str


def teacher_forcing(
    translator: Translator, *, checkpoint: str = "best", threads: int | None = None
) -> TeacherForcing:
    """The translator's own PyTorch model where it searches with one; for a run searched with
    CTranslate2 (a shipped model's int8 copy), the run's `checkpoint` weights loaded on the
    translator's device with `threads` torch threads; CTranslate2's score_batch for an export."""
    run = translator.run
    if not isinstance(run, ExportedRun):
        own = translator.engine.teacher_forced
        return TeacherForcing(own, _pytorch(run.info, "the weights it searched with"))
    if run.info.kind == "export":
        return TeacherForcing(
            run.engine.teacher_forced,
            "CTranslate2 score_batch (an export has no PyTorch weights: no accuracy)",
        )
    device = torch.device(translator.device)
    if threads is not None:
        torch.set_num_threads(threads)
    model = load_run(run.info, checkpoint, device).model
    score = functools.partial(evaluate_teacher_forced, model, device=device)
    return TeacherForcing(
        score, _pytorch(run.info, f"the {checkpoint} weights, loaded beside the search")
    )


def _pytorch(info: ModelInfo, weights: str) -> str:
    # evaluate_teacher_forced computes in the training precision; "auto" runs as written
    precision = info.train.precision if info.train.precision in ("bf16", "fp16") else "fp32"
    return f"PyTorch {precision} on {weights}"


def search_name(translator: Translator) -> str:
    """Which engine searched, in what, for the report: PyTorch with its precision and why, or
    CTranslate2 with its compute type and the model it loaded."""
    run = translator.run
    if not isinstance(run, ExportedRun):
        return f"PyTorch, {translator.precision_reason}"
    loaded = run.engine.translator
    what = "an `mt export`"
    if run.info.kind != "export":
        what = f"the CTranslate2 copy of {run.info.label}"
    return f"CTranslate2 {loaded.compute_type} on {loaded.device}, {what}"
