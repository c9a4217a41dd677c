"""Scripted translators and aligners for the document tests: their output is known word for word,
so where each tag and protected span must land can be written down."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser

from mt.decode.documents.align import words
from mt.decode.documents.units import TOKEN


@dataclass(frozen=True)
class Done:
    text: str


class Upper:
    """Every word upper-cased, placeholder tokens copied as a model copies its stand-ins."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def translate(self, lines: Iterable[str]) -> Iterator[Done]:
        lines = list(lines)
        self.calls.append(lines)
        for line in lines:
            yield Done(
                re.sub(
                    r"\w+",
                    lambda m: m.group() if TOKEN.fullmatch(m.group()) else m.group().upper(),
                    line,
                )
            )


def _upper(match: re.Match) -> str:
    word = match.group()
    return word if TOKEN.fullmatch(word) else word.upper()


class Reverse:
    """The words (mt.decode.documents.align.words) in reverse order, one space apart."""

    def translate(self, lines: Iterable[str]) -> Iterator[Done]:
        for line in lines:
            yield Done(" ".join(line[a:b] for a, b in reversed(words(line))))


class ReverseAligner:
    """The alignment of Reverse: target word t is source word n - 1 - t."""

    def align(self, pairs: Sequence[tuple[str, str]]) -> list[list[list[float]]]:
        out = []
        for source, _ in pairs:
            n = len(words(source))
            out.append([[1.0 if s == n - 1 - t else 0.0 for s in range(n)] for t in range(n)])
        return out


class Identity:
    def translate(self, lines: Iterable[str]) -> Iterator[Done]:
        return (Done(line) for line in lines)


class SameWordAligner:
    """Each target word aligned to the source words spelt the same (case aside), in order: the
    alignment of Upper, Identity and DropPlaceholders."""

    def align(self, pairs: Sequence[tuple[str, str]]) -> list[list[list[float]]]:
        out = []
        for source, target in pairs:
            source_words = [source[a:b].lower() for a, b in words(source)]
            rows, used = [], -1
            for a, b in words(target):
                word = target[a:b].lower()
                s = next(i for i in range(used + 1, len(source_words)) if source_words[i] == word)
                rows.append([1.0 if i == s else 0.0 for i in range(len(source_words))])
                used = s
            out.append(rows)
        return out


class DropPlaceholders:
    """Upper, but every placeholder token lost, as a weak model loses them."""

    def translate(self, lines: Iterable[str]) -> Iterator[Done]:
        for done in Upper().translate(lines):
            yield Done(re.sub(r" ?" + TOKEN.pattern, "", done.text))


COPIED = ("script", "style", "pre", "code")
"""Elements whose text is copied, never translated."""


class _Nesting(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.errors: list[str] = []
        self.translated: list[str] = []
        self.copied: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag not in ("br", "img", "meta", "link", "hr", "input"):
            self.stack.append(tag)
        self.tags.append(tag)

    def handle_endtag(self, tag) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()

    def handle_data(self, data) -> None:
        inside_copied = any(tag in COPIED for tag in self.stack)
        (self.copied if inside_copied else self.translated).append(data)


def _read(text: str) -> _Nesting:
    parser = _Nesting()
    parser.feed(text)
    parser.close()
    return parser


def html_tags(text: str) -> tuple[list[str], list[str]]:
    """The start tags in order and the nesting errors (a close that is not the innermost open)."""
    parser = _read(text)
    errors = parser.errors + [f"<{tag}> never closed" for tag in parser.stack]
    return sorted(parser.tags), errors


def text_nodes(text: str) -> tuple[list[str], list[str]]:
    """The text nodes outside COPIED elements (to translate) and those inside them (copied)."""
    parser = _read(text)
    return parser.translated, parser.copied
