"""Word alignment between a unit's text and its translation, for placing tags and lost placeholders:
the model's own cross-attention (last decoder layer, heads averaged), teacher-forced on its
translation; otherwise, or for a unit too long for the model, a monotone alignment by relative
position, right for English and Spanish most of the time and never failing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from mt.data.tokenization import PLACEHOLDER, encode_sources
from mt.decode.ct2_engine import ExportedRun
from mt.text.cleaning import clean_text
from mt.text.words import word_or_mark

if TYPE_CHECKING:
    import numpy as np

    from mt.decode.engine import AttentionEngine

ALIGNED = word_or_mark(PLACEHOLDER.pattern)
"""A word for alignment and tag placement: a placeholder token (PLACEHOLDER), a word, or one
punctuation mark, so that a tag closes before the full stop that follows its words
(mt.text.words.word_or_mark)."""

Matrix = list[list[float]]  # [target word][source word], each row summing to 1


def words(text: str) -> list[tuple[int, int]]:
    """(start, end) of each word of `text`."""
    return [match.span() for match in ALIGNED.finditer(text)]


class Aligner(Protocol):
    def align(self, pairs: Sequence[tuple[str, str]]) -> list[Matrix]:
        """Per (source, translation): how much each target word draws on each source word."""
        ...


class PositionAligner:
    """Each target word aligned to the source words at the same relative position."""

    def align(self, pairs: Sequence[tuple[str, str]]) -> list[Matrix]:
        return [by_position(len(words(source)), len(words(target))) for source, target in pairs]


def by_position(sources: int, targets: int) -> Matrix:
    matrix = []
    for t in range(targets):
        centre = (t + 0.5) / targets * sources
        row = [math.exp(-abs(s + 0.5 - centre)) for s in range(sources)]
        total = sum(row) or 1.0
        matrix.append([value / total for value in row])
    return matrix


class AttentionAligner:
    """The translator's model's cross-attention (mt.decode.engine), pieces summed into words."""

    def __init__(
        self, engine: AttentionEngine, source, target, max_positions: int, batch_size: int = 32
    ) -> None:
        self.engine = engine
        self.source = source  # the source and target WordPieceCodecs
        self.target = target
        self.batch_size = batch_size
        self.max_len = max_positions - 1
        self.fallback = PositionAligner()

    def align(self, pairs: Sequence[tuple[str, str]]) -> list[Matrix]:
        results: list[Matrix] = []
        for start in range(0, len(pairs), self.batch_size):
            results += self._batch(pairs[start : start + self.batch_size])
        return results

    def _batch(self, pairs: Sequence[tuple[str, str]]) -> list[Matrix]:
        encoded = [self._encode(source, target) for source, target in pairs]
        usable = [i for i, e in enumerate(encoded) if e is not None]
        results: list[Matrix] = [
            [] if e is not None else self.fallback.align([pair])[0]
            for pair, e in zip(pairs, encoded, strict=True)
        ]
        if not usable:
            return results
        weights = self.engine.attention(
            [encoded[i][0] for i in usable], [encoded[i][2] for i in usable]
        )
        for i, map_ in zip(usable, weights, strict=True):
            source, target = pairs[i]
            _, source_spans, target_ids, target_spans = encoded[i]
            # Row k of the map is the step that predicts target piece k.
            pieces = map_[: len(target_ids), : len(source_spans)]
            results[i] = _word_matrix(pieces, source_spans, target_spans, source, target)
        return results

    def _encode(self, source: str, target: str):
        """Ids and character spans of both sides, or None where the model cannot take them."""
        if clean_text(source) != source or clean_text(target) != target or not target:
            return None
        source_spans = self.source.spans(source)
        target_spans = self.target.spans(target)
        if len(source_spans) >= self.max_len or len(target_spans) >= self.max_len:
            return None
        source_ids = encode_sources([self.source.encode(source)], self.max_len)[0]
        target_ids = self.target.encode(target)
        if len(source_ids) != len(source_spans) + 1 or len(target_ids) != len(target_spans):
            return None
        return source_ids, source_spans, target_ids, target_spans


def _word_matrix(pieces: np.ndarray, source_spans, target_spans, source: str, target: str):
    """Piece attention (target piece, source piece) summed over source words, averaged over the
    pieces of each target word, rows normalised."""
    import numpy as np  # here, not at the top: `mt serve` starts 0.14 s sooner without it

    pieces = np.asarray(pieces, dtype=np.float32)
    source_words, target_words = words(source), words(target)
    column = _word_of(source_spans, source_words)
    row_of = _word_of(target_spans, target_words)
    # One-hot maps of pieces to words: matrix[t, s] sums pieces[k, j] over k in t and j in s.
    rows = np.zeros((len(target_words), len(row_of)), dtype=np.float32)
    for k, t in enumerate(row_of):
        if t is not None:
            rows[t, k] = 1.0
    columns = np.zeros((len(column), len(source_words)), dtype=np.float32)
    for j, s in enumerate(column):
        if s is not None:
            columns[j, s] = 1.0
    matrix = rows @ pieces[: len(row_of), : len(column)] @ columns
    fallback: Matrix = []  # by position, made only for a row with no attention at all
    out = []
    for t in range(len(target_words)):
        total = float(matrix[t].sum())
        if total <= 0 and not fallback:
            fallback = by_position(len(source_words), len(target_words))
        out.append([float(v) / total for v in matrix[t]] if total > 0 else fallback[t])
    return out


def _word_of(spans: list[tuple[int, int]], words: list[tuple[int, int]]) -> list[int | None]:
    """For each character span (in order), the word it overlaps most, in one sweep over both."""
    found: list[int | None] = []
    first = 0
    for start, end in spans:
        while first < len(words) and words[first][1] <= start:
            first += 1
        best, overlap = None, 0
        index = first
        while index < len(words) and words[index][0] < end:
            shared = min(end, words[index][1]) - max(start, words[index][0])
            if shared > overlap:
                best, overlap = index, shared
            index += 1
        found.append(best)
    return found


def aligner_for(translator) -> Aligner:
    """Attention where the translator's model gives it, positions otherwise (scripted in tests)."""
    run = getattr(translator, "run", None)
    if isinstance(run, ExportedRun):
        engine = run.engine
    else:  # torch only for a run's PyTorch model
        from mt.decode.engine import attention_engine
        from mt.model.rundir import LoadedRun

        if not isinstance(run, LoadedRun):
            return PositionAligner()
        engine = attention_engine(run, translator.device)
    if engine is None:
        return PositionAligner()
    return AttentionAligner(engine, run.source, run.target, run.config.max_positions)
