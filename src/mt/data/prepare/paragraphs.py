"""Documentation pairs are paragraphs; the model learns sentences. A pair whose sides split into
the same number of sentences becomes that many pairs, in order; otherwise it stays whole. Markup is
kept verbatim and never cut inside (an open reST literal or role, a tag, an element), so
`<span class="emph">Note. Then</span>` stays one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum

from mt.data.prepare.partition import combine_hashes, pair_hashes
from mt.text.sentences import sentence_spans

_OPEN_TAG = re.compile(r"<([A-Za-z][\w:-]*)\b[^<>]*?(/?)>")
_CLOSE_TAG = re.compile(r"</[A-Za-z][\w:-]*\s*>")
_LEADING_CLOSE = re.compile(r"(?:\s*</[A-Za-z][\w:-]*\s*>)+")
_BACKQUOTES = re.compile(r"`+")
_VOID = frozenset({"br", "img", "hr", "input", "meta", "link", "wbr", "col", "area", "source"})


class Outcome(Enum):
    SENTENCE = "one sentence"  # each side is one sentence: nothing to split
    SPLIT = "split"
    WHOLE = "kept whole"  # the sides have different numbers of sentences


@dataclass(frozen=True)
class Split:
    pairs: list[tuple[str, str]]
    outcome: Outcome


def split_pair(en: str, es: str) -> Split:
    """`(en, es)` as sentence pairs when its sides have the same number of sentences."""
    english = _sentences(en, language="en")
    spanish = _sentences(es, language="es")
    if len(english) < 2 and len(spanish) < 2:
        return Split([(en, es)], Outcome.SENTENCE)
    if len(english) != len(spanish):
        return Split([(en, es)], Outcome.WHOLE)
    return Split(list(zip(english, spanish, strict=True)), Outcome.SPLIT)


def split_pairs(pairs: Sequence[tuple[str, str]]) -> list[Split]:
    """split_pair over many pairs: what a worker process is given
    (mt.runtime.parallel.map_chunks)."""
    return [split_pair(en, es) for en, es in pairs]


def _sentences(text: str, *, language: str) -> list[str]:
    """The sentences of `text`, joined again wherever a cut would fall inside markup."""
    merged: list[tuple[int, int]] = []
    for start, end in _end_tags_to_the_left(text, sentence_spans(text, language=language)):
        if merged and open_markup(text[: merged[-1][1]]):
            merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return [text[start:end] for start, end in merged]


def _end_tags_to_the_left(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """End tags that open a sentence ("this.</span> Then") belong to the one before it."""
    moved: list[tuple[int, int]] = []
    for start, end in spans:
        tags = _LEADING_CLOSE.match(text, start) if moved else None
        if tags:
            moved[-1] = (moved[-1][0], tags.end())
            start = tags.end() + len(text[tags.end() : end]) - len(text[tags.end() : end].lstrip())
        if start < end:
            moved.append((start, end))
    return moved


def open_markup(prefix: str) -> bool:
    """Whether the text after `prefix` is still inside markup that `prefix` opened: a tag not
    yet closed by ">", an odd number of backquote runs (``x`` and `x` open and close), or an
    HTML element without its end tag."""
    if prefix.count("<") > prefix.count(">") or len(_BACKQUOTES.findall(prefix)) % 2:
        return True
    opened = sum(
        1
        for match in _OPEN_TAG.finditer(prefix)
        if not match.group(2) and match.group(1).lower() not in _VOID
    )
    return opened > len(_CLOSE_TAG.findall(prefix))


@dataclass
class WholeParagraphs:
    """The paragraph pairs kept whole (their sides split into different numbers of sentences),
    by pair hash -> corpus, and how many of each corpus's `--max-length` left out."""

    corpus: dict[int, int]
    left_out: Counter[int] = field(default_factory=Counter)

    @classmethod
    def of(cls, per_corpus: Sequence[Sequence[tuple[str, str]]]) -> WholeParagraphs:
        """From each corpus's pairs kept whole, cleaned as they were written."""
        corpus = {}
        for index, pairs in enumerate(per_corpus):
            if pairs:
                en, es = zip(*pairs, strict=True)
                hashes = combine_hashes(pair_hashes(en), pair_hashes(es))
                corpus.update(dict.fromkeys(hashes.tolist(), index))
        return cls(corpus)

    def note_dropped(self, lines: list[str]) -> None:
        """Count those of `lines` (english<TAB>spanish) that are paragraphs kept whole."""
        if not self.corpus or not lines:
            return
        en, es = zip(*(line.rstrip("\n").split("\t", 1) for line in lines), strict=True)
        for key in combine_hashes(pair_hashes(en), pair_hashes(es)).tolist():
            if key in self.corpus:
                self.left_out[self.corpus[key]] += 1
