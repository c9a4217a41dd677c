"""The encoder-decoder Transformer, written to follow the thesis (and Vaswani et al.) one to one.

Mask convention, the only one in mt: a boolean mask is True where a token is real and may be
attended to. ``src_mask`` has shape (B, S). The decoder's self-attention is causal by construction;
target padding sits after the real tokens, so no real position ever sees it and the loss ignores
the padded positions themselves.

The ``encode`` / ``start_state`` / ``step`` seam lets search run the encoder once and the decoder
one token at a time with cached keys and values; ``decode`` runs the whole prefix at once.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from mt.config import ModelConfig
from mt.data.tokenization import PAD
from mt.model.dropout import Dropout, dropout


def sinusoidal_table(length: int, d_model: int) -> Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(same)."""
    position = torch.arange(length, dtype=torch.float32).unsqueeze(1)
    rate = torch.exp(
        torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model)
    )
    table = torch.zeros(length, d_model)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)[:, : d_model // 2]
    return table


class Embedding(nn.Module):
    """Token embedding scaled by sqrt(d) plus fixed sinusoidal positions, then dropout."""

    def __init__(self, vocab: int, d_model: int, max_positions: int, dropout: float) -> None:
        super().__init__()
        self.tokens = nn.Embedding(vocab, d_model, padding_idx=PAD)
        nn.init.normal_(self.tokens.weight, mean=0.0, std=d_model**-0.5)
        with torch.no_grad():
            self.tokens.weight[PAD].zero_()
        self.scale = math.sqrt(d_model)
        self.register_buffer(
            "positions", sinusoidal_table(max_positions, d_model), persistent=False
        )
        self.dropout = Dropout(dropout)

    def forward(self, ids: Tensor, offset: int = 0) -> Tensor:
        # ids (B, T) -> (B, T, d)
        positions = self.positions[offset : offset + ids.size(1)]
        return self.dropout(self.tokens(ids) * self.scale + positions)


def split_heads(x: Tensor, heads: int) -> Tensor:
    # (B, T, d) -> (B, H, T, d/H)
    batch, length, width = x.shape
    return x.view(batch, length, heads, width // heads).transpose(1, 2)


def merge_heads(x: Tensor) -> Tensor:
    # (B, H, T, d/H) -> (B, T, d)
    batch, heads, length, width = x.shape
    return x.transpose(1, 2).reshape(batch, length, heads * width)


def attend(
    q: Tensor, k: Tensor, v: Tensor, key_mask: Tensor | None, *, causal: bool, p: float
) -> Tensor:
    """softmax(q k^T / sqrt(d_k)) v over (B, H, T, d_k) queries; ``key_mask`` (B, 1, 1, S) True
    where a key may be attended to. Training with dropout on a CPU writes the product out so the
    probabilities take mt.model.dropout's cheaper mask (SDPA would draw torch's Bernoulli masks);
    everything else is SDPA, so evaluation and decoding are unchanged."""
    if p == 0.0 or q.device.type != "cpu":
        return F.scaled_dot_product_attention(
            q, k, v, attn_mask=key_mask, dropout_p=p, is_causal=causal
        )
    scores = q @ k.transpose(-2, -1) * q.size(-1) ** -0.5  # (B, H, T, S)
    if causal:
        length = q.size(-2)
        future = torch.ones(length, length, dtype=torch.bool, device=q.device).triu(1)
        scores = scores.masked_fill(future, float("-inf"))
    if key_mask is not None:
        scores = scores.masked_fill(~key_mask, float("-inf"))
    return dropout(scores.softmax(dim=-1), p, training=True) @ v


class SelfAttention(nn.Module):
    """Multi-head self-attention with one fused projection for queries, keys and values."""

    def __init__(self, d_model: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.heads = heads
        self.dropout = dropout
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(
        self,
        x: Tensor,
        key_mask: Tensor | None,
        causal: bool,
        cache: tuple[Tensor, Tensor] | None = None,
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        q, k, v = (split_heads(part, self.heads) for part in self.qkv(x).chunk(3, dim=-1))
        if cache is not None:  # one new query attends to every cached position: no causal mask
            k = torch.cat([cache[0], k], dim=2)
            v = torch.cat([cache[1], v], dim=2)
        attended = attend(
            q,
            k,
            v,
            key_mask,
            causal=causal and cache is None,
            p=self.dropout if self.training else 0.0,
        )
        return self.out(merge_heads(attended)), (k, v)


class CrossAttention(nn.Module):
    """Multi-head attention from decoder queries to encoder memory; keys/values computed once."""

    def __init__(self, d_model: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.heads = heads
        self.dropout = dropout
        self.q = nn.Linear(d_model, d_model)
        self.kv = nn.Linear(d_model, 2 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def keys_values(self, memory: Tensor) -> tuple[Tensor, Tensor]:
        k, v = self.kv(memory).chunk(2, dim=-1)
        return split_heads(k, self.heads), split_heads(v, self.heads)

    def forward(self, x: Tensor, keys_values: tuple[Tensor, Tensor], key_mask: Tensor) -> Tensor:
        q = split_heads(self.q(x), self.heads)
        k, v = keys_values
        attended = attend(q, k, v, key_mask, causal=False, p=self.dropout if self.training else 0.0)
        return self.out(merge_heads(attended))

    def weights(self, x: Tensor, keys_values: tuple[Tensor, Tensor], key_mask: Tensor) -> Tensor:
        """Attention probabilities (B, H, T, S), for heatmaps."""
        q = split_heads(self.q(x), self.heads)
        scores = q @ keys_values[0].transpose(-1, -2) / math.sqrt(q.size(-1))
        return scores.masked_fill(~key_mask, float("-inf")).softmax(dim=-1)


class FeedForward(nn.Sequential):
    """The two-layer perceptron d -> d_p -> d with ReLU."""

    def __init__(self, d_model: int, ff: int, dropout: float) -> None:
        super().__init__(
            nn.Linear(d_model, ff), nn.ReLU(), Dropout(dropout), nn.Linear(ff, d_model)
        )


class Residual(nn.Module):
    """Residual addition and layer norm, after the sublayer (thesis) or before it (pre-norm)."""

    def __init__(self, d_model: int, dropout: float, pre_norm: bool) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = Dropout(dropout)
        self.pre_norm = pre_norm

    def before(self, x: Tensor) -> Tensor:
        return self.norm(x) if self.pre_norm else x

    def after(self, x: Tensor, sublayer_out: Tensor) -> Tensor:
        y = x + self.dropout(sublayer_out)
        return y if self.pre_norm else self.norm(y)


class EncoderLayer(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        d, p = config.d_model, config.dropout
        self.attention = SelfAttention(d, config.heads, p)
        self.attention_residual = Residual(d, p, config.pre_norm)
        self.feed_forward = FeedForward(d, config.ff, p)
        self.feed_forward_residual = Residual(d, p, config.pre_norm)

    def forward(self, x: Tensor, key_mask: Tensor) -> Tensor:
        attended, _ = self.attention(self.attention_residual.before(x), key_mask, causal=False)
        x = self.attention_residual.after(x, attended)
        return self.feed_forward_residual.after(
            x, self.feed_forward(self.feed_forward_residual.before(x))
        )


class DecoderLayer(nn.Module):
    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        d, p = config.d_model, config.dropout
        self.self_attention = SelfAttention(d, config.heads, p)
        self.self_residual = Residual(d, p, config.pre_norm)
        self.cross_attention = CrossAttention(d, config.heads, p)
        self.cross_residual = Residual(d, p, config.pre_norm)
        self.feed_forward = FeedForward(d, config.ff, p)
        self.feed_forward_residual = Residual(d, p, config.pre_norm)

    def forward(
        self,
        x: Tensor,
        memory_kv: tuple[Tensor, Tensor],
        key_mask: Tensor,
        cache: tuple[Tensor, Tensor] | None = None,
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        attended, new_cache = self.self_attention(
            self.self_residual.before(x), None, causal=True, cache=cache
        )
        x = self.self_residual.after(x, attended)
        x = self.cross_residual.after(
            x, self.cross_attention(self.cross_residual.before(x), memory_kv, key_mask)
        )
        x = self.feed_forward_residual.after(
            x, self.feed_forward(self.feed_forward_residual.before(x))
        )
        return x, new_cache


@dataclass(frozen=True)
class TransformerState:
    """What the decoder needs between steps: per-layer self-attention keys/values so far, the
    cross-attention keys/values computed once from memory, and the source key mask."""

    self_kv: tuple[tuple[Tensor, Tensor], ...]
    memory_kv: tuple[tuple[Tensor, Tensor], ...]
    key_mask: Tensor  # (N, 1, 1, S)
    length: int  # tokens decoded so far

    def select(self, index: Tensor) -> TransformerState:
        """Row i of the new state is row index[i] of this one (beam expansion and reordering)."""

        def pick(pair: tuple[Tensor, Tensor]) -> tuple[Tensor, Tensor]:
            return pair[0].index_select(0, index), pair[1].index_select(0, index)

        return TransformerState(
            self_kv=tuple(pick(kv) for kv in self.self_kv),
            memory_kv=tuple(pick(kv) for kv in self.memory_kv),
            key_mask=self.key_mask.index_select(0, index),
            length=self.length,
        )


def key_mask_of(src_mask: Tensor) -> Tensor:
    # (B, S) -> (B, 1, 1, S), broadcast over heads and queries
    return src_mask[:, None, None, :]


class Transformer(nn.Module):
    """Encoder-decoder Transformer; ``forward`` is teacher forcing, the seam serves search."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.max_positions = config.max_positions
        d, p = config.d_model, config.dropout
        self.src_embedding = Embedding(config.src_vocab, d, config.max_positions, p)
        self.tgt_embedding = Embedding(config.tgt_vocab, d, config.max_positions, p)
        # The stacks may differ in depth: a deep encoder runs once per sentence, a shallow decoder
        # once per output token (Kasai et al. 2021).
        self.encoder = nn.ModuleList(EncoderLayer(config) for _ in range(config.encoder_depth))
        self.decoder = nn.ModuleList(DecoderLayer(config) for _ in range(config.decoder_depth))
        # Pre-norm stacks need a closing normalization; the thesis' post-norm stacks have none.
        self.encoder_norm = nn.LayerNorm(d) if config.pre_norm else nn.Identity()
        self.decoder_norm = nn.LayerNorm(d) if config.pre_norm else nn.Identity()
        self.projection = nn.Linear(d, config.tgt_vocab)
        self._init_linear_layers()
        if config.tie_embeddings:
            self.tgt_embedding.tokens.weight = self.src_embedding.tokens.weight
            self.projection.weight = self.src_embedding.tokens.weight

    def _init_linear_layers(self) -> None:
        for module in self.modules():
            if isinstance(module, nn.Linear):
                nn.init.xavier_uniform_(module.weight)
                nn.init.zeros_(module.bias)

    def encode(self, src: Tensor, src_mask: Tensor) -> Tensor:
        # src, src_mask (B, S) -> memory (B, S, d)
        x = self.src_embedding(src)
        key_mask = key_mask_of(src_mask)
        for layer in self.encoder:
            x = layer(x, key_mask)
        return self.encoder_norm(x)

    def decode_features(self, tgt_in: Tensor, memory: Tensor, src_mask: Tensor) -> Tensor:
        # tgt_in (B, T) -> decoder output (B, T, d) before the vocabulary projection
        x = self.tgt_embedding(tgt_in)
        key_mask = key_mask_of(src_mask)
        for layer in self.decoder:
            x, _ = layer(x, layer.cross_attention.keys_values(memory), key_mask)
        return self.decoder_norm(x)

    def decode(self, tgt_in: Tensor, memory: Tensor, src_mask: Tensor) -> Tensor:
        # (B, T) -> logits (B, T, V)
        return self.projection(self.decode_features(tgt_in, memory, src_mask))

    def forward(
        self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, output_positions: Tensor | None = None
    ) -> Tensor:
        """Teacher-forced logits (B, T, V); with ``output_positions`` (N indices into the flattened
        B·T positions: Batch.out_positions) only for those (N, V), which spares the largest
        matrix product the padded positions."""
        features = self.decode_features(tgt_in, self.encode(src, src_mask), src_mask)
        if output_positions is not None:
            features = features.flatten(0, 1).index_select(0, output_positions)
        return self.projection(features)

    def start_state(self, memory: Tensor, src_mask: Tensor) -> TransformerState:
        return TransformerState(
            self_kv=(),
            memory_kv=tuple(layer.cross_attention.keys_values(memory) for layer in self.decoder),
            key_mask=key_mask_of(src_mask),
            length=0,
        )

    def step(self, tokens: Tensor, state: TransformerState) -> tuple[Tensor, TransformerState]:
        # tokens (N,) -> logits (N, V) for the next position
        x = self.tgt_embedding(tokens[:, None], offset=state.length)
        caches = []
        for index, layer in enumerate(self.decoder):
            cache = state.self_kv[index] if state.self_kv else None
            x, new_cache = layer(x, state.memory_kv[index], state.key_mask, cache=cache)
            caches.append(new_cache)
        logits = self.projection(self.decoder_norm(x))[:, 0]
        return logits, TransformerState(
            self_kv=tuple(caches),
            memory_kv=state.memory_kv,
            key_mask=state.key_mask,
            length=state.length + 1,
        )

    @torch.no_grad()
    def cross_attention_map(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor) -> Tensor:
        """Last decoder layer's cross-attention averaged over heads: (B, T, S)."""
        memory = self.encode(src, src_mask)
        key_mask = key_mask_of(src_mask)
        x = self.tgt_embedding(tgt_in)
        for layer in self.decoder[:-1]:
            x, _ = layer(x, layer.cross_attention.keys_values(memory), key_mask)
        last = self.decoder[-1]
        attended, _ = last.self_attention(last.self_residual.before(x), None, causal=True)
        x = last.self_residual.after(x, attended)
        cross = last.cross_attention
        return cross.weights(
            last.cross_residual.before(x), cross.keys_values(memory), key_mask
        ).mean(1)


def count_parameters(model: nn.Module) -> int:
    """Distinct trainable parameters (tied weights count once)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def make_model(config: ModelConfig) -> nn.Module:
    """The model a config describes; the recurrent baseline lives in mt.model.rnn."""
    if config.arch == "rnn":
        from mt.model.rnn import RecurrentSeq2Seq

        return RecurrentSeq2Seq(config)
    return Transformer(config)
