"""What a search returns and how it is ranked, shared by PyTorch's search (mt.decode.search) and
CTranslate2's (mt.decode.ct2_engine). Kept free of torch: an exported model translates without
importing it (docs/performance.md, "Start-up of a translation")."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Hypothesis:
    """One translation: tokens without BOS and EOS; log_prob includes EOS; score ranks."""

    tokens: tuple[int, ...]
    score: float
    log_prob: float


def gnmt_penalty(length: int, alpha: float) -> float:
    """GNMT penalty ((5 + length) / 6) ** alpha (Wu et al. 2016); length counts EOS."""
    return ((5 + length) / 6) ** alpha


def length_limit(
    source_length: int, max_len_a: float, max_len_b: int, max_positions: int | None
) -> int:
    """Most tokens a sentence of `source_length` tokens ([EOS] included) may emit before its
    EOS: floor(a * S + b), capped at max_positions - 1 (the decoder also reads BOS)."""
    limit = math.floor(max_len_a * source_length + max_len_b)
    if max_positions is not None:
        limit = min(limit, max_positions - 1)
    return max(limit, 0)
