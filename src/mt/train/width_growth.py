"""Growing a trained model wider (`mt train --init-from RUN --ff N`) without losing what it learned.

A feed-forward W2·relu(W1·x + b1) + b2 keeps the base's rows of W1 and gains freshly drawn ones,
and keeps W2's columns and gains zero ones: the new units add nothing, so the wider model computes
exactly what the base did (Net2Net), while the drawn rows give the zero columns gradients at once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import torch
from torch import Tensor

_FIRST = re.compile(r"^(encoder|decoder)\.\d+\.feed_forward\.0\.(weight|bias)$")
_SECOND = re.compile(r"^(encoder|decoder)\.\d+\.feed_forward\.3\.weight$")


def grow_width(
    weights: Mapping[str, Tensor], fresh: Mapping[str, Tensor], *, ff: int
) -> tuple[dict[str, Tensor], list[int]]:
    """`weights` (the base's, its perceptrons `ff` wide) with each perceptron as wide as in
    `fresh` (a newly made model's state), the new units silent; and what grew ([512, 1536]),
    empty when nothing did."""
    grown = dict(weights)
    wider = 0
    for key, base in weights.items():
        new = fresh.get(key)
        if new is None or new.shape == base.shape:
            continue
        if _FIRST.match(key):  # [d_p, d] or [d_p]: the base's rows, then drawn ones
            grown[key], wider = torch.cat([base, new[ff:].to(base.dtype)]), new.shape[0]
        elif _SECOND.match(key):  # [d, d_p]: the base's columns, then zeros
            zeros = base.new_zeros(base.shape[0], new.shape[1] - ff)
            grown[key], wider = torch.cat([base, zeros], dim=1), new.shape[1]
    return grown, ([ff, wider] if wider else [])
