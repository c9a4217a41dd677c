"""Each epoch's training pairs as the model sees them: placeholder tokens and source noise.

`--placeholders RATE` replaces the spans both sides share (mt.text.spans) with PLACEHOLDERS, so the
model learns to copy the Translator's stand-ins; `--source-noise` then makes sources casual
(mt.data.feed.noise). Both are drawn for every row at once from (seed, epoch), so a resumed run sees
the same pairs. A row is made when a batch first reads it (the first step waits for 64 rows, not
an epoch of regular expressions); on a GPU `fill` makes the epoch at once over workers.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from mt.config import TrainConfig
from mt.data.feed.noise import NoiseDraws
from mt.data.tokenization import PLACEHOLDERS, WordPieceCodec, has_placeholders
from mt.errors import MtError
from mt.runtime.parallel import map_chunks, workers_for
from mt.text.spans import placeheld

PLACEHOLDER_RATE = 0.5
"""--placeholders when not given and the tokenizers have the tokens: half the pairs with shared
spans get them each epoch, so the model learns to copy the tokens and still sees the spans."""


class Rows(Protocol):
    def __len__(self) -> int: ...

    def sizes(self) -> np.ndarray: ...

    def row(self, index: int) -> np.ndarray: ...


def placeholder_rate(
    config: TrainConfig, codecs: tuple[WordPieceCodec, WordPieceCodec], where: object
) -> float:
    """--placeholders as given, else PLACEHOLDER_RATE or 0 by the tokenizers; a rate for
    tokenizers without the tokens is refused (the model would learn to copy unknown pieces)."""
    carried = has_placeholders(*codecs)
    if config.placeholders is None:
        return PLACEHOLDER_RATE if carried else 0.0
    if config.placeholders and not carried:
        raise MtError(
            f"--placeholders {config.placeholders}: the tokenizers of {where} have no "
            f"placeholder tokens ({PLACEHOLDERS[0]} ...); prepare the data with them, or give "
            "--placeholders 0"
        )
    return config.placeholders


def augmentation(
    source: Rows,
    target: Rows,
    pairs: Sequence[tuple[str, str]],
    codecs: tuple[WordPieceCodec, WordPieceCodec],
    config: TrainConfig,
    english_source: bool = True,
) -> Callable[[int], EpochPairs] | None:
    """epoch -> the training pairs `pairs` (the texts of `source` and `target`) with that epoch's
    placeholders and noise (only its language-neutral kinds where the source is not English:
    mt.data.feed.noise); None when the config asks for neither."""
    rate = config.placeholders or 0.0
    if not rate and not config.source_noise:
        return None
    workers = workers_for(len(pairs))

    def epoch_pairs(epoch: int) -> EpochPairs:
        held = np.random.default_rng([config.seed, epoch, _PLACEHOLDER_STREAM]).random(len(pairs))
        noise = None
        if config.source_noise:
            noise = NoiseDraws.of_epoch(
                len(pairs),
                rate=config.source_noise,
                seed=config.seed,
                epoch=epoch,
                kinds=config.source_noise_kinds,
                english_source=english_source,
            )
        return EpochPairs((source, target), pairs, codecs, held < rate, noise, workers)

    return epoch_pairs


_PLACEHOLDER_STREAM = 0x706C6863  # apart from the batch order's draws and the source noise's
# a row's (source ids, target ids) as an epoch made them; None: the side is as prepared
_Made = tuple[np.ndarray | None, np.ndarray | None]


class EpochPairs:
    """One epoch's pairs: a row is made when first read (`row`), or with every other row by
    `fill`; `columns` are the two sides as the batches read them."""

    def __init__(
        self,
        base: tuple[Rows, Rows],
        pairs: Sequence[tuple[str, str]],
        codecs: tuple[WordPieceCodec, WordPieceCodec],
        held: np.ndarray,
        noise: NoiseDraws | None,
        workers: int,
    ) -> None:
        self._base, self._pairs, self._codecs = base, pairs, codecs
        self._held, self._noise, self._workers = held, noise, workers
        self._changing = held if noise is None else held | noise.chosen()
        self._made: dict[int, _Made] = {}
        texts = functools.partial(_augmented_texts, placeholders=tuple(PLACEHOLDERS))
        self._texts = texts if noise is None else functools.partial(texts, noise=noise.made_casual)

    @property
    def columns(self) -> tuple[Rows, Rows]:
        return _EpochColumn(self, 0), _EpochColumn(self, 1)

    def __len__(self) -> int:
        return len(self._pairs)

    def sizes(self, side: int) -> np.ndarray:
        """The prepared sizes of the source (side 0) or the target (side 1)."""
        return self._base[side].sizes()

    def row(self, index: int, side: int) -> np.ndarray:
        """Row `index` of the source (side 0) or the target (side 1) as this epoch has it."""
        if not self._changing[index]:
            return self._base[side].row(index)
        made = self._made.get(index)
        if made is None:
            made = self._made[index] = self._make([index], workers=1)[0]
        ids = made[side]
        return self._base[side].row(index) if ids is None else ids

    def fill(self) -> None:
        """Every row this epoch changes, made at once over worker processes."""
        rows = [int(row) for row in np.flatnonzero(self._changing) if int(row) not in self._made]
        self._made.update(zip(rows, self._make(rows, workers=self._workers), strict=True))

    def _make(self, rows: list[int], *, workers: int) -> list[_Made]:
        jobs = [self._job(row) for row in rows]
        texts = map_chunks(self._texts, jobs, workers)
        made: list[list[np.ndarray | None]] = [[None, None] for _ in rows]
        for side, codec in enumerate(self._codecs):
            changed = [k for k, pair in enumerate(texts) if pair[side] is not None]
            sentences = [texts[k][side] for k in changed]
            # one row alone in this thread: a batch call would queue behind a fill's in the
            # tokenizers' shared thread pool
            encoded = (
                codec.encode_batch(sentences) if len(rows) > 1 else map(codec.encode, sentences)
            )
            for k, ids in zip(changed, encoded, strict=True):
                made[k][side] = np.asarray(ids, dtype=np.int64)
        return [(source, target) for source, target in made]

    def _job(self, row: int) -> tuple[str, str, bool, tuple[float, float, int] | None]:
        english, spanish = self._pairs[row]
        casual = None
        if self._noise is not None and self._noise.chosen_row(row):
            casual = self._noise.numbers(row)
        return english, spanish, bool(self._held[row]), casual


def _augmented_texts(
    jobs: Sequence[tuple[str, str, bool, tuple[float, float, int] | None]],
    *,
    placeholders: tuple[str, ...],
    noise: Callable[[Sequence[tuple[str, float, float, int]]], list[str]] | None = None,
) -> list[tuple[str | None, str | None]]:
    """Each (english, spanish, held, casual draws) as this epoch has it: (new english or None,
    new spanish or None), None where a side is as prepared; run by a worker."""
    out: list[tuple[str | None, str | None]] = []
    for english, spanish, held, casual in jobs:
        source, target = placeheld(english, spanish, placeholders) if held else (english, spanish)
        if casual is not None and noise is not None:
            source = noise([(source, *casual)])[0]
        out.append((None if source == english else source, None if target == spanish else target))
    return out


class _EpochColumn:
    """One side of an epoch's pairs. Its sizes are the prepared ones, on which batches are
    planned; a made row may be a few ids longer or shorter, and collate takes its own length."""

    def __init__(self, pairs: EpochPairs, side: int) -> None:
        self._pairs, self._side = pairs, side

    def __len__(self) -> int:
        return len(self._pairs)

    def sizes(self) -> np.ndarray:
        return self._pairs.sizes(self._side)

    def row(self, index: int) -> np.ndarray:
        return self._pairs.row(index, self._side)
