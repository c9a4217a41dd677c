"""The recurrent baseline: a bidirectional LSTM/GRU encoder and an attentional decoder with input
feeding (Bahdanau et al. 2015; Luong et al. 2015), behind the same seam as the Transformer.

Sizes: embeddings have ``d_model`` units and every recurrent layer ``ff`` units (per direction in
the encoder), so encoder outputs have 2·ff. ``heads`` is unused.

One decoder step, with y the previous token and h̃ the previous attentional vector (zeros first):
    h_t = RNN([emb(y); h̃_{t-1}], h_{t-1})                  input feeding (Luong §3.3)
    a_t = softmax(score(h_t, m_s)) over real source positions
    h̃_t = tanh(W_c [Σ_s a_t,s m_s; h_t])
    logits = W_o h̃_t   (tied: E_tgt · P h̃_t, P projecting ff to d_model)
score is Bahdanau's additive v·tanh(W_q h + W_k m) or Luong's general h·W_a m; the keys W_k m and
W_a m are computed once per sentence. The decoder's first state is tanh(W_b [→h_S; ←h_1]) of the
encoder's final states, layer by layer. Dropout acts on the embeddings, between stacked layers
and on h̃ (fed on as it was dropped, as in OpenNMT). Masks follow mt.model.transformer: True =
real token; sources are right-padded and packed, so padding never reaches a real position.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

from mt.config import ModelConfig
from mt.data.tokenization import PAD

INIT_RANGE = 0.1
"""Every weight starts uniform in [-0.1, 0.1], as in Luong et al. (2015) and OpenNMT."""


@dataclass(frozen=True)
class RecurrentMemory:
    """What `encode` hands on: encoder outputs and the decoder's first recurrent state."""

    outputs: Tensor  # (B, S, 2H)
    hidden: Tensor  # (L, B, H)
    cell: Tensor | None  # (L, B, H), LSTM only


@dataclass(frozen=True)
class RecurrentState:
    """The decoder cache: recurrent state, the last attentional vector, and the encoder outputs
    with their attention keys."""

    hidden: Tensor  # (L, N, H): layer-major like torch's RNNs, so its rows are dim 1
    cell: Tensor | None  # (L, N, H), LSTM only
    feed: Tensor  # (N, H) previous attentional vector
    memory: Tensor  # (N, S, 2H)
    keys: Tensor  # (N, S, A)
    src_mask: Tensor  # (N, S)

    def select(self, index: Tensor) -> RecurrentState:
        """Row i of the new state is row index[i] of this one (beam expansion and reordering)."""
        return RecurrentState(
            hidden=self.hidden.index_select(1, index),
            cell=None if self.cell is None else self.cell.index_select(1, index),
            feed=self.feed.index_select(0, index),
            memory=self.memory.index_select(0, index),
            keys=self.keys.index_select(0, index),
            src_mask=self.src_mask.index_select(0, index),
        )


class Encoder(nn.Module):
    """Bidirectional LSTM/GRU over packed sources plus the bridge to the decoder's first state."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        rnn = nn.LSTM if config.cell == "lstm" else nn.GRU
        hidden = config.ff
        self.layers = config.layers
        self.rnn = rnn(
            config.d_model,
            hidden,
            num_layers=config.layers,
            dropout=config.dropout if config.layers > 1 else 0.0,
            batch_first=True,
            bidirectional=True,
        )
        self.bridge_hidden = nn.Linear(2 * hidden, hidden)
        self.bridge_cell = nn.Linear(2 * hidden, hidden) if config.cell == "lstm" else None

    def forward(self, embedded: Tensor, src_mask: Tensor) -> RecurrentMemory:
        # embedded (B, S, E), src_mask (B, S) -> outputs (B, S, 2H), first state (L, B, H)
        lengths = src_mask.sum(1).clamp(min=1).cpu()
        packed = pack_padded_sequence(embedded, lengths, batch_first=True, enforce_sorted=False)
        outputs, final = self.rnn(packed)
        outputs, _ = pad_packed_sequence(outputs, batch_first=True, total_length=src_mask.size(1))
        final_hidden, final_cell = final if isinstance(final, tuple) else (final, None)
        hidden = torch.tanh(self.bridge_hidden(self._join_directions(final_hidden)))
        cell = None
        if self.bridge_cell is not None:
            cell = torch.tanh(self.bridge_cell(self._join_directions(final_cell)))
        return RecurrentMemory(outputs, hidden, cell)

    def _join_directions(self, final: Tensor) -> Tensor:
        # (L * 2, B, H), layer-major then direction -> (L, B, 2H)
        per_layer = final.view(self.layers, 2, final.size(1), final.size(2))
        return torch.cat([per_layer[:, 0], per_layer[:, 1]], dim=-1)


class DecoderCells(nn.Module):
    """Stacked LSTM or GRU cells advanced one token at a time, with dropout between layers."""

    def __init__(self, config: ModelConfig, input_size: int) -> None:
        super().__init__()
        cell = nn.LSTMCell if config.cell == "lstm" else nn.GRUCell
        hidden = config.ff
        self.cells = nn.ModuleList(
            cell(input_size if layer == 0 else hidden, hidden) for layer in range(config.layers)
        )
        self.dropout = nn.Dropout(config.dropout)

    def forward(
        self, x: Tensor, hidden: Tensor, cell: Tensor | None
    ) -> tuple[Tensor, Tensor, Tensor | None]:
        # x (N, in), hidden/cell (L, N, H) -> top layer output (N, H), new hidden/cell
        hiddens, cells = [], []
        for layer, module in enumerate(self.cells):
            if layer:
                x = self.dropout(x)
            if cell is None:
                x = module(x, hidden[layer])
            else:
                x, c = module(x, (hidden[layer], cell[layer]))
                cells.append(c)
            hiddens.append(x)
        return x, torch.stack(hiddens), torch.stack(cells) if cells else None


class AdditiveAttention(nn.Module):
    """Bahdanau's score v · tanh(W_q h + W_k m)."""

    def __init__(self, query_size: int, memory_size: int, attention_size: int) -> None:
        super().__init__()
        self.key = nn.Linear(memory_size, attention_size, bias=False)
        self.query = nn.Linear(query_size, attention_size)
        self.vector = nn.Linear(attention_size, 1, bias=False)

    def keys(self, memory: Tensor) -> Tensor:
        # (N, S, 2H) -> (N, S, A)
        return self.key(memory)

    def scores(self, query: Tensor, keys: Tensor) -> Tensor:
        # query (N, H), keys (N, S, A) -> (N, S)
        return self.vector(torch.tanh(keys + self.query(query)[:, None])).squeeze(-1)


class GeneralAttention(nn.Module):
    """Luong's "general" score h · W_a m."""

    def __init__(self, query_size: int, memory_size: int) -> None:
        super().__init__()
        self.key = nn.Linear(memory_size, query_size, bias=False)

    def keys(self, memory: Tensor) -> Tensor:
        # (N, S, 2H) -> (N, S, H)
        return self.key(memory)

    def scores(self, query: Tensor, keys: Tensor) -> Tensor:
        # query (N, H), keys (N, S, H) -> (N, S)
        return torch.bmm(keys, query[:, :, None]).squeeze(-1)


class RecurrentSeq2Seq(nn.Module):
    """Attentional encoder-decoder RNN; ``forward`` is teacher forcing, the seam serves search."""

    def __init__(self, config: ModelConfig) -> None:
        super().__init__()
        self.config = config
        self.max_positions = config.max_positions
        embed, hidden = config.d_model, config.ff
        self.src_embedding = nn.Embedding(config.src_vocab, embed, padding_idx=PAD)
        self.tgt_embedding = nn.Embedding(config.tgt_vocab, embed, padding_idx=PAD)
        self.dropout = nn.Dropout(config.dropout)
        self.encoder = Encoder(config)
        self.decoder = DecoderCells(config, embed + hidden)
        if config.attention == "bahdanau":
            self.attention = AdditiveAttention(hidden, 2 * hidden, hidden)
        else:
            self.attention = GeneralAttention(hidden, 2 * hidden)
        self.combine = nn.Linear(3 * hidden, hidden)
        # A tied output matrix is an embedding: project the attentional vector to its width first.
        self.to_embedding = nn.Linear(hidden, embed) if config.tie_embeddings else nn.Identity()
        self.projection = nn.Linear(embed if config.tie_embeddings else hidden, config.tgt_vocab)
        for parameter in self.parameters():
            nn.init.uniform_(parameter, -INIT_RANGE, INIT_RANGE)
        with torch.no_grad():
            self.src_embedding.weight[PAD].zero_()
            self.tgt_embedding.weight[PAD].zero_()
        if config.tie_embeddings:  # as in the Transformer: one matrix for all three
            self.tgt_embedding.weight = self.src_embedding.weight
            self.projection.weight = self.src_embedding.weight

    def encode(self, src: Tensor, src_mask: Tensor) -> RecurrentMemory:
        # src, src_mask (B, S) -> encoder outputs (B, S, 2H) and the decoder's first state
        return self.encoder(self.dropout(self.src_embedding(src)), src_mask)

    def start_state(self, memory: RecurrentMemory, src_mask: Tensor) -> RecurrentState:
        outputs = memory.outputs
        return RecurrentState(
            hidden=memory.hidden,
            cell=memory.cell,
            feed=outputs.new_zeros(outputs.size(0), self.config.ff),
            memory=outputs,
            keys=self.attention.keys(outputs),
            src_mask=src_mask,
        )

    def _decoder_step(
        self, embedded: Tensor, state: RecurrentState
    ) -> tuple[Tensor, Tensor, RecurrentState]:
        """One decoder step from the embedded token (N, E): the attentional vector (N, H), the
        attention weights (N, S) and the next state."""
        x = torch.cat([embedded, state.feed], dim=-1)
        top, hidden, cell = self.decoder(x, state.hidden, state.cell)
        scores = self.attention.scores(top, state.keys)
        weights = scores.masked_fill(~state.src_mask, float("-inf")).softmax(dim=-1)
        context = torch.bmm(weights[:, None], state.memory).squeeze(1)  # (N, 2H)
        vector = self.dropout(torch.tanh(self.combine(torch.cat([context, top], dim=-1))))
        return vector, weights, dataclasses.replace(state, hidden=hidden, cell=cell, feed=vector)

    def _teacher_forced(self, tgt_in: Tensor, state: RecurrentState) -> tuple[Tensor, Tensor]:
        # tgt_in (N, T) -> attentional vectors (N, T, H), attention weights (N, T, S)
        embedded = self.dropout(self.tgt_embedding(tgt_in))
        vectors, weights = [], []
        for t in range(tgt_in.size(1)):
            vector, weight, state = self._decoder_step(embedded[:, t], state)
            vectors.append(vector)
            weights.append(weight)
        return torch.stack(vectors, dim=1), torch.stack(weights, dim=1)

    def _logits(self, vectors: Tensor) -> Tensor:
        # (..., H) -> (..., V)
        return self.projection(self.to_embedding(vectors))

    def decode(self, tgt_in: Tensor, memory: RecurrentMemory, src_mask: Tensor) -> Tensor:
        # (N, T) -> logits (N, T, V)
        vectors, _ = self._teacher_forced(tgt_in, self.start_state(memory, src_mask))
        return self._logits(vectors)

    def forward(
        self, src: Tensor, src_mask: Tensor, tgt_in: Tensor, output_positions: Tensor | None = None
    ) -> Tensor:
        """Teacher-forced logits (B, T, V); with ``output_positions`` (N indices into the
        flattened B·T positions) only for those (N, V)."""
        state = self.start_state(self.encode(src, src_mask), src_mask)
        vectors, _ = self._teacher_forced(tgt_in, state)
        if output_positions is not None:
            vectors = vectors.flatten(0, 1).index_select(0, output_positions)
        return self._logits(vectors)

    def step(self, tokens: Tensor, state: RecurrentState) -> tuple[Tensor, RecurrentState]:
        # tokens (N,) -> logits (N, V) for the next position
        vector, _, state = self._decoder_step(self.dropout(self.tgt_embedding(tokens)), state)
        return self._logits(vector), state

    @torch.no_grad()
    def cross_attention_map(self, src: Tensor, src_mask: Tensor, tgt_in: Tensor) -> Tensor:
        """Attention weights of every decoder step: (B, T, S)."""
        state = self.start_state(self.encode(src, src_mask), src_mask)
        return self._teacher_forced(tgt_in, state)[1]
