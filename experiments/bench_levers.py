"""Decided what each issue 43 step lever is worth (docs/performance.md, issue 43: "The levers").

The training-step levers of issue 43 one at a time, in one process, interleaved.

    OMP_NUM_THREADS=1 .venv/bin/python -m experiments.bench_levers [--rounds 7]

Each lever's old and new form run on the default recipe's own shapes (a 64-sentence batch of 12
target and 11 source positions, the 6,951,414-parameter model), alternating in rounds; each
prints its best round's CPU milliseconds per training step, so other load on a shared machine
(which only adds time) touches the figures least. Whole steps on a busy machine move by more than
these levers; the figures here say what each one is worth.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

import torch
import torch.nn.functional as F

from benchmarks.harness import describe, load_average
from mt.config import RECIPES
from mt.model.dropout import dropout
from mt.model.transformer import make_model

B, T, S, D, FF, H, V = 64, 12, 11, 256, 512, 8, 6134


def best_ms(work: Callable[[], object], rounds: int, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(repeats):
            work()
        best = min(best, (time.process_time() - started) / repeats)
    return 1000 * best


def dropouts(drop: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[], None]:
    """A step's 22 dropouts at their shapes: embeddings 2, residuals 10, feed-forward 4,
    attention probabilities 6 (2 encoder self, 2 decoder self, 2 cross)."""
    source, target = torch.randn(B, S, D), torch.randn(B, T, D)
    hidden, probs = torch.randn(B, T, FF), torch.randn(B, H, T, S)
    shapes = [source, target] + [source] * 4 + [target] * 6 + [hidden] * 4 + [probs] * 6
    return lambda: [drop(x) for x in shapes]


def adam(fused: bool) -> Callable[[], None]:
    config = RECIPES["default"]
    model = make_model(config.shape.with_vocabularies(4562, 6134))
    for p in model.parameters():
        p.grad = torch.randn_like(p) * 1e-3
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-9, fused=fused or None)
    return optimizer.step


def accuracy(dtype: torch.dtype, upcast: bool) -> Callable[[], None]:
    logits, target = torch.randn(B * T, V).to(dtype), torch.randint(0, V, (B * T,))
    return lambda: ((logits.float() if upcast else logits).argmax(-1) == target).sum()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(describe(1), "| load", load_average())
    pairs = {
        "dropout masks, 22 a step": (
            dropouts(lambda x: F.dropout(x, 0.1, training=True)),
            dropouts(lambda x: dropout(x, 0.1, training=True)),
        ),
        "Adam step": (adam(False), adam(True)),
        "accuracy argmax, bf16 logits": (
            accuracy(torch.bfloat16, False),
            accuracy(torch.bfloat16, True),
        ),
    }
    for name, (old, new) in pairs.items():
        old(), new()  # warm-up
        before, after = [], []
        for _ in range(args.rounds):
            before.append(best_ms(old, 1))
            after.append(best_ms(new, 1))
        print(f"{name:>30}: {min(before):7.2f} ms -> {min(after):7.2f} ms a step")
    print("load", load_average())
    return 0


if __name__ == "__main__":
    sys.exit(main())
