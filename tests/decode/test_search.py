"""Search tests on fake models: scripted probabilities with hand-computed results, and a tiny
attention model with a key/value cache for the properties (batching, caching, beam 1 = greedy)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pytest
import torch
from torch import Tensor, nn

from mt.config import DecodeConfig
from mt.data.tokenization import BOS, EOS, PAD
from mt.decode.search import (
    Hypothesis,
    beam_search,
    gnmt_penalty,
    greedy_search,
    max_lengths,
    search,
)
from recompute import recompute_stepper

A, B, C, D = 4, 5, 6, 7  # ordinary target labels of the scripted model
SCRIPT_VOCAB = 8


@dataclass(frozen=True)
class PrefixState:
    prefixes: tuple[tuple[int, ...], ...]  # tokens fed so far per row, BOS excluded

    def select(self, index: Tensor) -> PrefixState:
        return PrefixState(tuple(self.prefixes[i] for i in index.tolist()))


class ScriptedModel:
    """Next-token probabilities looked up by prefix; a prefix not in the table gets `default`."""

    def __init__(
        self,
        table: dict[tuple[int, ...], dict[int, float]],
        default: dict[int, float] | None = None,
        max_positions: int | None = None,
    ) -> None:
        self.table = table
        self.default = default if default is not None else {EOS: 1.0}
        self.max_positions = max_positions
        self.rows_per_step: list[int] = []

    def _logits(self, prefix: tuple[int, ...]) -> Tensor:
        probs = torch.zeros(SCRIPT_VOCAB)
        for label, p in self.table.get(prefix, self.default).items():
            probs[label] = p
        return probs.log()

    def encode(self, src: Tensor, src_mask: Tensor) -> Tensor:
        return torch.zeros(*src.shape, 1)

    def start_state(self, memory: Tensor, src_mask: Tensor) -> PrefixState:
        return PrefixState(((),) * memory.size(0))

    def step(self, tokens: Tensor, state: PrefixState) -> tuple[Tensor, PrefixState]:
        self.rows_per_step.append(tokens.size(0))
        fed = zip(state.prefixes, tokens.tolist(), strict=True)
        prefixes = tuple(p if t == BOS else (*p, t) for p, t in fed)
        return torch.stack([self._logits(p) for p in prefixes]), PrefixState(prefixes)

    def decode(self, tgt_in: Tensor, memory: Tensor, src_mask: Tensor) -> Tensor:
        rows = tgt_in[:, 1:].tolist()
        return torch.stack(
            [torch.stack([self._logits(tuple(r[:t])) for t in range(len(r) + 1)]) for r in rows]
        )


def one_sentence(length: int = 2) -> tuple[Tensor, Tensor]:
    return torch.full((1, length), 9), torch.ones(1, length, dtype=torch.bool)


# Short [a] wins on log-prob; long [b c d] wins once the length penalty is on.
LENGTH_TABLE = {
    (): {A: 0.55, B: 0.45},
    (A,): {EOS: 0.6, C: 0.4},
    (B,): {C: 0.7, EOS: 0.3},
    (A, C): {EOS: 1.0},
    (B, C): {D: 0.9, EOS: 0.1},
    (B, C, D): {EOS: 1.0},
}
LOG_A = math.log(0.55 * 0.6)
LOG_AC = math.log(0.55 * 0.4)
LOG_BCD = math.log(0.45 * 0.7 * 0.9)


def assert_hyps(got: list[Hypothesis], want: list[tuple[tuple[int, ...], float, float]]) -> None:
    assert [h.tokens for h in got] == [w[0] for w in want]
    assert [h.score for h in got] == pytest.approx([w[1] for w in want], abs=1e-6)
    assert [h.log_prob for h in got] == pytest.approx([w[2] for w in want], abs=1e-6)


def test_gnmt_penalty() -> None:
    assert gnmt_penalty(7, 0.0) == 1.0
    assert gnmt_penalty(1, 1.0) == 1.0
    assert gnmt_penalty(4, 1.0) == pytest.approx(1.5)
    assert gnmt_penalty(13, 0.5) == pytest.approx(math.sqrt(3))


def test_greedy_scripted() -> None:
    [hyp] = greedy_search(ScriptedModel(LENGTH_TABLE), *one_sentence(), max_len_a=0, max_len_b=5)
    assert_hyps([hyp], [((A,), LOG_A, LOG_A)])
    [hyp] = greedy_search(
        ScriptedModel(LENGTH_TABLE), *one_sentence(), max_len_a=0, max_len_b=5, length_penalty=1
    )
    assert_hyps([hyp], [((A,), LOG_A / (7 / 6), LOG_A)])


@pytest.mark.parametrize(
    ("alpha", "want"),
    [
        # Two hypotheses are finished after step 2 ([a], [a c]), but the open [b c d] can still
        # beat [a c], so the search goes on and finds it; without a penalty [a] stays the winner.
        (0.0, [((A,), LOG_A, LOG_A), ((B, C, D), LOG_BCD, LOG_BCD)]),
        (1.0, [((B, C, D), LOG_BCD / 1.5, LOG_BCD), ((A,), LOG_A / (7 / 6), LOG_A)]),
    ],
)
def test_the_length_penalty_decides_the_beam_s_winner(
    alpha: float, want: list[tuple[tuple[int, ...], float, float]]
) -> None:
    [hyps] = beam_search(
        ScriptedModel(LENGTH_TABLE),
        *one_sentence(),
        beam_size=2,
        n_best=2,
        length_penalty=alpha,
        max_len_a=0,
        max_len_b=5,
    )
    assert_hyps(hyps, want)


def test_beam_beats_greedy_and_stops_early_without_penalty() -> None:
    model = ScriptedModel(LENGTH_TABLE, default={A: 1.0})  # nothing unscripted would ever end
    [hyps] = beam_search(
        model,
        *one_sentence(),
        beam_size=2,
        n_best=1,
        length_penalty=0.0,
        max_len_a=0,
        max_len_b=50,
    )
    assert_hyps(hyps, [((A,), LOG_A, LOG_A)])
    # The sentence ends once `beam` (2) finished hypotheses beat every open one: [a] and [a c]
    # after step 2 do not ([b c d] is above [a c]); after step 3, [a] and [b c d] leave none open,
    # long before the length limit of 50.
    assert len(model.rows_per_step) == 4


def test_pad_and_bos_are_never_chosen() -> None:
    table = {(): {PAD: 0.7, BOS: 0.2, A: 0.06, EOS: 0.04}, (A,): {PAD: 0.85, BOS: 0.1, EOS: 0.05}}
    model = ScriptedModel(table, default={PAD: 0.9, BOS: 0.09, EOS: 0.01})
    [hyp] = greedy_search(model, *one_sentence(), max_len_a=0, max_len_b=5)
    # Banned labels are not renormalised away: scores are the model's own log-probs.
    assert_hyps([hyp], [((A,), math.log(0.06 * 0.05), math.log(0.06 * 0.05))])
    [hyps] = beam_search(
        model, *one_sentence(), beam_size=3, n_best=3, length_penalty=0.0, max_len_a=0, max_len_b=5
    )
    # Only two hypotheses exist without PAD and BOS, so the 3-best has two.
    want = [((), math.log(0.04), math.log(0.04)), ((A,), math.log(0.003), math.log(0.003))]
    assert_hyps(hyps, want)


def two_sentences(lengths: tuple[int, int]) -> tuple[Tensor, Tensor]:
    mask = torch.arange(max(lengths)).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    return torch.full(mask.shape, 9).masked_fill(~mask, PAD), mask


def test_max_lengths() -> None:
    mask = two_sentences((2, 5))[1]
    assert max_lengths(ScriptedModel({}), mask, 1.5, 1) == [4, 8]
    assert max_lengths(ScriptedModel({}), mask, 0.0, 3) == [3, 3]
    # The decoder reads BOS too, so 6 positions leave room for 5 tokens.
    assert max_lengths(ScriptedModel({}, max_positions=6), mask, 1.5, 1) == [4, 5]


REPEAT_A = {A: 0.999, EOS: 0.001}  # never chooses to end


@pytest.mark.parametrize("max_positions", [None, 6])
def test_eos_forced_at_the_length_limit(max_positions: int | None) -> None:
    src, mask = two_sentences((2, 5))
    want = [4, 8] if max_positions is None else [4, 5]
    model = ScriptedModel({}, default=REPEAT_A, max_positions=max_positions)
    greedy = greedy_search(model, src, mask, max_len_a=1.5, max_len_b=1)
    # Longer is better here once the length penalty is on, so the limit decides the winner.
    beams = beam_search(
        model, src, mask, beam_size=2, n_best=1, length_penalty=1.0, max_len_a=1.5, max_len_b=1
    )
    for hyp, [best], n in zip(greedy, beams, want, strict=True):
        log_prob = n * math.log(0.999) + math.log(0.001)
        assert_hyps([hyp], [((A,) * n, log_prob, log_prob)])
        assert_hyps([best], [((A,) * n, log_prob / gnmt_penalty(n + 1, 1.0), log_prob)])


def test_finished_sentences_leave_the_batch() -> None:
    src, mask = two_sentences((1, 4))
    model = ScriptedModel({}, default=REPEAT_A)
    greedy_search(model, src, mask, max_len_a=1.0, max_len_b=0)
    assert model.rows_per_step == [2, 2, 1, 1, 1]
    model.rows_per_step.clear()
    beam_search(
        model, src, mask, beam_size=3, n_best=1, length_penalty=1.0, max_len_a=1.0, max_len_b=0
    )
    assert model.rows_per_step == [2, 6, 3, 3, 3]  # step 0 runs once per sentence, not per beam


@dataclass(frozen=True)
class CacheState:
    keys: Tensor  # (N, t, d)
    values: Tensor  # (N, t, d)
    memory: Tensor  # (N, S, d)
    src_mask: Tensor  # (N, S)

    def select(self, index: Tensor) -> CacheState:
        return CacheState(
            self.keys[index], self.values[index], self.memory[index], self.src_mask[index]
        )


def attend(q: Tensor, k: Tensor, v: Tensor, allowed: Tensor) -> Tensor:
    weights = (q @ k.transpose(1, 2)) / math.sqrt(q.size(-1))
    return weights.masked_fill(~allowed, float("-inf")).softmax(-1) @ v


class TinyAttention(nn.Module):
    """One decoder layer: causal self-attention, cached by `step`, then attention to the source."""

    vocab = 13

    def __init__(self, seed: int, d: int = 16, max_positions: int = 40) -> None:
        super().__init__()
        torch.manual_seed(seed)
        self.max_positions = max_positions
        self.src_embedding = nn.Embedding(self.vocab, d)
        self.tgt_embedding = nn.Embedding(self.vocab, d)
        self.positions = nn.Parameter(torch.randn(max_positions, d))
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, self.vocab)
        self.register_buffer("eos_column", (torch.arange(self.vocab) == EOS).float())

    def encode(self, src: Tensor, src_mask: Tensor) -> Tensor:
        return self.src_embedding(src) + self.positions[: src.size(1)]

    def _logits(
        self, x: Tensor, attended: Tensor, memory: Tensor, src_mask: Tensor, t: Tensor
    ) -> Tensor:
        """x, attended (N, T, d) at target positions t (T,) -> logits (N, T, V)."""
        h = x + attended
        h = h + attend(h, memory, memory, src_mask.unsqueeze(1))
        logits = 3 * self.out(torch.tanh(h))
        # EOS grows likelier past the source length, so output lengths vary as in translation.
        overdue = t.unsqueeze(0) - src_mask.sum(1, keepdim=True)  # (N, T)
        return logits + (overdue * 1.5).unsqueeze(2) * self.eos_column

    def decode(self, tgt_in: Tensor, memory: Tensor, src_mask: Tensor) -> Tensor:
        t = tgt_in.size(1)
        x = self.tgt_embedding(tgt_in) + self.positions[:t]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        return self._logits(x, attend(q, k, v, causal), memory, src_mask, torch.arange(t))

    def start_state(self, memory: Tensor, src_mask: Tensor) -> CacheState:
        empty = memory.new_zeros(memory.size(0), 0, memory.size(2))
        return CacheState(empty, empty, memory, src_mask)

    def step(self, tokens: Tensor, state: CacheState) -> tuple[Tensor, CacheState]:
        x = self.tgt_embedding(tokens.unsqueeze(1)) + self.positions[state.keys.size(1)]
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        keys = torch.cat([state.keys, k], dim=1)
        values = torch.cat([state.values, v], dim=1)
        everything = torch.ones(1, 1, keys.size(1), dtype=torch.bool)
        attended = attend(q, keys, values, everything)
        t = torch.tensor([state.keys.size(1)])
        logits = self._logits(x, attended, state.memory, state.src_mask, t)
        return logits[:, 0], CacheState(keys, values, state.memory, state.src_mask)


LENGTHS = (5, 2, 8, 3, 6, 1)


def random_batch(seed: int, lengths: tuple[int, ...] = LENGTHS) -> tuple[Tensor, Tensor]:
    generator = torch.Generator().manual_seed(seed)
    src = torch.randint(4, TinyAttention.vocab, (len(lengths), max(lengths)), generator=generator)
    mask = torch.arange(max(lengths)).unsqueeze(0) < torch.tensor(lengths).unsqueeze(1)
    return src.masked_fill(~mask, PAD), mask


LIMITS = {"max_len_a": 1.5, "max_len_b": 3}
BEAM = {"beam_size": 4, "n_best": 2, "length_penalty": 1.0, **LIMITS}


def assert_close(got: list[Hypothesis], want: list[Hypothesis]) -> None:
    assert [h.tokens for h in got] == [h.tokens for h in want]
    assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)
    assert [h.log_prob for h in got] == pytest.approx([h.log_prob for h in want], abs=1e-5)


@pytest.mark.parametrize("seed", range(4))
def test_beam_of_one_equals_greedy(seed: int) -> None:
    model, (src, mask) = TinyAttention(seed), random_batch(seed)
    greedy = greedy_search(model, src, mask, **LIMITS)
    beams = beam_search(model, src, mask, beam_size=1, n_best=1, length_penalty=0.0, **LIMITS)
    assert len({len(h.tokens) for h in greedy}) > 2  # the model's lengths vary
    assert [[h] for h in greedy] == beams  # exactly: same tokens, same float scores


@pytest.mark.parametrize("seed", range(3))
def test_batch_equals_one_by_one(seed: int) -> None:
    model, (src, mask) = TinyAttention(seed), random_batch(seed)
    greedy = greedy_search(model, src, mask, **LIMITS)
    beams = beam_search(model, src, mask, **BEAM)
    for i, n in enumerate(LENGTHS):
        alone = src[i : i + 1, :n], mask[i : i + 1, :n]
        assert_close([greedy[i]], greedy_search(model, *alone, **LIMITS))
        assert_close(beams[i], beam_search(model, *alone, **BEAM)[0])


@pytest.mark.parametrize("seed", range(3))
def test_cached_equals_recompute(seed: int) -> None:
    model, (src, mask) = TinyAttention(seed), random_batch(seed)
    uncached = recompute_stepper(model)
    assert_close(
        greedy_search(model, src, mask, **LIMITS), greedy_search(uncached, src, mask, **LIMITS)
    )
    for cached, recomputed in zip(
        beam_search(model, src, mask, **BEAM), beam_search(uncached, src, mask, **BEAM), strict=True
    ):
        assert_close(cached, recomputed)


def test_recompute_stepper_matches_scripted_steps() -> None:
    model = recompute_stepper(ScriptedModel(LENGTH_TABLE))
    [hyps] = beam_search(
        model, *one_sentence(), beam_size=2, n_best=2, length_penalty=1.0, max_len_a=0, max_len_b=5
    )
    assert_hyps(hyps, [((B, C, D), LOG_BCD / 1.5, LOG_BCD), ((A,), LOG_A / (7 / 6), LOG_A)])


def test_pad_and_bos_never_chosen_by_a_model_that_prefers_them() -> None:
    model, (src, mask) = TinyAttention(0), random_batch(0)
    with torch.no_grad():
        model.out.bias[PAD] += 20.0
        model.out.bias[BOS] += 20.0
    hyps = [[h] for h in greedy_search(model, src, mask, **LIMITS)] + beam_search(
        model, src, mask, **BEAM
    )
    assert all(PAD not in h.tokens and BOS not in h.tokens for nbest in hyps for h in nbest)


@pytest.mark.parametrize("seed", range(3))
def test_n_best_sorted_and_distinct(seed: int) -> None:
    model, (src, mask) = TinyAttention(seed), random_batch(seed)
    settings = {"beam_size": 5, "length_penalty": 0.6, **LIMITS}
    five = beam_search(model, src, mask, n_best=5, **settings)
    one = beam_search(model, src, mask, n_best=1, **settings)
    for nbest, [best] in zip(five, one, strict=True):
        assert len(nbest) == 5
        assert len({h.tokens for h in nbest}) == 5
        scores = [h.score for h in nbest]
        assert scores == sorted(scores, reverse=True)
        assert nbest[0] == best  # stopping at the 1-best loses nothing


def test_search_dispatches_on_beam_size() -> None:
    model, (src, mask) = TinyAttention(1), random_batch(1)
    greedy = DecodeConfig(beam_size=1, n_best=1, length_penalty=1.0, max_len_a=1.5, max_len_b=3)
    want = greedy_search(model, src, mask, length_penalty=1.0, **LIMITS)
    assert search(model, src, mask, greedy) == [[h] for h in want]
    beam = DecodeConfig(beam_size=4, n_best=2, length_penalty=1.0, max_len_a=1.5, max_len_b=3)
    assert search(model, src, mask, beam) == beam_search(model, src, mask, **BEAM)
