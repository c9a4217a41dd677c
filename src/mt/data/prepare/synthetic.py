"""Back-translated pairs (`mt prepare --synthetic PAIRS.tsv`): tagged, training part only, capped.

Tagged back-translation (Caswell et al. 2019): every synthetic source starts with SYNTHETIC_TAG,
so the model tells machine-made sources from real ones and does not learn to write like the
reverse model. The split is made on real pairs alone; a synthetic pair whose English is held out
(its Spanish would near-copy a reference) or that repeats a real pair leaves. At most `share` of
the training pairs (with their temperature repeats) are synthetic: a seeded sample, never repeated.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mt.config import PrepareConfig
from mt.data.prepare.partition import assign_parts
from mt.data.prepare.upsampling import row_repeats
from mt.data.tokenization import SYNTHETIC_TAG, WordPieceCodec
from mt.storage.files import SOURCE_TOKENIZER, TARGET_TOKENIZER

TRAIN = 0
_STREAM = 0x73796E  # keeps the sample's draws apart from the split's


def tagged(source: str) -> str:
    """A synthetic pair's source: the tag, a space, the text (which encodes after the tag exactly
    as it does alone)."""
    return f"{SYNTHETIC_TAG} {source}"


def is_synthetic(source: str) -> bool:
    """A source made by a machine (tagged at prepare), not written by a person."""
    return source.startswith(f"{SYNTHETIC_TAG} ")


def untagged(source: str) -> str:
    return source.removeprefix(f"{SYNTHETIC_TAG} ")


def place_synthetic(
    part: np.ndarray,
    *,
    synthetic: np.ndarray,
    english: np.ndarray,
    duplicate: np.ndarray,
    held_english: np.ndarray | None,
    real_train_rows: int,
    share: float,
    seed: int,
) -> dict[str, int]:
    """Label the synthetic rows of `part` (left at -1 by the split) train, or leave them out;
    `held_english`: the English hashes of the selection and test parts. Returns the counts."""
    if held_english is None:
        held_english = english[(part == 1) | (part == 2)]
    fresh = synthetic & ~duplicate
    held = fresh & np.isin(english, held_english)
    candidates = np.flatnonzero(fresh & ~held)
    cap = len(candidates) if share >= 1 else int(share / (1 - share) * real_train_rows)
    chosen = candidates
    if len(candidates) > cap:
        picks = np.random.default_rng([seed, _STREAM]).choice(len(candidates), cap, replace=False)
        chosen = candidates[np.sort(picks)]
    part[chosen] = TRAIN
    return {
        "read": int(synthetic.sum()),
        "duplicates": int((synthetic & duplicate).sum()),
        "held_out_english": int(held.sum()),
        "over_share": len(candidates) - len(chosen),
        "train": len(chosen),
    }


def split_parts(
    english: np.ndarray,
    *,
    synthetic: np.ndarray,
    duplicate: np.ndarray,
    pairs_per_corpus: list[int],
    config: PrepareConfig,
    held_english: np.ndarray | None,
    name: str,
) -> tuple[np.ndarray, np.ndarray, list[int], dict[str, int], int]:
    """Parts decided on the real pairs alone (partition.assign_parts), their repeats
    (upsampling), then the synthetic pairs placed: part and repeats of every row, each corpus's
    repeats, the synthetic counts, and the pairs excluded for a --selection/--test English."""
    part = np.full(len(english), -1, dtype=np.int8)
    part[~synthetic], excluded = assign_parts(
        english[~synthetic],
        duplicate[~synthetic],
        fractions=config.split,
        seed=config.seed,
        max_pairs=(config.max_selection, config.max_test),
        held_english=held_english,
        name=name,
    )
    repeats, corpus_repeats = row_repeats(
        part, pairs_per_corpus, config.sampling_temperature, train=TRAIN
    )
    placed = place_synthetic(
        part,
        synthetic=synthetic,
        english=english,
        duplicate=duplicate,
        held_english=held_english,
        real_train_rows=int(repeats[part == TRAIN].sum()),
        share=config.synthetic_share,
        seed=config.seed,
    )
    return part, repeats, corpus_repeats, placed, excluded


def with_tag(
    source: WordPieceCodec, target: WordPieceCodec, tmp: Path
) -> tuple[WordPieceCodec, WordPieceCodec]:
    """The source tokenizer with the synthetic tag (and a shared target with it too, so the two
    stay one vocabulary), saved over the ones chosen in `tmp`."""
    shared = (tmp / SOURCE_TOKENIZER).read_bytes() == (tmp / TARGET_TOKENIZER).read_bytes()
    source = source.tagged()
    source.save(tmp / SOURCE_TOKENIZER)
    if shared:
        source.save(tmp / TARGET_TOKENIZER)
        return source, source
    return source, target
