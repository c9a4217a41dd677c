"""Dropout whose masks cost a third of torch's on a CPU: 16 random bits a position.

torch's one Bernoulli draw a position took a quarter of a CPU training step over 22 dropouts
(docs/performance.md). Here each 32-bit draw serves two positions, dropped with probability
round(p · 65536) / 65536 (within 0.00001 of p), kept ones scaled by 1 / (1 - p). Outside training
or with p = 0 it is the identity.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

_LEVELS = 1 << 16


def keep_mask(shape: torch.Size, p: float, device: torch.device) -> Tensor:
    """A boolean mask of ``shape``, True with probability 1 - p (to 1/65536)."""
    count = shape.numel()
    # the whole int32 range (the same draws as `empty().random_(lo, hi)`, which torch.compile
    # cannot trace: a graph break at every dropout)
    bits = torch.randint(-(2**31), 2**31, ((count + 1) // 2,), dtype=torch.int32, device=device)
    # int16 halves lie uniformly in [-32768, 32767]: the lowest round(p·65536) are dropped
    threshold = round(p * _LEVELS) - _LEVELS // 2
    return (bits.view(torch.int16)[:count] >= threshold).view(shape)


def dropout(x: Tensor, p: float, training: bool) -> Tensor:
    if not training or p == 0.0:
        return x
    if x.device.type != "cpu":  # a GPU draws Bernoulli masks in bulk already
        return nn.functional.dropout(x, p, training=True)
    return x * keep_mask(x.shape, p, x.device).to(x.dtype) * (1.0 / (1.0 - p))


class Dropout(nn.Module):
    """`nn.Dropout`'s interface with the cheaper mask."""

    def __init__(self, p: float) -> None:
        super().__init__()
        if not 0.0 <= p < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {p}")
        self.p = p

    def forward(self, x: Tensor) -> Tensor:
        return dropout(x, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}"
