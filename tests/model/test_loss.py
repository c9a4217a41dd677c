import pytest

from mt.evaluate.scores import corpus_scores
from mt.model.loss import TokenStats


def test_token_stats_divide_sums_not_means() -> None:
    stats = TokenStats()
    stats.add(loss_sum=10.0, correct=3, count=4)
    stats.add(loss_sum=2.0, correct=1, count=1)
    assert stats.loss == pytest.approx(12 / 5)
    assert stats.accuracy == pytest.approx(4 / 5)


def test_perfect_translation_scores_100() -> None:
    scores = corpus_scores(["¿Dónde está la estación?"], [["¿Dónde está la estación?"]])
    assert scores.bleu == pytest.approx(100.0)
    assert scores.ter == pytest.approx(0.0)
    assert scores.bleu_signature.startswith("nrefs:1|")


def test_more_references_never_lower_bleu() -> None:
    hypotheses = ["vete a casa ahora", "tengo hambre"]
    single = corpus_scores(hypotheses, [["ve a casa ahora"], ["tengo hambre"]])
    multi = corpus_scores(hypotheses, [["ve a casa ahora", "vete a casa ahora"], ["tengo hambre"]])
    assert multi.bleu > single.bleu
    assert multi.bleu_signature.startswith("nrefs:var|") or "nrefs:2" in multi.bleu_signature
