"""Growing a trained model deeper (`mt train --init-from RUN --encoder-layers N`).

New layers go on top, before the closing norm, with their attention and feed-forward output
projections at zero: a pre-norm layer then passes its input through, so the grown model computes
exactly what the base did (Net2Net; Zhang et al. 2019). Their other weights are drawn fresh, so
the zero projections get gradients from the first step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

import torch
from torch import Tensor

_LAYER = re.compile(r"^(encoder|decoder)\.(\d+)\.")
_OUTPUTS = (".out.weight", ".out.bias", "feed_forward.3.weight", "feed_forward.3.bias")
"""A sublayer's last projection, which the residual adds: zero makes the layer the identity."""


def grow_depth(
    weights: Mapping[str, Tensor], fresh: Mapping[str, Tensor], *, depths: Mapping[str, int]
) -> tuple[dict[str, Tensor], dict[str, list[int]]]:
    """`weights` with the layers that `fresh` (a newly made model's state) has beyond the base's
    `depths` ({"encoder": 2, "decoder": 2}), each the identity; and what grew, for the lineage
    ({"encoder": [2, 6]})."""
    grown = dict(weights)
    added: dict[str, int] = {}
    for key, value in fresh.items():
        found = _LAYER.match(key)
        if key in weights or found is None or int(found[2]) < depths[found[1]]:
            continue
        grown[key] = torch.zeros_like(value) if key.endswith(_OUTPUTS) else value.clone()
        added[found[1]] = max(added.get(found[1], 0), int(found[2]) + 1)
    return grown, {stack: [depths[stack], depth] for stack, depth in sorted(added.items())}
