"""The split of `mt prepare`, decided on 64-bit hashes alone (English sentence, pair) so millions
of pairs split without their text: duplicates, parts grouped by English sentence (first-appearance
order, shuffled with the seed, selection and test capped) and the tokenizers' sample.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from mt.errors import MtError


def pair_hashes(texts: Sequence[str]) -> np.ndarray:
    """A 64-bit hash of each text, the same in every run (pandas' fixed-key SipHash)."""
    return pd.util.hash_array(np.asarray(texts, dtype=object), categorize=False)


def combine_hashes(english: np.ndarray, spanish: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return english * np.uint64(0x9E3779B97F4A7C15) ^ spanish


def assign_parts(
    english_hash: np.ndarray,
    duplicate: np.ndarray,
    *,
    fractions: tuple[float, float, float],
    seed: int,
    max_pairs: tuple[int, int],
    held_english: np.ndarray | None,
    name: str,
) -> tuple[np.ndarray, int]:
    """Part of every pair: 0 train, 1 selection, 2 test, -1 dropped (a duplicate, or with
    held-out files, a pair whose English hash is in `held_english`); and how many were excluded
    so."""
    part = np.full(len(english_hash), -1, dtype=np.int8)
    kept = ~duplicate
    if held_english is not None:
        excluded = kept & np.isin(english_hash, held_english)
        part[kept & ~excluded] = 0
        if not (part == 0).any():
            raise MtError(
                f"{name}: no training pair left: every English sentence is in "
                "the --selection or --test file"
            )
        return part, int(excluded.sum())
    codes, uniques = pd.factorize(english_hash[kept])
    groups = len(uniques)
    n_selection = round(fractions[1] * groups)
    n_test = round(fractions[2] * groups)
    n_train = groups - n_selection - n_test
    if min(n_train, n_selection, n_test) <= 0:
        raise MtError(
            f"{name}: too small to split: {groups} distinct English sentences "
            f"give {n_train}/{n_selection}/{n_test} for train/selection/test; "
            "add pairs or give --selection and --test files"
        )
    pairs_of_group = np.bincount(codes, minlength=groups)
    part_of_group = np.zeros(groups, dtype=np.int8)
    order = np.random.default_rng(seed).permutation(groups)
    candidates = (order[n_train : n_train + n_selection], order[n_train + n_selection :])
    for label, (chosen, cap) in enumerate(zip(candidates, max_pairs, strict=True), start=1):
        # Whole English sentences, in shuffled order, while the part holds at most `cap` pairs;
        # the groups left over train.
        fits = np.cumsum(pairs_of_group[chosen]) <= cap
        part_of_group[chosen[fits]] = label
    part[kept] = part_of_group[codes]
    return part, 0


def tokenizer_sample_mask(part: np.ndarray, *, size: int, seed: int) -> np.ndarray:
    """Which spooled pairs the tokenizers learn from: every training pair when there are at most
    `size`, else a seeded sample of `size` of them (kept in file order)."""
    train = np.flatnonzero(part == 0)
    chosen = np.zeros(len(part), dtype=bool)
    if len(train) <= size:
        chosen[train] = True
    else:
        picks = np.random.default_rng([seed, 0x746F6B]).choice(len(train), size, replace=False)
        chosen[train[picks]] = True
    return chosen
