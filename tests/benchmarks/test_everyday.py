"""benchmarks/quality/everyday.py: a held-out sentence with a training sentence sharing half its
words or more is a near-duplicate; the similarity is exact for every query, however frequent
its words."""

from __future__ import annotations

import pytest

from benchmarks.quality.everyday import nearest_similarity, novel

TRAINING = ["Tom is tired.", "Mary is hungry!", "I like green apples.", "Tom is tired."]


def test_the_nearest_training_sentence_gives_the_word_set_similarity() -> None:
    queries = ["Tom was tired.", "I like apples.", "Where's the zebra?", "MARY IS HUNGRY."]
    # {tom, was, tired} against {tom, is, tired}: 2 shared of 4; 3 of 4; none; all 3 of 3.
    assert nearest_similarity(queries, TRAINING) == pytest.approx([0.5, 0.75, 0.0, 1.0])


def test_only_pairs_without_a_near_duplicate_are_kept() -> None:
    pairs = [("Tom was tired.", "Tom estaba cansado."), ("Who ate the cake?", "¿Quién comió?")]
    assert novel(pairs, TRAINING) == [pairs[1]]
    assert novel(pairs, TRAINING, near=0.6) == pairs  # one word in two is not near enough
