"""Greedy and beam search over the encode / start_state / step seam of a translation model.

As in fairseq: padding, BOS and `banned` labels (a shared vocabulary's synthetic tag) are never
chosen, beam search looks at 2 x beam candidates per step so that finished hypotheses do not
starve the beam, and EOS is forced at the length limit, floor(a * S + b) (fewer where the model's
`max_positions` needs). As in OpenNMT, the search state (`_Beams`) is kept apart from model calls.
A hypothesis's log-prob sums float32 token log-probs, EOS included; its score divides that by the
GNMT length penalty. Finished sentences leave the batch. Put the model in eval mode first.

Sampling (`sampling_topk` other than 1, beam 1) draws each label from the k likeliest (all with
k = 0) at `sampling_temperature`, seeded by `seed` and the batch's tokens (`batch_seed`): sampled
back-translations teach more than beam ones (Edunov et al. 2018). Log-probs stay untempered.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import torch
from torch import Tensor

from mt.config import DecodeConfig
from mt.data.tokenization import BOS, EOS, PAD
from mt.decode.hypotheses import Hypothesis, gnmt_penalty, length_limit

NEG_INF = float("-inf")


class DecoderState(Protocol):
    """What a model carries between steps (cached keys and values); search only reorders it."""

    def select(self, index: Tensor) -> DecoderState:
        """The state whose row i is this state's row index[i]; index is a LongTensor (N,)."""
        ...


class Seq2Seq(Protocol):
    """The model seam searched over; `max_positions`, if the model has it, caps output length."""

    def encode(self, src: Tensor, src_mask: Tensor) -> Tensor:
        """src (B, S) long, src_mask (B, S) bool, True = real token -> memory (B, S, d)."""
        ...

    def start_state(self, memory: Tensor, src_mask: Tensor) -> DecoderState: ...

    def step(self, tokens: Tensor, state: DecoderState) -> tuple[Tensor, DecoderState]:
        """tokens (N,) last token of each row, BOS first -> next-token logits (N, V), new state."""
        ...

    def decode(self, tgt_in: Tensor, memory: Tensor, src_mask: Tensor) -> Tensor:
        """Teacher-forced decoder over whole prefixes: tgt_in (N, T) -> logits (N, T, V)."""
        ...


def _hypothesis(tokens: list[int], log_prob: float, alpha: float) -> Hypothesis:
    return Hypothesis(tuple(tokens), log_prob / gnmt_penalty(len(tokens) + 1, alpha), log_prob)


def max_lengths(model: Seq2Seq, src_mask: Tensor, max_len_a: float, max_len_b: int) -> list[int]:
    """Most tokens each sentence may emit before EOS: floor(a * source length + b), at most
    `max_positions` - 1 (the decoder also reads BOS)."""
    positions = getattr(model, "max_positions", None)
    return [length_limit(n, max_len_a, max_len_b, positions) for n in src_mask.sum(1).tolist()]


def _log_probs(logits: Tensor, force_eos: Tensor | None, banned: tuple[int, ...] = ()) -> Tensor:
    """Float32 log-probs (N, V) with PAD, BOS and `banned` banned, not renormalised away (as in
    fairseq: scores stay true model log-probs), and EOS forced on the rows force_eos marks."""
    lprobs = torch.log_softmax(logits.float(), dim=-1)
    lprobs[:, PAD] = NEG_INF
    lprobs[:, BOS] = NEG_INF
    for label in banned:
        lprobs[:, label] = NEG_INF
    if force_eos is None:
        return lprobs
    eos_only = torch.full_like(lprobs, NEG_INF)
    eos_only[:, EOS] = lprobs[:, EOS]
    return torch.where(force_eos.unsqueeze(1), eos_only, lprobs)


@torch.inference_mode()
def greedy_search(
    model: Seq2Seq,
    src: Tensor,
    src_mask: Tensor,
    *,
    max_len_a: float,
    max_len_b: int,
    length_penalty: float = 0.0,
    sampling: Sampling | None = None,
    banned: tuple[int, ...] = (),
) -> list[Hypothesis]:
    """The most likely next token at each step (or one drawn by `sampling`); one hypothesis per
    sentence, in input order. `length_penalty` only sets the reported score."""
    draw = sampling.drawer(src) if sampling is not None else None
    limits = max_lengths(model, src_mask, max_len_a, max_len_b)
    state = model.start_state(model.encode(src, src_mask), src_mask)
    rows = list(range(src.size(0)))  # sentence of each row still decoding
    limit = torch.tensor(limits, device=src.device)
    last = torch.full((len(rows),), BOS, dtype=torch.long, device=src.device)
    log_prob = torch.zeros(len(rows), device=src.device)
    tokens = torch.zeros((len(rows), 0), dtype=torch.long, device=src.device)  # (N, t)
    found: list[Hypothesis | None] = [None] * len(rows)
    for step in range(max(limits) + 1):
        logits, state = model.step(last, state)
        force = limit <= step if step >= min(limits) else None
        lprobs = _log_probs(logits, force, banned)
        if draw is None:
            best, last = lprobs.max(dim=-1)
        else:
            last = draw(lprobs)
            best = lprobs.gather(1, last.unsqueeze(1)).squeeze(1)
        log_prob = log_prob + best
        ended = last == EOS if force is None else (last == EOS) | force
        done = ended.nonzero().squeeze(1)
        if done.numel():
            for row, toks, lp in zip(
                done.tolist(), tokens[done].tolist(), log_prob[done].tolist(), strict=True
            ):
                found[rows[row]] = _hypothesis(toks, lp, length_penalty)
            keep = (~ended).nonzero().squeeze(1)
            rows = [rows[r] for r in keep.tolist()]
            if not rows:
                break
            state, limit, last = state.select(keep), limit[keep], last[keep]
            log_prob, tokens = log_prob[keep], tokens[keep]
        tokens = torch.cat([tokens, last.unsqueeze(1)], dim=1)
    return [hyp for hyp in found if hyp is not None]


def batch_seed(seed: int, token_sum: int) -> int:
    """The draws' seed for a batch whose token ids sum to `token_sum`."""
    return (seed * 1_000_003 + token_sum) % 2**31


@dataclass(frozen=True)
class Sampling:
    """Draw each label from the `topk` likeliest (0: from all) at `temperature`, seeded."""

    topk: int
    temperature: float
    seed: int

    def drawer(self, src: Tensor) -> Callable[[Tensor], Tensor]:
        """log-probs (N, V) -> one drawn label per row (N,), from a generator seeded for `src`."""
        generator = torch.Generator(device=src.device)
        generator.manual_seed(batch_seed(self.seed, int(src.sum())))

        def draw(lprobs: Tensor) -> Tensor:
            scores = lprobs / self.temperature
            if 0 < self.topk < scores.size(1):
                kth = scores.topk(self.topk, dim=-1).values[:, -1:]
                scores = scores.masked_fill(scores < kth, NEG_INF)
            probs = torch.softmax(scores, dim=-1)
            return torch.multinomial(probs, 1, generator=generator).squeeze(1)

        return draw


@dataclass
class _Beams:
    """Beam-search state of the sentences still open; it never calls the model. Row i * beam + k
    of the decoder state is beam k of open sentence i; open hypotheses are kept best first."""

    beam: int
    n_best: int
    alpha: float
    sents: list[int]  # input index of each open sentence
    limits: list[int]  # its max length
    limit: Tensor  # (n,) the same limits, on the device
    scores: Tensor  # (n, beam) float32 log-probs of the open hypotheses
    tokens: Tensor  # (n * beam, t) their tokens, BOS excluded
    finished: list[list[Hypothesis]]  # per input sentence, best first, at most beam

    @classmethod
    def start(
        cls, limits: list[int], beam: int, n_best: int, alpha: float, device: torch.device
    ) -> _Beams:
        n = len(limits)
        # All beams start as the same empty prefix: only the first may expand at step 0.
        scores = torch.full((n, beam), NEG_INF, device=device)
        scores[:, 0] = 0.0
        tokens = torch.zeros((n * beam, 0), dtype=torch.long, device=device)
        limit = torch.tensor(limits, device=device)
        finished: list[list[Hypothesis]] = [[] for _ in range(n)]
        return cls(beam, n_best, alpha, list(range(n)), limits, limit, scores, tokens, finished)

    def force_eos(self, step: int) -> Tensor | None:
        """(n * beam,) True on rows at their length limit, or None if there are none."""
        if step < min(self.limits):
            return None
        return (self.limit <= step).repeat_interleave(self.beam)

    def advance(self, lprobs: Tensor) -> tuple[Tensor, Tensor]:
        """Extend the beams by one token given its log-probs (n * beam, V): the decoder rows that
        continue (to select from the state) and their last tokens."""
        n, vocab = len(self.sents), lprobs.size(1)
        cand = (self.scores.unsqueeze(2) + lprobs.view(n, self.beam, vocab)).view(n, -1)
        top_scores, top_idx = cand.topk(2 * self.beam)  # (n, 2 * beam), best first
        offsets = torch.arange(n, device=cand.device).unsqueeze(1) * self.beam
        top_rows = top_idx.div(vocab, rounding_mode="floor") + offsets
        top_tokens = top_idx.remainder(vocab)
        is_eos = top_tokens == EOS
        self._finish(top_scores, top_rows, is_eos)
        # Each row gives at most one EOS, so at least `beam` candidates go on: the best of them.
        rank = torch.arange(2 * self.beam, device=cand.device)
        alive = (is_eos.long() * 2 * self.beam + rank).topk(self.beam, largest=False).indices
        self.scores = top_scores.gather(1, alive)
        rows, last = top_rows.gather(1, alive), top_tokens.gather(1, alive)  # (n, beam)
        self.tokens = torch.cat([self.tokens[rows.view(-1)], last.view(-1, 1)], dim=1)
        keep = self._still_open()
        if len(keep) < n:
            rows, last = self._drop_done(keep, rows, last)
        return rows.view(-1), last.view(-1)

    def _finish(self, top_scores: Tensor, top_rows: Tensor, is_eos: Tensor) -> None:
        """File the EOS candidates ranked in the top `beam` (as fairseq) as finished hypotheses."""
        top = slice(0, self.beam)
        ends = (is_eos[:, top] & (top_scores[:, top] > NEG_INF)).nonzero()  # (k, 2)
        if ends.numel() == 0:
            return
        sent, rank = ends.unbind(1)
        tokens = self.tokens[top_rows[sent, rank]].tolist()
        log_probs = top_scores[sent, rank].tolist()
        for i, toks, lp in zip(sent.tolist(), tokens, log_probs, strict=True):
            kept = self.finished[self.sents[i]]
            kept.append(_hypothesis(toks, lp, self.alpha))
            kept.sort(key=lambda hyp: -hyp.score)  # stable: earlier wins ties
            del kept[self.beam :]

    def _still_open(self) -> list[int]:
        """Indices of the open sentences whose n-best could still change."""
        best = self.scores[:, 0].tolist()
        return [i for i in range(len(self.sents)) if not self._done(i, best[i])]

    def _done(self, i: int, best_open: float) -> bool:
        """Done when no hypothesis is open, or when `beam` finished ones all score at least as well
        as the best open one would now: exact with alpha = 0, else OpenNMT's heuristic."""
        if best_open == NEG_INF:
            return True
        kept = self.finished[self.sents[i]]
        length = self.tokens.size(1) + 1  # ending now adds EOS
        return len(kept) >= self.beam and kept[-1].score >= best_open / gnmt_penalty(
            length, self.alpha
        )

    def _drop_done(self, keep: list[int], rows: Tensor, last: Tensor) -> tuple[Tensor, Tensor]:
        index = torch.tensor(keep, dtype=torch.long, device=rows.device)
        self.sents = [self.sents[i] for i in keep]
        self.limits = [self.limits[i] for i in keep]
        self.limit, self.scores = self.limit[index], self.scores[index]
        t = self.tokens.size(1)
        self.tokens = self.tokens.view(-1, self.beam, t)[index].view(-1, t)
        return rows[index], last[index]


@torch.inference_mode()
def beam_search(
    model: Seq2Seq,
    src: Tensor,
    src_mask: Tensor,
    *,
    beam_size: int,
    n_best: int,
    length_penalty: float,
    max_len_a: float,
    max_len_b: int,
    banned: tuple[int, ...] = (),
) -> list[list[Hypothesis]]:
    """Up to n_best hypotheses per sentence, best score first, in input order."""
    limits = max_lengths(model, src_mask, max_len_a, max_len_b)
    beams = _Beams.start(limits, beam_size, n_best, length_penalty, src.device)
    state = model.start_state(model.encode(src, src_mask), src_mask)
    last = torch.full((src.size(0),), BOS, dtype=torch.long, device=src.device)
    for step in range(max(limits) + 1):
        logits, state = model.step(last, state)
        if step == 0:  # all beams of a sentence are still the same prefix: step it once
            logits = logits.repeat_interleave(beam_size, dim=0)
        rows, last = beams.advance(_log_probs(logits, beams.force_eos(step), banned))
        if not beams.sents:
            break
        state = state.select(rows.div(beam_size, rounding_mode="floor") if step == 0 else rows)
    return [hyps[:n_best] for hyps in beams.finished]


def search(
    model: Seq2Seq,
    src: Tensor,
    src_mask: Tensor,
    config: DecodeConfig,
    banned: tuple[int, ...] = (),
) -> list[list[Hypothesis]]:
    """A batch decoded by greedy search (or sampling) with beam_size 1, else by beam search."""
    if config.beam_size == 1:
        sampling = None
        if config.sampling_topk != 1:
            sampling = Sampling(config.sampling_topk, config.sampling_temperature, config.seed)
        hyps = greedy_search(
            model,
            src,
            src_mask,
            max_len_a=config.max_len_a,
            max_len_b=config.max_len_b,
            length_penalty=config.alpha,
            sampling=sampling,
            banned=banned,
        )
        return [[hyp] for hyp in hyps]
    return beam_search(
        model,
        src,
        src_mask,
        beam_size=config.beam_size,
        n_best=config.n_best,
        length_penalty=config.alpha,
        max_len_a=config.max_len_a,
        max_len_b=config.max_len_b,
        banned=banned,
    )
