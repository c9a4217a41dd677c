"""The uncached decoding baseline: every step runs `model.decode` over the whole prefix.

Used only to check the cached search against (tests/decode/test_search.py) and to measure what the
cache saves (benchmarks/speed/bench_translate.py), so it lives outside the package.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from mt.decode.search import Seq2Seq


@dataclass(frozen=True)
class RecomputeState:
    """State of the uncached baseline: the whole prefix fed so far, BOS first."""

    prefix: Tensor  # (N, t)
    memory: Tensor  # (N, S, d)
    src_mask: Tensor  # (N, S)

    def select(self, index: Tensor) -> RecomputeState:
        return RecomputeState(self.prefix[index], self.memory[index], self.src_mask[index])


class _RecomputeStepper:
    """Steps by running `model.decode` over the whole prefix: the uncached baseline."""

    def __init__(self, model: Seq2Seq) -> None:
        self.model = model
        self.max_positions = getattr(model, "max_positions", None)
        # Its shape: the decoding engine's precision probe (bf16 where the CPU has avx512_bf16)
        # keeps its verdict under it.
        self.config = getattr(model, "config", None)

    def encode(self, src: Tensor, src_mask: Tensor) -> Tensor:
        return self.model.encode(src, src_mask)

    def start_state(self, memory: Tensor, src_mask: Tensor) -> RecomputeState:
        empty = torch.zeros((memory.size(0), 0), dtype=torch.long, device=memory.device)
        return RecomputeState(empty, memory, src_mask)

    def step(self, tokens: Tensor, state: RecomputeState) -> tuple[Tensor, RecomputeState]:
        prefix = torch.cat([state.prefix, tokens.unsqueeze(1)], dim=1)
        logits = self.model.decode(prefix, state.memory, state.src_mask)[:, -1]
        return logits, RecomputeState(prefix, state.memory, state.src_mask)

    def decode(self, tgt_in: Tensor, memory: Tensor, src_mask: Tensor) -> Tensor:
        return self.model.decode(tgt_in, memory, src_mask)


def recompute_stepper(model: Seq2Seq) -> Seq2Seq:
    """`model` stepping without its cache, to test the cache and measure what it saves."""
    return _RecomputeStepper(model)
