"""Each epoch's training pairs as the model sees them: placeholder tokens and source noise.

With `--placeholders RATE` that share of the pairs whose two sides copy a span (a URL, code, a
number, a name: mt.text.spans) get those spans replaced by PLACEHOLDERS on both sides, so that the
model learns to copy the tokens the Translator puts in for protected spans. With `--source-noise`
sources are made casual (mt.data.feed.noise) after that. Both draws are pure functions of (seed,
epoch), so a resumed run sees exactly the pairs an uninterrupted one would; only the rows that
change are encoded again.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

from mt.config import TrainConfig
from mt.data.feed.noise import noisy_sources
from mt.data.tokenization import PLACEHOLDERS, WordPieceCodec
from mt.derived import derived
from mt.errors import MtError
from mt.parallel import workers_for
from mt.text import lexicon, spans, words
from mt.text.spans import candidate_rows, placeheld_pairs

PLACEHOLDER_RATE = 0.5
"""--placeholders when not given and the tokenizers have the tokens: half the pairs with shared
spans get them each epoch, so the model learns to copy the tokens and still sees the spans."""


class Rows(Protocol):
    def __len__(self) -> int: ...

    def sizes(self) -> np.ndarray: ...

    def row(self, index: int) -> np.ndarray: ...


def has_placeholders(*codecs: WordPieceCodec) -> bool:
    """Whether every placeholder token is one id of each codec that decodes back to itself: the
    one test of whether a model can be taught, or was taught, to copy them."""
    for codec in codecs:
        for token in PLACEHOLDERS:
            ids = codec.encode(token)
            if len(ids) != 1 or codec.decode(ids).strip() != token:
                return False
    return True


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
    pairs_file: Path | None = None,
) -> Callable[[int], tuple[Rows, Rows]] | None:
    """epoch -> (source, target) columns of the training pairs `pairs` (their texts) with the
    epoch's placeholders and noise (only its language-neutral kinds where the source is not
    English: mt.data.feed.noise); None when the config asks for neither. Only the rows an epoch
    changes are encoded again (a text encodes to the ids prepare stored for it), and the Python
    work is shared among worker processes on a large corpus (mt.parallel). The rows that can
    hold placeholders are found once for a `pairs_file` (the prepared train.tsv) and kept in the
    user's cache (mt.derived): a second run of the same data starts without looking again."""
    rate = config.placeholders or 0.0
    if not rate and not config.source_noise:
        return None
    source_codec, target_codec = codecs
    workers = workers_for(len(pairs))
    candidates = functools.cache(
        lambda: _candidates(pairs, workers, pairs_file) if rate else np.zeros(0, np.int64)
    )

    def columns(epoch: int) -> tuple[Rows, Rows]:
        changed = placeheld_pairs(
            pairs,
            candidates(),
            PLACEHOLDERS,
            rate=rate,
            seed=config.seed,
            epoch=epoch,
            workers=workers,
        )
        rows = sorted(changed)
        target_ids = target_codec.encode_batch([changed[row][1] for row in rows])
        new_target = PatchedColumn(target, dict(zip(rows, target_ids, strict=True)))
        texts = [changed[row][0] for row in rows]
        if config.source_noise:
            originals = [
                changed[row][0] if row in changed else en for row, (en, _) in enumerate(pairs)
            ]
            noisy = noisy_sources(
                originals,
                rate=config.source_noise,
                seed=config.seed,
                epoch=epoch,
                kinds=config.source_noise_kinds,
                english_source=english_source,
                workers=workers,
            )
            # only the rows whose text changed: the others' ids are the prepared ones
            rows = [row for row, (en, _) in enumerate(pairs) if noisy[row] != en]
            texts = [noisy[row] for row in rows]
        source_ids = source_codec.encode_batch(texts)
        return PatchedColumn(source, dict(zip(rows, source_ids, strict=True))), new_target

    return columns


def _candidates(
    pairs: Sequence[tuple[str, str]], workers: int, pairs_file: Path | None
) -> np.ndarray:
    if pairs_file is None:
        return candidate_rows(pairs, workers)
    return derived(
        pairs_file,
        kind="span-candidates",
        code=(spans, lexicon, words),
        build=lambda: candidate_rows(pairs, workers),
        encode=lambda rows: rows.tolist(),
        decode=lambda rows: np.asarray(rows, dtype=np.int64),
    )


class PatchedColumn:
    """`base` with some rows replaced by other ids: a view, the other rows are not copied."""

    def __init__(self, base: Rows, rows: dict[int, Sequence[int]]) -> None:
        self._base = base
        self._rows = {row: np.asarray(ids, dtype=np.int64) for row, ids in rows.items()}

    def __len__(self) -> int:
        return len(self._base)

    def sizes(self) -> np.ndarray:
        return self._sizes

    @functools.cached_property
    def _sizes(self) -> np.ndarray:
        sizes = self._base.sizes()
        if not self._rows:
            return sizes
        sizes = sizes.copy()
        rows = np.fromiter(self._rows, dtype=np.int64, count=len(self._rows))
        sizes[rows] = [len(ids) for ids in self._rows.values()]
        return sizes

    def row(self, index: int) -> np.ndarray:
        patched = self._rows.get(index)
        return self._base.row(index) if patched is None else patched
