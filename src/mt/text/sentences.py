"""Where the sentences of a line are: one splitter for the text `mt translate` reads and the
paragraphs `mt prepare` cuts into sentence pairs, so a model learns from the units it is given
(pysbd, chosen on tests/split_cases.py by experiments/bench_splitters.py).
"""

from __future__ import annotations

import functools
import re
import threading

from mt.text.spans import find_spans

# A possible sentence end: final punctuation (and closing quotes/brackets) before a space and more
# text. A line without one is one sentence, and the splitter is not asked (it is the slow part).
_MAYBE_END = re.compile(r"[.!?…][\"'”’»)\]]*\s+\S")
_PLAIN_END = re.compile(r"(?<=[a-záéíóúñü]{2}[.!?])\s+(?=[¿¡]?[A-ZÁÉÍÓÚÑ])")
_MARK = re.compile(r"[.!?…]")
_NOT_PLAIN = re.compile(r"[\"“”«»‘()\[\]:;]|(?<![A-Za-z])['’]|['’](?![A-Za-z])")


_per_thread = threading.local()


def _segmenter(language: str):
    """One pysbd Segmenter a language and thread: a Segmenter keeps the text it is segmenting on
    itself, so two threads sharing one (a Translator serving threads, mt.api) mix their lines."""
    import pysbd

    segmenters = _per_thread.__dict__.setdefault("segmenters", {})
    if language not in segmenters:
        segmenters[language] = pysbd.Segmenter(language=language, clean=False)
    return segmenters[language]


PYSBD_WINDOW = 2000
"""Characters pysbd reads at once, cut after a sentence's mark (else at a space): its
abbreviation step rewrites the whole text for each abbreviation it meets, quadratic in a line
of many ("Mr. " 25,000 times took 35 s). The sentences of the 144,464 lines of Tatoeba and the
dev parts (both sides) are the same as when pysbd read each line whole."""


def _sentences(text: str, language: str) -> list[str]:
    """pysbd's sentences of `text`, PYSBD_WINDOW characters at a time, without the spans its
    `segment` finds them at (quadratic); `sentence_spans` walks the line itself."""
    sentences: list[str] = []
    start = 0
    while start < len(text):
        end = len(text)
        if end - start > PYSBD_WINDOW:  # after the last full stop and space, else a space
            limit = start + PYSBD_WINDOW
            stop = max(text.rfind(mark, start + 1, limit) for mark in (". ", "? ", "! "))
            space = text.rfind(" ", start + 1, limit)
            end = stop + 2 if stop > start else space if space > start else limit
        sentences += _segmenter(language).processor(text[start:end]).process()
        start = end
    return sentences


def sentence_spans(line: str, *, language: str = "en") -> list[tuple[int, int]]:
    """(start, end) of each sentence of `line`, trimmed; `language` is pysbd's ("en", "es")."""
    first = len(line) - len(line.lstrip())
    last = len(line.rstrip())
    if first == len(line):
        return []
    if not _MAYBE_END.search(line, first):
        return [(first, last)]
    plain = _plain_ends(line[:last], first, language)
    if plain is not None:
        starts, ends = [first, *(end.end() for end in plain)], [end.start() for end in plain]
        return _joined_across_spans(line, list(zip(starts, [*ends, last], strict=True)))
    spans: list[tuple[int, int]] = []
    position = first
    for sentence in _sentences(line[first:last], language):
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


def _plain_ends(line: str, first: int, language: str) -> list[re.Match[str]] | None:
    """The gaps between the sentences of `line[first:]` when every mark in it (but a last one)
    plainly ends a sentence: after a lower-case word that is no abbreviation, before a space
    and a capital, with no quote, bracket, colon or semicolon (as pysbd cuts, faster); else None."""
    if _NOT_PLAIN.search(line, first):
        return None
    gaps = list(_PLAIN_END.finditer(line, first))
    marks = [mark.start() for mark in _MARK.finditer(line, first, len(line) - 1)]
    if [gap.start() - 1 for gap in gaps] != marks:
        return None
    abbreviations = _abbreviations(language)
    for gap in gaps:
        word = line[line.rfind(" ", first, gap.start()) + 1 : gap.start() - 1].lower()
        if not word.isalpha() or word in abbreviations:
            return None
    return gaps


@functools.cache
def _abbreviations(language: str) -> frozenset[str]:
    from pysbd.languages import Language

    return frozenset(
        a.lower() for a in Language.get_language_code(language).Abbreviation.ABBREVIATIONS
    )


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
