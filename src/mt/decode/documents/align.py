"""Word alignment between a unit's text and its translation, for placing tags and lost placeholders:
the model's own cross-attention (last decoder layer, heads averaged), teacher-forced on its
translation; otherwise, or for a unit too long for the model, a monotone alignment by relative
position, right for English and Spanish most of the time and never failing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
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

ALIGN_PIECES = 2048
"""Source and target pieces the model is given at once for alignment (bar one longer pair): a
search batch's worth, 32 sentences of 30 pieces each way."""

Matrix = list[list[float]]  # [target word][source word], each row summing to 1


def words(text: str) -> list[tuple[int, int]]:
    """(start, end) of each word of `text`."""
    return [match.span() for match in ALIGNED.finditer(text)]


class Aligner(Protocol):
    def align(self, pairs: Sequence[tuple[str, str]]) -> Iterable[Matrix]:
        """Per (source, translation), in order: how much each target word draws on each source
        word, each matrix made as it is taken (a caller that places a unit first holds one)."""
        ...


class PositionAligner:
    """Each target word aligned to the source words at the same relative position."""

    def align(self, pairs: Sequence[tuple[str, str]]) -> Iterator[Matrix]:
        return (by_position(len(words(source)), len(words(target))) for source, target in pairs)


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
        self,
        engine: AttentionEngine,
        source,
        target,
        max_positions: int,
        batch_size: int = 32,
        batch_pieces: int = ALIGN_PIECES,
    ) -> None:
        self.engine = engine
        self.source = source  # the source and target WordPieceCodecs
        self.target = target
        self.batch_size = batch_size
        self.batch_pieces = batch_pieces
        self.max_len = max_positions - 1
        self.fallback = PositionAligner()

    def align(self, pairs: Sequence[tuple[str, str]]) -> Iterator[Matrix]:
        """The model sees up to batch_size pairs at once, of at most batch_pieces pieces in all
        (a teacher-forced pass holds its pieces' keys and values in every layer: 32 units of up
        to 1,000 characters at once took a 300 KB HTML page's peak to 319 MB above the loaded
        model, against 181 MB with the bound); their word matrices
        are held as float32 arrays and each becomes Python floats only as it is taken."""
        batch: list[tuple[tuple[str, str], tuple | None]] = []
        pieces = 0
        for pair in pairs:
            encoded = self._encode(*pair)
            size = 0 if encoded is None else len(encoded[0]) + len(encoded[2])
            if batch and (len(batch) == self.batch_size or pieces + size > self.batch_pieces):
                yield from self._batch(batch)
                batch, pieces = [], 0
            batch.append((pair, encoded))
            pieces += size
        if batch:
            yield from self._batch(batch)

    def _batch(self, batch: list[tuple[tuple[str, str], tuple | None]]) -> Iterator[Matrix]:
        usable = [i for i, (_, e) in enumerate(batch) if e is not None]
        weights = (
            self.engine.attention(
                [batch[i][1][0] for i in usable], [batch[i][1][2] for i in usable]
            )
            if usable
            else []
        )
        sums = {}
        for i, map_ in zip(usable, weights, strict=True):
            (source, target), (_, source_spans, target_ids, target_spans) = batch[i]
            # Row k of the map is the step that predicts target piece k.
            pieces = map_[: len(target_ids), : len(source_spans)]
            sums[i] = _word_sums(pieces, source_spans, target_spans, source, target)
        del weights  # the pieces' maps, larger than the words' sums
        for i, (pair, _) in enumerate(batch):
            if i in sums:
                yield _normalised(sums.pop(i))
            else:
                yield from self.fallback.align([pair])

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


def _word_sums(
    pieces: np.ndarray, source_spans, target_spans, source: str, target: str
) -> np.ndarray:
    """Piece attention (target piece, source piece) summed into (target word, source word)."""
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
    return rows @ pieces[: len(row_of), : len(column)] @ columns


def _normalised(matrix: np.ndarray) -> Matrix:
    """Each row over its sum, as Python floats; a row with no attention at all by position."""
    fallback: Matrix = []  # made only for a row with no attention at all
    out = []
    for t in range(len(matrix)):
        total = float(matrix[t].sum())
        if total <= 0 and not fallback:
            fallback = by_position(matrix.shape[1], len(matrix))
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
