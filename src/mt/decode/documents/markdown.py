"""Markdown: the text of paragraphs, headings, list items and table cells translated, the rest
copied byte for byte.

Parsed with markdown-it-py (CommonMark, with GitHub's tables and strikethrough): its block tokens
say which lines hold inline text; code, HTML blocks, front matter and every marker stay skeleton.
Its inline tokens carry no offsets, so each is found again in the source in order: emphasis,
links, images (alt text translated) and inline HTML elements become tags; code spans, autolinks,
<kbd>, <code>, escapes and entities are protected. A paragraph's translation is broken over as
many lines, each keeping its prefix (`> `, indentation). Inline text that cannot be matched to
its source is copied untranslated rather than risked.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

from markdown_it import MarkdownIt
from markdown_it.token import Token

from mt.decode.documents.document import Skeleton, SkeletonBuilder, check_text
from mt.decode.documents.html import INLINE as HTML_INLINE
from mt.decode.documents.html import PROTECTED as HTML_PROTECTED
from mt.decode.documents.units import PLAIN_KINDS, UnitBuilder

_FRONT_MATTER = re.compile(
    r"\A(?:---|\+\+\+)[ \t]*\n(?:.*\n)*?(?:---|\+\+\+|\.\.\.)[ \t]*(?:\n|\Z)"
)
_PAIRED = {"em", "strong", "s"}
_HTML_TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)\b[^>]*>")


class _Mismatch(Exception):
    """An inline token not found where the source should hold it."""


def _parser() -> MarkdownIt:
    # text_join would merge escapes and entities into plain text, losing how they were written.
    return MarkdownIt("commonmark").enable(["table", "strikethrough"]).disable("text_join")


def parse(text: str, *, name: str) -> Skeleton:
    """Units and skeleton of a Markdown document; any text is valid Markdown."""
    check_text(text, name)
    front = _FRONT_MATTER.match(text)
    body_start = front.end() if front else 0
    skeleton = SkeletonBuilder()
    skeleton.raw(text[:body_start])
    line_starts = [body_start] + [i + 1 for i in range(body_start, len(text)) if text[i] == "\n"]
    cursor = body_start
    for token in _parser().parse(text[body_start:]):
        if token.type != "inline" or token.map is None:
            continue
        located = _locate(text, line_starts, token, cursor)
        if located is None:
            continue  # left in the skeleton, copied as written
        pieces, separators = located
        start, end = pieces[0][0], pieces[-1][1]
        builder = UnitBuilder(PLAIN_KINDS)
        raw = "\n".join(text[a:b] for a, b in pieces)
        try:
            _inline(raw, token.children or [], separators, builder)
        except _Mismatch:
            continue
        skeleton.raw(text[cursor:start])
        skeleton.add(builder)
        cursor = end
    skeleton.raw(text[cursor:])
    return skeleton.build()


def _locate(text: str, line_starts: list[int], token: Token, cursor: int):
    """(start, end) of each line of the inline token's content in the text, and the skeleton
    between lines; None when a line is not where the block token says."""
    pieces: list[tuple[int, int]] = []
    for j, line in enumerate(token.content.split("\n")):
        number = token.map[0] + j
        if number >= len(line_starts):
            return None
        line_start = max(line_starts[number], cursor)
        line_end = line_starts[number + 1] if number + 1 < len(line_starts) else len(text)
        wanted = line.strip()
        found = text.find(wanted, line_start, line_end)
        if not wanted or found < 0:
            return None
        pieces.append((found, found + len(wanted)))
        cursor = found + len(wanted)
    separators = [text[a[1] : b[0]] for a, b in zip(pieces, pieces[1:], strict=False)]
    return pieces, separators


def _inline(raw: str, children: list[Token], separators: list[str], builder: UnitBuilder) -> None:
    """Feed the builder from the inline tokens, each matched against `raw` in order."""
    reader = _Reader(raw, iter(separators), builder)
    for child in children:
        reader.read(child)
    if reader.position != len(raw) or reader.held is not None:
        raise _Mismatch


class _Reader:
    """Where the inline tokens have got to in the raw text, and the builder they are fed to."""

    def __init__(self, raw: str, lines: Iterator[str], builder: UnitBuilder) -> None:
        self.raw, self.lines, self.unit = raw, lines, builder
        self.position = 0
        self.skipping = False  # inside an autolink, copied whole
        self.held: tuple[str, int] | None = None  # (element, start) of a protected element

    @property
    def builder(self) -> UnitBuilder:
        return UnitBuilder() if self.held is not None else self.unit

    def read(self, child: Token) -> None:
        kind = child.type
        if self.skipping:
            self.skipping = kind != "link_close"
        elif kind == "text":
            self._expect(child.content)
            self.builder.text(child.content)
        elif kind in ("softbreak", "hardbreak"):
            backslash = self.raw.startswith("\\\n", self.position)
            self._expect("\\\n" if backslash else "\n")
            self.builder.line_break(("\\" if backslash else "") + next(self.lines))
        elif kind == "text_special":
            self.position = _special(self.raw, self.position, child, self.builder)
        elif kind.endswith(("_open", "_close")) and kind.rsplit("_", 1)[0] in _PAIRED:
            self._expect(child.markup)
            name = kind.rsplit("_", 1)[0]
            if kind.endswith("_open"):
                self.builder.open(child.markup, name)
            else:
                self.builder.close(child.markup, name)
        elif kind in ("link_open", "link_close"):
            self._link(child)
        elif kind == "html_inline":
            self._html(child.content)
        elif kind == "image":
            self._image()
        elif kind == "code_inline":
            end = _code_span_end(self.raw, self.position, child.markup)
            self.builder.keep(self.raw[self.position : end])
            self.position = end
        else:
            raise _Mismatch

    def _expect(self, wanted: str) -> None:
        self.position = _expect(self.raw, self.position, wanted)

    def _link(self, child: Token) -> None:
        if child.type == "link_open" and child.markup == "autolink":
            end = self.raw.find(">", self.position) + 1
            if not self.raw.startswith("<", self.position) or end <= 0:
                raise _Mismatch
            self.builder.keep(self.raw[self.position : end])
            self.position, self.skipping = end, True
        elif child.type == "link_open":
            self._expect("[")
            self.builder.open("[", "link")
        else:
            end = _link_tail(self.raw, self.position)
            self.builder.close(self.raw[self.position : end], "link")
            self.position = end

    def _image(self) -> None:
        """`![alt](src "title")`: the alt text translated with the sentence; the rest is the tag."""
        start = self.position
        self._expect("![")
        alt_end = _balanced(self.raw, start + 1, "[", "]") - 1
        end = _link_tail(self.raw, alt_end)
        self.builder.open("![", "image")
        self.builder.text(self.raw[start + 2 : alt_end])
        self.builder.close(self.raw[alt_end:end], "image")
        self.position = end

    def _html(self, tag: str) -> None:
        """Inline HTML as in an HTML document: inline elements are tags, code-like ones are
        copied whole with their content, anything else is protected."""
        start = self.position
        self._expect(tag)
        found = _HTML_TAG.fullmatch(tag)
        name = found.group(2).lower() if found else ""
        closing = found is not None and bool(found.group(1))
        if self.held is not None:
            if closing and name == self.held[0]:
                self.unit.keep(self.raw[self.held[1] : self.position])
                self.held = None
        elif name in HTML_PROTECTED and not closing:
            self.held = (name, start)
        elif name in HTML_INLINE and not tag.endswith("/>"):
            if not closing:
                self.unit.open(tag, name)
            elif not self.unit.close(tag, name):
                self.unit.keep(tag)
        else:
            self.unit.keep(tag)


def _expect(raw: str, position: int, wanted: str) -> int:
    if not raw.startswith(wanted, position):
        raise _Mismatch
    return position + len(wanted)


def _special(raw: str, position: int, child: Token, builder: UnitBuilder) -> int:
    """An entity or a backslash escape: a letter is text, anything else is kept as written."""
    end = _expect(raw, position, child.markup)
    if child.info == "entity" and html.unescape(child.markup).isalpha():
        builder.text(child.content)
    else:
        builder.keep(child.markup)
    return end


def _code_span_end(raw: str, position: int, fence: str) -> int:
    """After the code span opened by `fence` (a run of backticks) at `position`."""
    start = _expect(raw, position, fence)
    closing = re.compile(rf"(?<!`){re.escape(fence)}(?!`)").search(raw, start)
    if closing is None:
        raise _Mismatch
    return closing.end()


def _balanced(raw: str, position: int, opening: str, closing: str) -> int:
    """The offset after the `closing` that matches the `opening` at `position`."""
    depth = 0
    index = position
    while index < len(raw):
        char = raw[index]
        if char == "\\":
            index += 2
            continue
        depth += (char == opening) - (char == closing)
        index += 1
        if depth == 0:
            return index
    raise _Mismatch


def _link_tail(raw: str, position: int) -> int:
    """After a link's text: `]`, then `(destination "title")`, `[label]` or nothing."""
    end = _expect(raw, position, "]")
    if raw.startswith("(", end):
        return _balanced(raw, end, "(", ")")
    if raw.startswith("[", end):
        return _balanced(raw, end, "[", "]")
    return end
