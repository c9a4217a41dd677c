"""sacrebleu's TER, the same numbers at a fraction of the cost.

sacrebleu follows Tercom: it shifts blocks of hypothesis words while a shift lowers the edit
distance, and each candidate shift computes the banded edit distance again from the changed word
to the end (on paragraph-length lines more than the translating itself). Here each round
computes the current hypothesis's distances once forward (`_forward`) and once backward
(`_backward`); a candidate changes only a window of rows, so its distance is the forward rows of
its window joined to the backward row after it (every path crosses each row). The cells, costs,
tie-breaking, candidates, their order and the stopping rule are sacrebleu's, so the edits are
equal (tests/evaluate/test_ter.py compares them on thousands of lines).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

from sacrebleu.metrics import TER
from sacrebleu.metrics.lib_ter import (  # Tercom's limits, as the installed sacrebleu has them
    _BEAM_WIDTH,
    _INT_INFINITY,
    _MAX_SHIFT_CANDIDATES,
    _MAX_SHIFT_DIST,
    _MAX_SHIFT_SIZE,
)

INF = _INT_INFINITY
_DIAGONAL, _DELETE, _INSERT = 0, 1, 2  # preferred in this order among equal costs


class FastTER(TER):
    """sacrebleu's TER metric with each segment's edits counted by `translation_edit_rate`."""

    def _compute_segment_statistics(self, hypothesis: str, ref_kwargs: dict) -> list[float]:
        words_hyp = hypothesis.split()
        ref_words = ref_kwargs["ref_words"]
        results = [translation_edit_rate(words_hyp, words_ref) for words_ref in ref_words]
        best = min((edits for edits, _ in results), default=INF)
        return [best, sum(length for _, length in results) / len(ref_words)]


def translation_edit_rate(words_hyp: list[str], words_ref: list[str]) -> tuple[int, int]:
    """(edits, reference length), as sacrebleu.metrics.lib_ter.translation_edit_rate."""
    if not words_ref:
        return len(words_hyp), 0
    band = _band(len(words_hyp), len(words_ref))
    words, shifts, checked = words_hyp, 0, 0
    while True:
        delta, shifted, checked = _best_shift(words, words_ref, band, checked)
        if checked >= _MAX_SHIFT_CANDIDATES or delta <= 0:
            break
        shifts += 1
        words = shifted
    costs, _ = _forward(words, words_ref, band)
    return shifts + costs[-1][-1], len(words_ref)


def _band(n_hyp: int, n_ref: int) -> list[tuple[int, int]]:
    """The columns [lo, hi) of each row that the edit distance computes (row 0: all)."""
    ratio = n_ref / n_hyp if n_hyp else 1
    width = math.ceil(ratio / 2 + _BEAM_WIDTH) if ratio / 2 > _BEAM_WIDTH else _BEAM_WIDTH
    band = [(0, n_ref + 1)]
    for i in range(1, n_hyp + 1):
        diagonal = math.floor(i * ratio)
        hi = n_ref + 1 if i == n_hyp else min(n_ref + 1, diagonal + width)
        band.append((max(0, diagonal - width), hi))
    return band


def _forward(
    hyp: Sequence[str], ref: Sequence[str], band: list[tuple[int, int]]
) -> tuple[list[list[int]], list[list[int]]]:
    """Every row's distances from the start, and the operation that reached each cell (as
    sacrebleu: among equal costs the diagonal, then a deletion, then an insertion)."""
    row = list(range(len(ref) + 1))
    costs, ops = [row], [[_INSERT] * len(row)]
    for i in range(1, len(hyp) + 1):
        prev, word, (lo, hi) = row, hyp[i - 1], band[i]
        row, op_row = [INF] * len(prev), [_DIAGONAL] * len(prev)
        if lo == 0:
            row[0], op_row[0], lo = prev[0] + 1, _DELETE, 1
        for j in range(lo, hi):
            cost, op = prev[j - 1] + (word != ref[j - 1]), _DIAGONAL
            if prev[j] + 1 < cost:
                cost, op = prev[j] + 1, _DELETE
            if row[j - 1] + 1 < cost:
                cost, op = row[j - 1] + 1, _INSERT
            if cost < INF:  # else unreached, as sacrebleu leaves it
                row[j], op_row[j] = cost, op
        costs.append(row)
        ops.append(op_row)
    return costs, ops


def _next_row(prev: list[int], word: str, ref: Sequence[str], lo: int, hi: int) -> list[int]:
    """_forward's next row of distances alone: the loop every candidate shift runs."""
    head: list[int] = []
    if lo == 0:
        head, lo = [prev[0] + 1], 1
    left = head[0] if head else INF
    cells = head
    columns = zip(prev[lo - 1 : hi - 1], prev[lo:hi], ref[lo - 1 : hi - 1], strict=True)
    for diagonal, up, other in columns:
        cost = diagonal if other == word else diagonal + 1
        if up + 1 < cost:
            cost = up + 1
        if left + 1 < cost:
            cost = left + 1
        if cost > INF:
            cost = INF
        cells.append(cost)
        left = cost
    start = hi - len(cells)
    return [INF] * start + cells + [INF] * (len(prev) - hi)


def _backward(
    hyp: Sequence[str], ref: Sequence[str], band: list[tuple[int, int]]
) -> list[list[int]]:
    """Every row's distances to the end: from cell (i, j), the cheapest way to the last cell."""
    n_hyp, n_ref = len(hyp), len(ref)
    lo, hi = band[n_hyp]
    last = [INF] * (n_ref + 1)
    for j in range(lo, hi):
        last[j] = n_ref - j
    rows = [last]
    for i in range(n_hyp - 1, -1, -1):
        below, word = rows[-1], hyp[i]
        below_lo, below_hi = band[i + 1]
        lo, hi = band[i]
        row = [INF] * (n_ref + 1)
        right = INF
        for j in range(hi - 1, lo - 1, -1):
            cost = right + 1
            if below_lo <= j < below_hi and below[j] + 1 < cost:
                cost = below[j] + 1
            if below_lo <= j + 1 < below_hi:
                diagonal = below[j + 1] if word == ref[j] else below[j + 1] + 1
                if diagonal < cost:
                    cost = diagonal
            if cost > INF:
                cost = INF
            row[j] = right = cost
        rows.append(row)
    rows.reverse()
    return rows


def _trace(ops: list[list[int]], hyp: Sequence[str], ref: Sequence[str]) -> str:
    """sacrebleu's trace of edit operations, read back from the last cell, flipped (the
    alignment rewrites the reference into the hypothesis)."""
    trace, i, j = [], len(hyp), len(ref)
    while i > 0 or j > 0:
        op = ops[i][j] if i > 0 else _INSERT
        if op == _DIAGONAL:
            trace.append(" " if hyp[i - 1] == ref[j - 1] else "s")
            i, j = i - 1, j - 1
        elif op == _INSERT:
            trace.append("d")  # flipped
            j -= 1
        else:
            trace.append("i")  # flipped
            i -= 1
    return "".join(reversed(trace))


def _alignment(trace: str) -> tuple[dict[int, int], list[int], list[int]]:
    """sacrebleu.metrics.lib_ter.trace_to_alignment."""
    pos_hyp = pos_ref = -1
    hyp_err: list[int] = []
    ref_err: list[int] = []
    align: dict[int, int] = {}
    for op in trace:
        if op in " s":
            pos_hyp, pos_ref = pos_hyp + 1, pos_ref + 1
            align[pos_ref] = pos_hyp
            hyp_err.append(op == "s")
            ref_err.append(op == "s")
        elif op == "i":
            pos_hyp += 1
            hyp_err.append(1)
        else:
            pos_ref += 1
            align[pos_ref] = pos_hyp
            ref_err.append(1)
    return align, ref_err, hyp_err


def _shifted_pairs(hyp: Sequence[str], ref: Sequence[str]) -> Iterator[tuple[int, int, int]]:
    """sacrebleu's _find_shifted_pairs, in its order: (hyp start, ref start, length) of every
    matching run of up to _MAX_SHIFT_SIZE words, starts at most _MAX_SHIFT_DIST apart."""
    places: dict[str, list[int]] = {}
    for position, word in enumerate(ref):
        places.setdefault(word, []).append(position)
    n_hyp, n_ref = len(hyp), len(ref)
    for start_h, word in enumerate(hyp):
        for start_r in places.get(word, ()):
            if abs(start_r - start_h) > _MAX_SHIFT_DIST:
                continue
            length = 0
            while hyp[start_h + length] == ref[start_r + length] and length < _MAX_SHIFT_SIZE:
                length += 1
                yield start_h, start_r, length
                if n_hyp == start_h + length or n_ref == start_r + length:
                    break


def _perform_shift(words: list[str], start: int, length: int, target: int) -> list[str]:
    """sacrebleu's _perform_shift: the block words[start:start+length] moved before `target`."""
    block = words[start : start + length]
    if target < start:
        return words[:target] + block + words[target:start] + words[start + length :]
    if target > start + length:
        return words[:start] + words[start + length : target] + block + words[target:]
    return (
        words[:start] + words[start + length : length + target] + block + words[length + target :]
    )


def _best_shift(
    words: list[str], ref: list[str], band: list[tuple[int, int]], checked: int
) -> tuple[int, list[str], int]:
    """sacrebleu's _shift: the shift that lowers the distance most (ties: the longest, the
    earliest, the earliest target), the words after it, and the candidates tried so far."""
    forward, ops = _forward(words, ref, band)
    pre_score = forward[-1][-1]
    align, ref_err, hyp_err = _alignment(_trace(ops, words, ref))
    backward = _backward(words, ref, band)
    best: tuple[int, int, int, int] | None = None
    best_words = words
    for start_h, start_r, length in _shifted_pairs(words, ref):
        if not any(hyp_err[start_h : start_h + length]):
            continue
        if not any(ref_err[start_r : start_r + length]):
            continue
        if start_h <= align[start_r] < start_h + length:
            continue
        previous = -1
        for offset in range(-1, length):
            if start_r + offset == -1:
                target = 0
            elif start_r + offset in align:
                target = align[start_r + offset] + 1
            else:
                break
            if target == previous:
                continue
            previous = target
            shifted = _perform_shift(words, start_h, length, target)
            distance = _distance(shifted, words, ref, band, forward, backward)
            candidate = (pre_score - distance, length, -start_h, -target)
            checked += 1
            if best is None or candidate > best:
                best, best_words = candidate, shifted
        if checked >= _MAX_SHIFT_CANDIDATES:
            break
    if best is None:
        return 0, words, checked
    return best[0], best_words, checked


def _distance(
    shifted: list[str],
    words: list[str],
    ref: Sequence[str],
    band: list[tuple[int, int]],
    forward: list[list[int]],
    backward: list[list[int]],
) -> int:
    """The distance of `shifted`, which differs from `words` only inside a window: the rows
    before it are `words`' forward rows, the rows after it its backward rows."""
    first = next((k for k, (a, b) in enumerate(zip(shifted, words, strict=True)) if a != b), None)
    if first is None:
        return forward[-1][-1]
    end = len(words)
    while shifted[end - 1] == words[end - 1]:
        end -= 1
    row = forward[first]
    for i in range(first + 1, end + 1):
        row = _next_row(row, shifted[i - 1], ref, *band[i])
    lo, hi = band[end]
    after = backward[end]
    return min(row[j] + after[j] for j in range(lo, hi))
