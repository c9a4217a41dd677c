"""mt.evaluate.ter counts the edits sacrebleu counts: on random word sequences (few distinct words,
so many matches and shifts), on permuted ones, at the candidate limit, with lengths far apart
(where the band widens), with empty sides, and through the metric with several references."""

from __future__ import annotations

import random

import pytest
from sacrebleu.metrics import TER
from sacrebleu.metrics.lib_ter import BeamEditDistance, _shift
from sacrebleu.metrics.lib_ter import translation_edit_rate as sacrebleu_edits

from conftest import invented_pairs
from mt.evaluate.ter import FastTER, translation_edit_rate


def words(rng: random.Random, vocabulary: int, length: int) -> list[str]:
    return [f"w{rng.randrange(vocabulary)}" for _ in range(length)]


def moved(rng: random.Random, sequence: list[str], moves: int) -> list[str]:
    """`sequence` with `moves` blocks cut and put back elsewhere: what TER's shifts undo."""
    result = list(sequence)
    for _ in range(moves):
        if len(result) < 2:
            break
        start, end = sorted(rng.sample(range(len(result) + 1), 2))
        block, rest = result[start:end], result[:start] + result[end:]
        at = rng.randrange(len(rest) + 1)
        result = rest[:at] + block + rest[at:]
    return result


@pytest.mark.parametrize("seed", range(2))
def test_random_sequences_get_sacrebleus_edits(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(100):
        reference = words(rng, rng.choice([2, 3, 6, 20]), rng.randrange(0, 30))
        if rng.random() < 0.5:
            hypothesis = moved(rng, reference, rng.randrange(1, 4))
            hypothesis = [w if rng.random() > 0.1 else "other" for w in hypothesis]
        else:
            hypothesis = words(rng, rng.choice([2, 3, 6, 20]), rng.randrange(0, 30))
        expected = sacrebleu_edits(hypothesis, reference)
        assert translation_edit_rate(hypothesis, reference) == expected, (hypothesis, reference)


def test_lengths_far_apart_and_empty_sides() -> None:
    rng = random.Random(7)
    long = words(rng, 4, 130)
    cases = [
        (["w1"], long),  # 130 reference words a hypothesis word: the band widens
        (long[:3], long),
        (long, long[:2]),
        ([], long[:5]),
        (long[:5], []),
        ([], []),
        (moved(rng, long[:90], 3), long[:90]),
    ]
    for hypothesis, reference in cases:
        expected = sacrebleu_edits(hypothesis, reference)
        assert translation_edit_rate(hypothesis, reference) == expected, (hypothesis, reference)


def test_the_candidate_limit_stops_the_search_where_sacrebleus_does() -> None:
    rng = random.Random(1)
    reference = [rng.choice("abc") for _ in range(40)]
    hypothesis = reference[20:] + reference[:20]
    checked = _shift(hypothesis, reference, BeamEditDistance(reference), 0)[2]
    assert checked >= 1000  # the first round already tries more than the limit
    assert translation_edit_rate(hypothesis, reference) == sacrebleu_edits(hypothesis, reference)


def test_the_metric_scores_and_signs_as_sacrebleus() -> None:
    pairs = invented_pairs()[::9]
    hypotheses = [" ".join(reversed(es.split())) for _, es in pairs]  # many shifts
    references = [[es for _, es in pairs], [es.replace("gusta", "encanta") for _, es in pairs]]
    ours, theirs = FastTER(), TER()
    score, expected = (
        ours.corpus_score(hypotheses, references),
        theirs.corpus_score(hypotheses, references),
    )
    assert (score.score, score.num_edits, score.ref_length) == (
        expected.score,
        expected.num_edits,
        expected.ref_length,
    )
    assert expected.num_edits > len(pairs)  # the reversals cost edits
    assert str(ours.get_signature()) == str(theirs.get_signature())
