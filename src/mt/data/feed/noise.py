"""Source-side noise for training: make some English sentences look typed casually.

A model that only saw Tatoeba's careful English translates casual input worse. With
`--source-noise RATE` that share of sources is, each epoch, made casual in the
`--source-noise-kinds` ways: lower, punctuation, apostrophes, typos (mt.text.casual). Only prose
is touched (mt.text.prose): a slip in "git status" would teach the model to mend program names.

The draw is a pure function of (seed, epoch), so a resumed run sees the same sources; targets and
the synthetic tag never change. A non-English source gets only lower and punctuation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from mt.config import NOISE_KINDS
from mt.data.tokenization import SYNTHETIC_TAG
from mt.text.casual import FINAL_PUNCTUATION, TYPO_RATE, CasualStyle, casual_variant
from mt.text.prose import command_like, is_prose, outside_spans

_STREAM = 0x6E6F6973  # keeps these draws apart from the batch order's, which use (seed, epoch)
_CASUAL_STREAM = 1  # the apostrophes and typos kinds: apart from the draws of the first two


def parse_kinds(text: str) -> frozenset[str]:
    """ "lower,typos" -> its kinds; ValueError naming an unknown one."""
    kinds = frozenset(kind.strip() for kind in text.split(",") if kind.strip())
    unknown = sorted(kinds - set(NOISE_KINDS))
    if unknown or not kinds:
        raise ValueError(f"unknown noise kind {unknown[0]!r}" if unknown else "no noise kind")
    return kinds


def casual(text: str, *, lower: bool, punctuation: str | None) -> str:
    """`text` lowercased if `lower`; its final punctuation mark (with the spaces before it)
    replaced by `punctuation` ("" drops it, None keeps it)."""
    if lower:
        text = text.lower()
    if punctuation is not None and text and text[-1] in FINAL_PUNCTUATION:
        text = text[:-1].rstrip() + punctuation
    return text


@dataclass(frozen=True)
class NoiseDraws:
    """One epoch's draws of source noise: which rows are made casual and each one's numbers,
    drawn for every row at once from (seed, epoch), so a row is made alone, in any process, as
    it would be among all of them."""

    rate: float
    draws: np.ndarray  # (rows, 3): chosen < rate, lowercased < 0.5, the final mark
    casual_seeds: np.ndarray  # (rows,): the apostrophes' and typos' own stream
    made_casual: Callable[[Sequence[tuple[str, float, float, int]]], list[str]]

    @classmethod
    def of_epoch(
        cls, rows: int, *, rate: float, seed: int, epoch: int, kinds: str, english_source: bool
    ) -> NoiseDraws:
        chosen = parse_kinds(kinds)
        if not english_source:
            chosen &= {"lower", "punctuation"}
        draws = np.random.default_rng([seed, epoch, _STREAM]).random((rows, 3))
        casual_seeds = np.random.default_rng([seed, epoch, _STREAM, _CASUAL_STREAM]).integers(
            2**62, size=rows
        )
        style = CasualStyle(
            lower=0.0,
            punctuation=0.0,
            apostrophes=0.5 if "apostrophes" in chosen else 0.0,
            typos=TYPO_RATE if "typos" in chosen else 0.0,
        )
        made_casual = functools.partial(
            _made_casual, kinds=chosen, style=style, english_source=english_source
        )
        return cls(rate, draws, casual_seeds, made_casual)

    def chosen(self) -> np.ndarray:
        """Whether each row is made casual this epoch."""
        return self.draws[:, 0] < self.rate

    def chosen_row(self, row: int) -> bool:
        return bool(self.draws[row, 0] < self.rate)

    def numbers(self, row: int) -> tuple[float, float, int]:
        """Row `row`'s draws: what `made_casual` needs beside the text."""
        draws = self.draws[row]
        return float(draws[1]), float(draws[2]), int(self.casual_seeds[row])


def _made_casual(
    jobs: Sequence[tuple[str, float, float, int]],
    *,
    kinds: frozenset[str],
    style: CasualStyle,
    english_source: bool,
) -> list[str]:
    """Each (text, lower draw, punctuation draw, casual seed) made casual; run by a worker."""
    out = []
    for original, lower_draw, mark, casual_seed in jobs:
        tag, text = _without_tag(original)
        if not (is_prose(text) if english_source else not command_like(outside_spans(text))):
            out.append(original)
            continue
        if style.apostrophes or style.typos:
            text = casual_variant(text, casual_seed, style)
        lower = "lower" in kinds and lower_draw < 0.5
        punctuation = "" if mark < 0.5 else _swapped(text[-1:]) if mark < 0.6 else None
        punctuation = punctuation if "punctuation" in kinds else None
        noisy = casual(text, lower=lower, punctuation=punctuation)
        unchanged = noisy == original.removeprefix(tag) and "lower" in kinds
        out.append(tag + (casual(noisy, lower=True, punctuation=None) if unchanged else noisy))
    return out


def _without_tag(text: str) -> tuple[str, str]:
    """(the synthetic tag and its space, or "", the rest of `text`)."""
    tag = f"{SYNTHETIC_TAG} "
    return (tag, text.removeprefix(tag)) if text.startswith(tag) else ("", text)


def _swapped(mark: str) -> str | None:
    return {".": "!", "!": "."}.get(mark)
