"""Put a unit back together around its translation: placeholders, tags and line breaks.

Every protected span comes back exactly once: where the translation kept its token, at its first
place if repeated, else next to the target word aligned with its source neighbour. Each tag wraps
the target words whose alignment mass lies mostly inside the source words it wrapped, then the
tags are fitted into their source nesting, so the output is well formed by construction.
"""

from __future__ import annotations

from dataclasses import dataclass

from mt.decode.documents.align import Matrix, words
from mt.decode.documents.units import TOKEN, Tag, Unit


@dataclass
class Word:
    text: str
    space: str  # the whitespace before it in the output
    row: list[float]  # its alignment over the source words


def place(unit: Unit, translation: str, alignment: Matrix) -> str:
    """The unit's translation with its protected spans, tags and line breaks put back."""
    source_words = words(unit.text)
    target = [
        Word(translation[start:end], translation[previous:start], row)
        for (start, end), previous, row in zip(
            words(translation), _previous_ends(translation), alignment, strict=True
        )
    ]
    if target:
        target[0].space = ""
    target = _placeholders(unit, source_words, target)
    _keep_order(unit.ordered, target)
    for before, word in zip(target, target[1:], strict=False):
        glued = before.text in unit.glued_right or word.text in unit.glued_left
        if glued and word.space == " ":
            word.space = ""
    ranges = _tag_ranges(unit, source_words, target)
    left_over = _break_lines(unit, target)
    for word in target:
        if unit.escape is not None and not TOKEN.fullmatch(word.text):
            word.text = unit.escape(word.text)
    return _write(unit.tags, ranges, target, dict(unit.kept)) + left_over


def _previous_ends(text: str) -> list[int]:
    """Where the gap before each word starts."""
    spans = words(text)
    return [0, *(end for _, end in spans[:-1])] if spans else []


def _placeholders(unit: Unit, source_words: list, target: list[Word]) -> list[Word]:
    """Every placeholder token exactly once: stray and repeated ones out, lost ones in."""
    wanted = {token for token, _ in unit.kept}
    seen: set[str] = set()
    kept: list[Word] = []
    for word in target:
        if TOKEN.fullmatch(word.text) and (word.text not in wanted or word.text in seen):
            continue
        seen.add(word.text)
        kept.append(word)
    for token, _ in unit.kept:
        offset = unit.text.find(token)
        s = next(i for i, (start, end) in enumerate(source_words) if start <= offset < end)
        one_hot = [1.0 if i == s else 0.0 for i in range(len(source_words))]
        found = next((w for w in kept if w.text == token), None)
        if found is not None:
            found.row = one_hot  # a copied placeholder aligns with itself, whatever attention says
        else:
            _insert(
                kept, _insertion_point(unit.text, source_words, s, kept), Word(token, " ", one_hot)
            )
    if kept:
        kept[0].space = ""
    return kept


def _keep_order(ordered: tuple[str, ...], target: list[Word]) -> None:
    """The tokens that must keep their order put back in it, on the places they took."""
    places = [word for word in target if word.text in ordered]
    for word, token in zip(places, ordered, strict=True):
        word.text = token


def _insert(target: list[Word], index: int, word: Word) -> None:
    """`word` in at `index`, a space on either side of it but before punctuation."""
    target.insert(index, word)
    following = target[index + 1] if index + 1 < len(target) else None
    if following is not None and not following.space and following.text[:1].isalnum():
        following.space = " "


def _insertion_point(text: str, source_words: list, s: int, target: list[Word]) -> int:
    """Where a lost placeholder goes: first or last where the source had it so, else after the
    target word drawing most on the source word before it."""
    if s == 0 or not target:
        return 0
    if all(not text[a:b][:1].isalnum() for a, b in source_words[s + 1 :]):
        trailing = len(source_words) - s - 1
        index = len(target)
        while trailing and index and not target[index - 1].text[:1].isalnum():
            index, trailing = index - 1, trailing - 1
        return index
    return max(range(len(target)), key=lambda t: target[t].row[s - 1]) + 1


def _tag_ranges(unit: Unit, source_words: list, target: list[Word]) -> list[range]:
    """Target word ranges of each tag, fitted into the source nesting."""
    tags, text = unit.tags, unit.text
    wanted = [_projected(tag, text, source_words, target) for tag in tags]
    ranges: list[range] = [range(0)] * len(tags)
    _fit(None, range(0, len(target)), tags, wanted, ranges)
    return ranges


def _projected(tag: Tag, text: str, source_words: list, target: list[Word]) -> range:
    inside = [
        s for s, (start, end) in enumerate(source_words) if start < tag.end and end > tag.start
    ]
    if not inside or not target:
        # A tag around no words stays at the position of the source word after it.
        after = next((s for s, (start, _) in enumerate(source_words) if start >= tag.start), None)
        if after is None or not target:
            return range(len(target), len(target))
        t = max(range(len(target)), key=lambda k: target[k].row[after])
        return range(t, t)
    shares = [sum(word.row[s] for s in inside) / (sum(word.row) or 1.0) for word in target]
    chosen = [t for t, share in enumerate(shares) if share > 0.5]
    has_word = [t for t in range(len(target)) if target[t].text[:1].isalnum()]
    source_has_word = any(_is_word(source_words[s], text) for s in inside)
    if source_has_word and has_word and not any(t in has_word for t in chosen):
        # Words for words: "*¿*Dónde" would be an attention slip onto punctuation.
        chosen = [max(has_word, key=lambda t: shares[t])]
    if not chosen:
        chosen = [max(range(len(target)), key=lambda t: shares[t])]
    start, stop = min(chosen), max(chosen) + 1
    # Punctuation at an edge only where the source span had punctuation at that edge.
    while start < stop - 1 and _is_word(source_words[inside[0]], text) and start not in has_word:
        start += 1
    while (
        stop - 1 > start and _is_word(source_words[inside[-1]], text) and stop - 1 not in has_word
    ):
        stop -= 1
    return range(start, stop)


def _is_word(span: tuple[int, int], text: str) -> bool:
    return text[span[0] : span[1]][:1].isalnum()


def _fit(parent: int | None, bounds: range, tags, wanted: list[range], ranges: list[range]):
    """The children of `parent` put inside its range on words no sibling holds: the free part of
    the wanted span, else the free word nearest to it (an empty tag only when all are taken)."""
    children = [i for i, tag in enumerate(tags) if tag.parent == parent]
    children.sort(key=lambda i: (not wanted[i], wanted[i].start, i))
    free = set(bounds)
    for i in children:
        want = wanted[i]
        inside = [t for t in range(max(want.start, bounds.start), min(want.stop, bounds.stop))]
        desired = [t for t in inside if t in free]
        if want and not desired and free:
            desired = [min(free, key=lambda t: (abs(t - want.start), t))]
        if want and desired:
            stop = desired[0]
            while stop in free and (stop <= desired[-1]):
                stop += 1
            ranges[i] = range(desired[0], stop)
            free -= set(ranges[i])
        else:
            at = min(max(want.start, bounds.start), bounds.stop)
            ranges[i] = range(at, at)
        _fit(i, ranges[i], tags, wanted, ranges)


def _break_lines(unit: Unit, target: list[Word]) -> str:
    """The source's line breaks put at the spaces nearest the same share of the length, a gap left
    for every required break to come; returns the required separators that found no gap (they
    go at the end, so that no subtitle cue is lost)."""
    if not unit.breaks:
        return ""
    lengths = []
    running = 0
    for word in target:
        running += len(word.space) + len(word.text)
        lengths.append(running)
    gaps = [t for t in range(1, len(target)) if target[t].space]
    still_required = len(unit.required)
    left_over = ""
    for offset, separator in zip(unit.breaks, unit.separators, strict=True):
        required = offset in unit.required
        still_required -= required
        usable = gaps[: max(0, len(gaps) - still_required)]
        if not usable:
            left_over += separator if required else ""
            continue
        goal = offset / len(unit.text) * running
        best = min(usable, key=lambda t: abs(lengths[t - 1] - goal))
        target[best].space = separator
        gaps = [t for t in gaps if t > best]
    return left_over


def _write(tags: tuple[Tag, ...], ranges: list[range], target: list[Word], originals) -> str:
    out: list[str] = []
    spaces_written: set[int] = set()

    def word(t: int) -> None:
        if t not in spaces_written:
            out.append(target[t].space)
        out.append(originals.get(target[t].text, target[t].text))

    def open_tag(tag: Tag, span: range) -> None:
        """Where the source had a space before the tag's first word: outside, inside, or both."""
        (inside, _), (outside, _) = tag.space_inside, tag.space_outside
        if not span or span.start in spaces_written:
            out.append(tag.open)
            return
        space = target[span.start].space
        spaces_written.add(span.start)
        out.append(space if outside or not inside else "")
        out.append(tag.open)
        out.append(space if inside else "")

    def close_tag(tag: Tag, span: range) -> None:
        (_, inside), (_, outside) = tag.space_inside, tag.space_outside
        following = span.stop
        if span and inside and following < len(target) and following not in spaces_written:
            out.append(target[following].space)
            if not outside:
                spaces_written.add(following)
        out.append(tag.close)

    def tree(parent: int | None, bounds: range) -> None:
        children = sorted(
            (i for i, tag in enumerate(tags) if tag.parent == parent),
            key=lambda i: (ranges[i].start, ranges[i].stop > ranges[i].start, i),
        )
        cursor = bounds.start
        for i in children:
            for t in range(cursor, ranges[i].start):
                word(t)
            open_tag(tags[i], ranges[i])
            tree(i, ranges[i])
            close_tag(tags[i], ranges[i])
            cursor = max(cursor, ranges[i].stop)
        for t in range(cursor, bounds.stop):
            word(t)

    tree(None, range(0, len(target)))
    return "".join(out)
