"""Growing a trained model deeper (`mt train --init-from RUN --encoder-layers N`): the shipped
model can become the deep-encoder student (issue 66) without starting from nothing.

The new layers go on top of the base's, before the stack's closing norm, and start as the
identity: in a pre-norm layer each sublayer's output is added to its input, so with the output
projections of its attention and feed-forward at zero the layer passes its input through, and
the grown model computes exactly what the base did (a warm start that loses nothing, as Net2Net's
deeper networks, Chen et al. 2016, and zero-initialised residual branches, Zhang et al. 2019).
The other weights of a new layer are drawn as a fresh model's, so the zero projections get
gradients at once and the layer learns from the first step.
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
