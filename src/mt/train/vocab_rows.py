"""The rows a fine-tuned model gains when its prepared data grew the base run's vocabularies.

The base's rows are copied exactly. A new embedding or output row is the mean of the base's
ordinary rows (a neutral word), and a new output bias the base's lowest, so at step 0 a new piece
takes next to no probability from those the base predicts.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import Tensor

from mt.data.tokenization import SPECIAL_TOKENS


def grow_vocabulary_rows(
    weights: Mapping[str, Tensor],
    expected: Mapping[str, Tensor],
    *,
    growth: set[tuple[int, int]],
) -> dict[str, Tensor]:
    """`weights` with each tensor of `old` rows that the model `expected` needs with `new` rows,
    (old, new) in `growth`, grown; everything else as it is (a mismatch is left for check_fits
    to name)."""
    grown = dict(weights)
    for name, tensor in weights.items():
        want = expected.get(name)
        if want is None or tensor.dim() == 0 or tuple(tensor.shape[1:]) != tuple(want.shape[1:]):
            continue
        if (tensor.shape[0], want.shape[0]) in growth:
            grown[name] = _with_rows(tensor, want.shape[0])
    return grown


def _with_rows(tensor: Tensor, rows: int) -> Tensor:
    # tensor (V_old, d) or (V_old,) -> (rows, d) or (rows,)
    ordinary = tensor[len(SPECIAL_TOKENS) :].float()
    fill = ordinary.min() if tensor.dim() == 1 else ordinary.mean(dim=0)
    new = fill.expand(rows - tensor.shape[0], *tensor.shape[1:]).to(tensor.dtype)
    return torch.cat([tensor, new])
