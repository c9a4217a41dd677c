"""Cut a line of text into the pieces a model translates, keeping every character between them.

A line longer than one sentence, or a sentence over the training limit, is cut into sentences
(mt.text.sentences), then at clause boundaries (";", ":", ",", a conjunction) and at last at word
or character windows, never inside a protected span while another break is left. Every
non-space character lands in exactly one piece, and the whitespace between pieces is kept to put
the translations back in its place.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from mt.text.sentences import sentence_spans
from mt.text.spans import find_spans

_CLAUSE_BREAKS = (
    re.compile(r"(?<=[;:])\s+"),
    re.compile(r"(?<=,)\s+"),
    re.compile(r"\s+(?=(?:and|but|or|so|because|while|although|which|who|that|when|if)\s)"),
    re.compile(r"\s+"),
)
"""Where a too-long piece may be cut, best first; the last one is any space (a word window)."""


@dataclass(frozen=True)
class Segmented:
    """A line as pieces to translate and the text around them: gaps[0] + pieces[0] + gaps[1]
    + ... + pieces[-1] + gaps[-1] is the line. A blank line has no pieces and one gap."""

    pieces: tuple[str, ...]
    gaps: tuple[str, ...]

    def join(self, translations: Sequence[str]) -> str:
        """The line with each piece replaced by its translation."""
        parts = [self.gaps[0]]
        for translation, gap in zip(translations, self.gaps[1:], strict=True):
            parts += [translation, gap]
        return "".join(parts)


def cut_long(text: str, fits: Callable[[str], bool]) -> list[tuple[str, str]]:
    """`text` as (piece, space after it) pairs in which every piece fits, cut at the best kind of
    break nearest the middle; the last pair's space is ""."""
    if fits(text):
        return [(text, "")]
    protected = [(span.start, span.end) for span in find_spans(text)]
    for pattern in _CLAUSE_BREAKS:
        breaks = [
            m
            for m in pattern.finditer(text)
            if m.start() > 0
            and m.end() < len(text)
            and not any(a < m.start() and m.end() < b for a, b in protected)
        ]
        if breaks:
            middle = len(text) / 2
            cut = min(breaks, key=lambda m: abs((m.start() + m.end()) / 2 - middle))
            head = cut_long(text[: cut.start()], fits)
            head[-1] = (head[-1][0], cut.group())
            return head + cut_long(text[cut.end() :], fits)
    if len(text) == 1:
        return [(text, "")]  # one character that does not fit: the model's limit cuts it
    half = len(text) // 2  # no space at all: character windows
    return cut_long(text[:half], fits) + cut_long(text[half:], fits)


def segment(
    line: str,
    *,
    split: bool,
    fits: Callable[[str], bool],
    normalize: Callable[[str], str] | None = None,
    language: str = "en",
) -> Segmented:
    """`line` cut into sentences (if `split`) and pieces that `fits` accepts, with the gaps;
    `normalize` rewrites each sentence before it is cut (half a sentence is no sentence);
    `language` is the source's, for the splitter's abbreviations."""
    if split:
        spans = sentence_spans(line, language=language)
    else:
        stripped = line.strip()
        start = len(line) - len(line.lstrip())
        spans = [(start, start + len(stripped))] if stripped else []
    if not spans:
        return Segmented(pieces=(), gaps=(line,))
    pieces: list[str] = []
    gaps = [line[: spans[0][0]]]
    for index, (start, end) in enumerate(spans):
        sentence = line[start:end] if normalize is None else normalize(line[start:end])
        cuts = cut_long(sentence, fits)
        pieces += [piece for piece, _ in cuts]
        # Between two cuts of one sentence is their space, "" where a word was cut in two.
        gaps += [space for _, space in cuts[:-1]]
        following = spans[index + 1][0] if index + 1 < len(spans) else len(line)
        gaps.append(line[end:following])
    return Segmented(pieces=tuple(pieces), gaps=tuple(gaps))


Alternatives = tuple[tuple[str, float], ...]


def join_alternatives(segmented: Segmented, parts: Sequence[Alternatives]) -> Alternatives:
    """A line's (text, score) alternatives: the k-th joins every piece's k-th (or last), its score
    the sum of theirs; a piece with none (nothing left after cleaning) translates to ""."""
    if len(parts) == 1 and segmented.gaps == ("", ""):
        return tuple(parts[0])
    count = max((len(alternatives) for alternatives in parts), default=0)
    filled = [alternatives or (("", 0.0),) for alternatives in parts]
    joined = []
    for k in range(count):
        chosen = [alternatives[min(k, len(alternatives) - 1)] for alternatives in filled]
        joined.append((segmented.join([text for text, _ in chosen]), sum(s for _, s in chosen)))
    return tuple(joined)
