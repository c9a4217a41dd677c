"""Model FLOPs of training: the numerator of model FLOP utilisation (MFU).

The standard count (Kaplan et al. 2020 §2.1; PaLM, Appendix B): 6 FLOPs per weight a token passes
through (2 forward, 4 backward), plus 12·d per layer and (query, key) pair for attention, the causal
mask not discounted. Embeddings, biases, norms, softmax and activations are left out: model FLOPs,
not hardware FLOPs. An encoder-decoder does not touch every weight for every token, so the weights
are split by what passes through them (d_model d, perceptron d_p, target vocabulary V):

- a source token: encoder self-attention (4d²) and perceptron (2·d·d_p), decoder cross-attention
  keys and values (2d²);
- a target token: decoder self-attention (4d²), cross-attention query and output (2d²), perceptron
  and the output projection d·V (2.0M of the 2+2 shipped shape's 4.7M weights);
- a pair of positions: 2·d per layer in each attention (S², T², S·T).

Only real tokens count, with each sentence's own lengths: MFU credits the work the model needed,
not padding. The recurrent baseline (mt.model.rnn) is counted the same way, gate by gate.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch

from mt.config import ModelConfig
from mt.data.feed.batching import Batch

TRAINING_FLOPS_PER_MAC = 6
"""2 FLOPs a multiply-add forward, twice that backward (Kaplan et al. 2020, §2.1)."""


@dataclass(frozen=True)
class TokenCounts:
    """Real (non-padding) tokens of some training batches and the sums attention grows with."""

    sentences: int = 0
    source: int = 0
    target: int = 0
    source_squares: int = 0  # Σ S² over sentences: encoder self-attention
    target_squares: int = 0  # Σ T²: decoder self-attention
    cross: int = 0  # Σ S·T: cross-attention

    @classmethod
    def of_batch(cls, batch: Batch) -> TokenCounts:
        """Counted on the host, before the batch goes to the device (no sync)."""
        source = batch.src_mask.sum(1, dtype=torch.int64)  # (B,) real source labels a pair
        target = batch.tgt_mask.sum(1, dtype=torch.int64)  # (B,) real target positions
        return cls(
            sentences=int(source.numel()),
            source=int(source.sum()),
            target=int(target.sum()),
            source_squares=int((source * source).sum()),
            target_squares=int((target * target).sum()),
            cross=int((source * target).sum()),
        )

    def __add__(self, other: TokenCounts) -> TokenCounts:
        return TokenCounts(*(a + b for a, b in zip(self.values(), other.values(), strict=True)))

    def values(self) -> tuple[int, ...]:
        return tuple(getattr(self, field.name) for field in fields(self))


@dataclass(frozen=True)
class MacRates:
    """Forward multiply-adds per unit of each of TokenCounts' counts (a model's constants)."""

    sentence: int = 0
    source: int = 0
    target: int = 0
    source_square: int = 0
    target_square: int = 0
    cross: int = 0

    def forward_macs(self, tokens: TokenCounts) -> int:
        return sum(rate * count for rate, count in zip(self.values(), tokens.values(), strict=True))

    def values(self) -> tuple[int, ...]:
        return tuple(getattr(self, field.name) for field in fields(self))


def mac_rates(config: ModelConfig) -> MacRates:
    """The forward multiply-adds of one token, pair and sentence of this model."""
    if config.arch == "rnn":
        return _recurrent_rates(config)
    d, ff = config.d_model, config.ff
    encoder, decoder = config.encoder_depth, config.decoder_depth
    return MacRates(
        source=encoder * (4 * d * d + 2 * d * ff) + decoder * 2 * d * d,
        target=decoder * (6 * d * d + 2 * d * ff) + d * config.tgt_vocab,
        source_square=encoder * 2 * d,
        target_square=decoder * 2 * d,
        cross=decoder * 2 * d,
    )


def _recurrent_rates(config: ModelConfig) -> MacRates:
    embed, hidden, layers = config.d_model, config.ff, config.layers
    gates = 4 if config.cell == "lstm" else 3
    # encoder: both directions; above the first layer the input is both directions' outputs
    encoder = sum(
        2 * gates * hidden * ((embed if layer == 0 else 2 * hidden) + hidden)
        for layer in range(layers)
    )
    cells = sum(
        gates * hidden * ((embed + hidden if layer == 0 else hidden) + hidden)
        for layer in range(layers)
    )
    query = hidden * hidden if config.attention == "bahdanau" else 0
    tied = hidden * embed if config.tie_embeddings else 0
    output = (embed if config.tie_embeddings else hidden) * config.tgt_vocab
    bridges = 2 if config.cell == "lstm" else 1
    return MacRates(
        sentence=bridges * layers * 2 * hidden * hidden,
        source=encoder + 2 * hidden * hidden,  # + the attention keys, made once per source token
        target=cells + query + 3 * hidden * hidden + tied + output,
        cross=hidden + 2 * hidden,  # the score, then the context over 2H-wide encoder outputs
    )


def training_flops(rates: MacRates, tokens: TokenCounts) -> int:
    """Model FLOPs of training on `tokens`: forward and backward."""
    return TRAINING_FLOPS_PER_MAC * rates.forward_macs(tokens)
