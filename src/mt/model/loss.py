"""The thesis' masked cross-entropy and accuracy over non-padding positions."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from mt.config import TrainConfig
from mt.data.feed.batching import Batch, EncodedPairs, batch_indices, collate, lengths
from mt.model.precision import autocast


@dataclass
class TokenStats:
    """Sums over non-padding target positions; divide at the end, never average averages."""

    loss_sum: float = 0.0
    correct: int = 0
    count: int = 0

    def __add__(self, other: TokenStats) -> TokenStats:
        return TokenStats(
            self.loss_sum + other.loss_sum, self.correct + other.correct, self.count + other.count
        )

    def add(self, loss_sum: float, correct: int, count: int) -> None:
        self.loss_sum += loss_sum
        self.correct += correct
        self.count += count

    @property
    def loss(self) -> float:
        return self.loss_sum / self.count if self.count else float("nan")

    @property
    def accuracy(self) -> float:
        return self.correct / self.count if self.count else float("nan")


class RunningSums:
    """Training loss and hits kept on the device until the loop needs them as numbers: reading a
    CUDA tensor waits for the GPU."""

    def __init__(self, device: torch.device) -> None:
        self.loss = torch.zeros((), device=device, dtype=torch.float64)
        self.correct = torch.zeros((), device=device, dtype=torch.long)
        self.tokens = 0
        self.shown = [0.0, 0, 0, time.monotonic()]  # since the last window: loss, hits, tokens

    def add(self, loss: Tensor, correct: Tensor, tokens: int) -> None:
        self.loss += loss
        self.correct += correct
        self.tokens += tokens

    def settle(self) -> tuple[float, int, int]:
        """Loss sum, hits and tokens since the last call, as numbers; the sums start again."""
        loss, correct, tokens = float(self.loss), int(self.correct), self.tokens
        self.loss.zero_()
        self.correct.zero_()
        self.tokens = 0
        for index, value in enumerate((loss, correct, tokens)):
            self.shown[index] += value
        return loss, correct, tokens

    def window(self) -> tuple[float, float, float]:
        """Mean loss, accuracy and target tokens/s of what was settled since the last call."""
        loss, correct, tokens, since = self.shown
        now = time.monotonic()
        self.shown = [0.0, 0, 0, now]
        return loss / max(tokens, 1), correct / max(tokens, 1), tokens / max(now - since, 1e-9)


def real_position_logits(model: Callable[..., Tensor], batch: Batch) -> Tensor:
    """Teacher-forced logits (N, V) of the batch's real target positions only, row i for
    ``batch.out_labels[i]``: what training, selection and the precision probe score."""
    return model(batch.src, batch.src_mask, batch.tgt_in, output_positions=batch.out_positions)


def masked_loss_terms(
    logits: Tensor, target: Tensor, label_smoothing: float = 0.0
) -> tuple[Tensor, Tensor]:
    """Summed cross-entropy and argmax hits over real positions only (logits (N, V), target (N,)),
    so the mean loss is ``loss_sum / N`` as the thesis defines it."""
    logits = logits.float()  # argmax too: over bf16 it took 2.8x as long as over fp32 on a CPU
    loss_sum = F.cross_entropy(logits, target, reduction="sum", label_smoothing=label_smoothing)
    correct = (logits.argmax(dim=-1) == target).sum()
    return loss_sum, correct


@torch.inference_mode()
def evaluate_teacher_forced(
    model: nn.Module,
    data: EncodedPairs,
    config: TrainConfig,
    device: torch.device,
    rows: np.ndarray | None = None,
) -> TokenStats:
    """The thesis' selection metrics: masked cross-entropy (no smoothing) and accuracy, over all
    of `data` or its `rows`; the sums of disjoint rows add up to those of their union."""
    was_training = model.training
    model.eval()
    totals = [torch.zeros((), device=device, dtype=torch.float64), torch.zeros((), device=device)]
    count = 0
    tokens = max(config.batch_tokens, 64 * 24) * 2
    src_lengths, tgt_lengths = lengths(data)
    if rows is not None:
        src_lengths, tgt_lengths = src_lengths[rows], tgt_lengths[rows]
    for indices in batch_indices(
        src_lengths, tgt_lengths, batch_size=128, batch_tokens=tokens, seed=0, epoch=0,
        shuffle=False,
    ):  # fmt: skip
        batch = collate(data, indices if rows is None else rows[indices])
        count += batch.target_tokens  # counted on the host: no device sync
        batch = batch.to(device)
        with autocast(device, config.precision):
            logits = real_position_logits(model, batch)
        loss_sum, correct = masked_loss_terms(logits, batch.out_labels)
        totals[0] += loss_sum
        totals[1] += correct
    model.train(was_training)
    return TokenStats(float(totals[0]), int(totals[1]), count)
