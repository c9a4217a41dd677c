"""A long unit cut into parts of bounded size at sentence ends, so that putting markup back stays
linear in the document.

Placing tags costs the square of the unit's words, and a 300 KB page without block elements is
one unit of 50,000 words. A unit over MAX_UNIT_CHARS is translated as parts of whole sentences (a
longer sentence is cut at a space), joined again by the source's space or line break; the
Translator translates each sentence alone anyway, so the result is the same. Sentence ends are
looked for in windows of twice the bound: the splitter is slower than linear on a long line.
"""

from __future__ import annotations

import dataclasses
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from mt.decode.documents.units import TOKEN, Tag, Unit
from mt.text.sentences import sentence_spans

MAX_UNIT_CHARS = 1000
"""The most characters of text a unit's part holds, bar one sentence (or word) longer than that."""


@dataclass(frozen=True)
class Split:
    """A unit as parts to translate, and what the source had between them."""

    parts: tuple[Unit, ...]
    joins: tuple[str, ...]  # after each part but the last: " " or the source's line break

    def join(self, placed: Sequence[str]) -> str:
        """The unit's translation from its parts' placed translations."""
        out = [placed[0]]
        for join, text in zip(self.joins, placed[1:], strict=True):
            out += [join, text]
        return "".join(out)


def split_unit(unit: Unit, max_chars: int = MAX_UNIT_CHARS) -> Split:
    """The unit, or its parts cut at sentence ends, tags, spans and breaks dealt in one sweep."""
    if len(unit.text) <= max_chars:
        return Split((unit,), ())
    cuts = cut_points(unit.text, max_chars)
    bounds = list(zip([0, *(c + 1 for c in cuts)], [*cuts, len(unit.text)], strict=True))
    first_at: dict[str, int] = {}
    for match in TOKEN.finditer(unit.text):
        first_at.setdefault(match.group(), match.start())
    kept = sorted(unit.kept, key=lambda pair: first_at[pair[0]])
    kept_at = [first_at[token] for token, _ in kept]
    order = sorted(range(len(unit.tags)), key=lambda i: unit.tags[i].start)
    waiting, active = 0, []  # tags not reached yet (by start), tags that may reach this part
    parts = []
    for start, end in bounds:
        while waiting < len(order) and unit.tags[order[waiting]].start <= end:
            active.append(order[waiting])
            waiting += 1
        tags = sorted(i for i in active if _touches(unit.tags[i], start, end))
        active = [i for i in active if unit.tags[i].end > end]
        part_kept = kept[bisect_left(kept_at, start) : bisect_left(kept_at, end)]
        parts.append(_part(unit, start, end, tags, tuple(part_kept)))
    separators = dict(zip(unit.breaks, unit.separators, strict=True))
    return Split(tuple(parts), tuple(separators.get(c, " ") for c in cuts))


def cut_points(text: str, max_chars: int) -> list[int]:
    """Offsets of the spaces where `text` (single spaces, no outer ones) is cut: the last
    sentence start within the bound, else the last space within it, else the first after it."""
    cuts: list[int] = []
    start = 0
    while len(text) - start > max_chars:
        window = text[start : start + 2 * max_chars]
        starts = [start + s for s, _ in sentence_spans(window)[1:]]
        fitting = [s - 1 for s in starts if s - start <= max_chars and text[s - 1] == " "]
        if fitting:
            cut = fitting[-1]
        else:
            cut = text.rfind(" ", start + 1, start + max_chars + 1)
            if cut < 0:
                cut = text.find(" ", start + max_chars)
            if cut < 0:
                break  # one word to the end: nothing to cut at
        cuts.append(cut)
        start = cut + 1
    return cuts


def _part(unit: Unit, start: int, end: int, tags: list[int], kept: tuple) -> Unit:
    """The unit's text[start:end] with its `tags` (indices) and `kept` spans; a tag the cut goes
    through is opened in the part where it starts and closed where it ends."""
    tokens = {token for token, _ in kept}
    low, high = bisect_right(unit.breaks, start), bisect_left(unit.breaks, end)
    breaks = unit.breaks[low:high]
    return dataclasses.replace(
        unit,
        text=unit.text[start:end],
        tags=_tags(unit.tags, tags, start, end),
        kept=kept,
        breaks=tuple(b - start for b in breaks),
        separators=unit.separators[low:high],
        required=frozenset(b - start for b in breaks if b in unit.required),
        ordered=tuple(token for token in unit.ordered if token in tokens),
        glued_left=unit.glued_left & tokens,
        glued_right=unit.glued_right & tokens,
    )


def _touches(tag: Tag, start: int, end: int) -> bool:
    """Whether a tag wraps words of text[start:end] (or, empty, sits inside it)."""
    if tag.start == tag.end:
        return start <= tag.start <= end
    return tag.start < end and tag.end > start


def _tags(tags: tuple[Tag, ...], chosen: list[int], start: int, end: int) -> tuple[Tag, ...]:
    """The chosen tags over text[start:end], offsets and parents renumbered."""
    inside: dict[int, int] = {}
    out: list[Tag] = []
    for index in chosen:
        tag = tags[index]
        opened, closed = tag.start >= start, tag.end <= end
        inside[index] = len(out)
        out.append(
            Tag(
                open=tag.open if opened else "",
                close=tag.close if closed else "",
                start=max(tag.start, start) - start,
                end=min(tag.end, end) - start,
                parent=inside.get(tag.parent) if tag.parent is not None else None,
                space_inside=(tag.space_inside[0] and opened, tag.space_inside[1] and closed),
                space_outside=(
                    tag.space_outside[0] or not opened,
                    tag.space_outside[1] or not closed,
                ),
            )
        )
    return tuple(out)
