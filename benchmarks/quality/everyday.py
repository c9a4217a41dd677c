"""Everyday sentences from outside the training data, as near as the corpus allows (issue 51).

The Tatoeba pairs held out of the shipped model's training (runs/model-parts: their English is
in no training pair) still have near-duplicates there: "Tom was tired." is held out while "Tom is
tired." is trained on. A score on them mixes recall of such neighbours with translation of new
sentences. `novel` keeps the held-out pairs whose English has no training sentence within
NEAR word-set similarity (Jaccard: shared words over all words of the two, in lower case), which
is what a sentence a user types for the first time looks like to the model.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np

NEAR = 0.5
"""Word-set similarity at or above which a training sentence is a near-duplicate: "Tom is
tired." and "Tom was tired." (2 of 4 words) are; "Tom is tired." and "Mary is hungry." are not."""
_WORD = re.compile(r"\w+(?:'\w+)*")


def words_of(sentence: str) -> frozenset[str]:
    return frozenset(_WORD.findall(sentence.lower().replace("’", "'")))


def nearest_similarity(queries: Sequence[str], corpus: Iterable[str]) -> np.ndarray:
    """For each query, the highest word-set similarity of any corpus sentence (0 for none).
    Shared words are counted through an inverted index of the query's words only, so a corpus
    of 200,000 sentences takes seconds."""
    query_words = [words_of(query) for query in queries]
    wanted = set().union(*query_words)
    postings: dict[str, list[int]] = {word: [] for word in wanted}
    sizes = []
    for number, sentence in enumerate(dict.fromkeys(corpus)):
        words = words_of(sentence)
        sizes.append(len(words))
        for word in words & wanted:
            postings[word].append(number)
    size = np.asarray(sizes, dtype=np.int32)
    arrays = {word: np.asarray(ids, dtype=np.int64) for word, ids in postings.items()}
    best = np.zeros(len(queries))
    for index, words in enumerate(query_words):
        found = [arrays[word] for word in words if len(arrays[word])]
        if not found:
            continue
        shared = np.bincount(np.concatenate(found), minlength=len(size))
        hit = shared > 0
        best[index] = np.max(shared[hit] / (len(words) + size[hit] - shared[hit]))
    return best


def novel(
    pairs: Sequence[tuple[str, str]], training_english: Iterable[str], *, near: float = NEAR
) -> list[tuple[str, str]]:
    """The pairs whose English has no near-duplicate in `training_english`."""
    similarity = nearest_similarity([english for english, _ in pairs], training_english)
    return [pair for pair, score in zip(pairs, similarity, strict=True) if score < near]
