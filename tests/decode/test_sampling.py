"""Sampling and banned labels in the search, on the scripted model of test_search: draws follow
the model's probabilities and the seed, a banned label is never chosen."""

from __future__ import annotations

import pytest
import torch
from test_search import A, B, C, ScriptedModel, one_sentence

from mt.config import DecodeConfig
from mt.decode.search import Sampling, greedy_search, search
from mt.errors import MtError

# First label A or B with equal odds, C rarely; then the end.
EVEN = ScriptedModel({(): {A: 0.45, B: 0.45, C: 0.1}})


def sampled(seed: int, topk: int = 0, rows: int = 64) -> list[tuple[int, ...]]:
    src, mask = torch.full((rows, 2), 9 + seed % 3), torch.ones(rows, 2, dtype=torch.bool)
    config = DecodeConfig(beam_size=1, sampling_topk=topk, seed=seed)
    return [hyps[0].tokens for hyps in search(EVEN, src, mask, config)]


def test_the_same_seed_draws_the_same_and_another_seed_differs() -> None:
    assert sampled(1) == sampled(1)
    assert sampled(1) != sampled(4)


def test_draws_follow_the_probabilities_and_top_k() -> None:
    firsts = [tokens[0] for tokens in sampled(0, rows=400)]
    assert 0.35 < firsts.count(A) / 400 < 0.55 and 0.35 < firsts.count(B) / 400 < 0.55
    assert C in firsts
    assert C not in [tokens[0] for tokens in sampled(0, topk=2, rows=400)]


def test_log_prob_is_the_models_untempered() -> None:
    src, mask = one_sentence()
    hyp = search(EVEN, src, mask, DecodeConfig(beam_size=1, sampling_topk=0, seed=3,
                                               sampling_temperature=0.5))[0][0]  # fmt: skip
    first = {A: 0.45, B: 0.45, C: 0.1}[hyp.tokens[0]]
    assert hyp.log_prob == pytest.approx(torch.tensor(first).log().item(), abs=1e-5)


def test_a_sure_model_samples_what_greedy_finds() -> None:
    sure = ScriptedModel({(): {A: 1.0}, (A,): {B: 1.0}})
    src, mask = one_sentence()
    drawn = greedy_search(sure, src, mask, max_len_a=1, max_len_b=5, sampling=Sampling(0, 1.0, 7))
    assert drawn[0].tokens == (A, B)


@pytest.mark.parametrize("beam", [1, 3])
def test_a_banned_label_is_never_chosen(beam: int) -> None:
    likes_a = ScriptedModel({(): {A: 0.9, B: 0.1}})
    src, mask = one_sentence()
    config = DecodeConfig(beam_size=beam)
    assert search(likes_a, src, mask, config)[0][0].tokens == (A,)
    assert search(likes_a, src, mask, config, banned=(A,))[0][0].tokens == (B,)


def test_sampling_needs_beam_one() -> None:
    with pytest.raises(MtError, match="needs --beam-size 1"):
        DecodeConfig(beam_size=4, sampling_topk=0)
