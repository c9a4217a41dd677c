"""What a Translator searches with: PyTorch over a trained run (mt.decode.search), or CTranslate2
over an export (mt.decode.ct2_engine), opened through `open_run` by callers that never ask which.
Both meet the Translator at one seam, `SearchEngine`, and documents (mt.decode.documents.align) at
a second, `AttentionEngine`: the cross-attention that places tags.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import torch
from torch import nn

from mt.catalog.modelinfo import ModelInfo
from mt.config import DecodeConfig, TrainConfig
from mt.data.feed.batching import EncodedPairs, pad
from mt.data.tokenization import BOS, PAD
from mt.decode.ct2_engine import ExportedRun
from mt.decode.hypotheses import Hypothesis
from mt.decode.search import search
from mt.errors import MtError
from mt.model.loss import evaluate_teacher_forced
from mt.model.precision import ProbeResult, autocast, resolve_precision
from mt.model.probes import known_decoding, probe_decoding
from mt.model.rundir import LoadedRun


class TeacherForcedScores(Protocol):
    """Mean cross-entropy per reference label; accuracy None where an engine cannot tell."""

    @property
    def loss(self) -> float: ...

    @property
    def accuracy(self) -> float | None: ...


class SearchEngine(Protocol):
    def search(self, sources: list[np.ndarray], config: DecodeConfig) -> list[list[Hypothesis]]:
        """Source ids (each ending in EOS, unpadded) -> hypotheses, best first, in input order."""
        ...

    def teacher_forced(self, data: EncodedPairs, train_config: TrainConfig) -> TeacherForcedScores:
        """The reference translations' cross-entropy (and accuracy) given their prefixes."""
        ...


class AttentionEngine(Protocol):
    def attention(
        self, sources: list[np.ndarray], targets: list[Sequence[int]]
    ) -> list[np.ndarray]:
        """For each source (ids ending in EOS) and translation (ids without BOS or EOS), teacher-
        forced: the last decoder layer's cross-attention averaged over its heads, float32
        (len(target) + 1, len(source)); row k predicts target label k, the last row EOS."""
        ...


PROBE_AFTER = 500
"""Sentences an uncached `--precision auto` decodes in fp32 before it probes bf16: the probe
(about a second) is then a small share of the work it decides, and a short translation never
waits for one."""


class TorchEngine:
    """mt.decode.search's greedy and beam search over a PyTorch model in eval mode."""

    def __init__(
        self,
        model: nn.Module,
        device: torch.device,
        precision: str = "fp32",
        banned: tuple[int, ...] = (),
    ) -> None:
        self.model = model
        self.device = device
        self.banned = banned  # labels never chosen besides PAD and BOS: the synthetic tag
        # "auto": bf16 where this machine decodes this model's shapes faster with the same labels;
        # a verdict no earlier probe left waits for PROBE_AFTER sentences decoded in fp32
        self.decoded, self.probe_pending = 0, False
        self.precision, self.precision_reason = resolve_precision(
            precision, device, probe=self._known_or_later, what="decoding"
        )
        if self.probe_pending:
            self.precision_reason = (
                f"fp32 (auto: bf16 is probed after {PROBE_AFTER} sentences; no verdict here yet)"
            )

    def _known_or_later(self) -> ProbeResult:
        """An earlier probe's verdict, else fp32 for now with the probe left pending."""
        known = known_decoding(self.model, self.device)
        self.probe_pending = known is None
        return known or ProbeResult("fp32", 0.0, 0.0, agrees=True)

    def _probe_now(self) -> None:
        self.probe_pending = False
        self.precision, self.precision_reason = resolve_precision(
            "auto",
            self.device,
            probe=lambda: probe_decoding(self.model, self.device),
            what="decoding",
        )

    def search(self, sources: list[np.ndarray], config: DecodeConfig) -> list[list[Hypothesis]]:
        if self.probe_pending and self.decoded >= PROBE_AFTER:
            self._probe_now()
        self.decoded += len(sources)
        src = pad(sources).to(self.device)
        with autocast(self.device, self.precision):
            return search(self.model, src, src != PAD, config, self.banned)

    def teacher_forced(self, data: EncodedPairs, train_config: TrainConfig) -> TeacherForcedScores:
        return evaluate_teacher_forced(self.model, data, train_config, self.device)

    def attention(
        self, sources: list[np.ndarray], targets: list[Sequence[int]]
    ) -> list[np.ndarray]:
        src = pad(sources).to(self.device)
        tgt = pad([np.array([BOS, *target], dtype=np.int64) for target in targets])
        with torch.inference_mode(), autocast(self.device, self.precision):
            weights = self.model.cross_attention_map(src, src != PAD, tgt.to(self.device))
        weights = weights.float().cpu().numpy()  # (B, T, S)
        return [
            weights[row, : len(target) + 1, : len(source)]
            for row, (source, target) in enumerate(zip(sources, targets, strict=True))
        ]


def engine_for(
    run: LoadedRun | ExportedRun, device: torch.device, precision: str = "fp32"
) -> SearchEngine:
    """An exported run brings its CTranslate2 engine (its compute type is its precision); a
    trained run is searched with PyTorch in `precision`."""
    if isinstance(run, ExportedRun):
        return run.engine
    banned = () if run.target.tag_id is None else (run.target.tag_id,)
    return TorchEngine(run.model, device, precision, banned)


def attention_engine(run: LoadedRun | ExportedRun, device: torch.device) -> AttentionEngine | None:
    """What gives `run`'s cross-attention: CTranslate2 for an export (asked to return it), the
    PyTorch model of a run in fp32; None for a model without it (the recurrent baseline)."""
    if isinstance(run, ExportedRun):
        return run.engine
    if hasattr(run.model, "cross_attention_map"):
        return TorchEngine(run.model, device)
    return None


def open_run(
    info: ModelInfo,
    *,
    checkpoint: str = "best",
    device: torch.device,
    threads: int | None = None,
    compute_type: str = "default",
) -> LoadedRun | ExportedRun:
    """A LoadedRun, or an ExportedRun for an `mt export`; `threads` sets torch's or CTranslate2's
    CPU threads, `compute_type` is CTranslate2's (ignored for a run)."""
    if threads is not None and threads < 1:
        raise MtError(f"--threads must be positive, got {threads}")
    if info.kind == "export":
        from mt.decode.ct2_engine import open_exported

        return open_exported(info, device=device.type, threads=threads, compute_type=compute_type)
    from mt.model.rundir import load_run

    if threads is not None:
        torch.set_num_threads(threads)
    return load_run(info, checkpoint, device)
