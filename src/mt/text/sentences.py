"""Where the sentences of a line are: one splitter for the text `mt translate` reads and the
paragraphs `mt prepare` cuts into sentence pairs, so a model learns from the units it is given.

pysbd was chosen on the tricky cases in tests/split_cases.py by experiments/bench_splitters.py. It
lives in `data` because `data` may import no other stage; mt.decode.segment builds on it.
"""

from __future__ import annotations

import functools
import re

from mt.text.spans import find_spans

# A possible sentence end: final punctuation (and closing quotes/brackets) before a space and more
# text. A line without one is one sentence, and the splitter is not asked (it is the slow part).
_MAYBE_END = re.compile(r"[.!?…][\"'”’»)\]]*\s+\S")


@functools.cache
def _segmenter(language: str):
    import pysbd

    return pysbd.Segmenter(language=language, clean=False)


def sentence_spans(line: str, *, language: str = "en") -> list[tuple[int, int]]:
    """(start, end) of each sentence of `line`, without outer whitespace; `language` is pysbd's
    code ("en", "es")."""
    first = len(line) - len(line.lstrip())
    last = len(line.rstrip())
    if first == len(line):
        return []
    if not _MAYBE_END.search(line, first):
        return [(first, last)]
    spans: list[tuple[int, int]] = []
    position = first
    for sentence in _segmenter(language).segment(line[first:last]):
        core = "".join(sentence.split())
        if not core:
            continue
        while position < last and line[position].isspace():
            position += 1
        start, matched = position, 0
        # Walk the line over the sentence's non-space characters: spaces pysbd kept or dropped
        # do not matter, and any other difference falls back to the whole line as one sentence.
        while matched < len(core):
            if position == last or (
                not line[position].isspace() and line[position] != core[matched]
            ):
                return [(first, last)]
            matched += not line[position].isspace()
            position += 1
        spans.append((start, position))
    if not spans:
        return [(first, last)]
    if position < last:  # text the splitter left out still belongs to the last sentence
        spans[-1] = (spans[-1][0], last)
    return _joined_across_spans(line, spans)


def _joined_across_spans(line: str, sentences: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Sentences that a URL, a path or a piece of code runs across (pysbd cuts
    "``os.path``. Use" well, but not every "e.g. ``x.y``. More") are joined back into one, so a
    protected span always reaches the translator, or the training pair, whole."""
    protected = [(span.start, span.end) for span in find_spans(line)]
    joined = [sentences[0]]
    for start, end in sentences[1:]:
        if any(a < joined[-1][1] and b > start for a, b in protected):
            joined[-1] = (joined[-1][0], end)
        else:
            joined.append((start, end))
    return joined
