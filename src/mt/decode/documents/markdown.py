"""Markdown: the text of paragraphs, headings, list items and table cells translated, the rest
copied byte for byte.

Parsed with markdown-it-py (CommonMark, plus GitHub's tables and strikethrough), the maintained
Python port of the parser most Markdown tools share. Its block tokens say which source lines hold
inline text; code blocks, fences, HTML blocks, front matter and every marker (`#`, `>`, `- `, `|`)
stay skeleton. Its inline tokens carry no offsets, so each is found again in the source text in
order: emphasis, strong, strikethrough and links become tags (a link's `](url "title")` is the
close), code spans, images, autolinks, inline HTML, escapes and entities other than letters are
protected. A paragraph of several lines is one unit and its translation is broken over as many
lines, with each line's own prefix (`> `, indentation) kept. Inline text that cannot be matched
to its source (a construct not listed here) is copied untranslated rather than risked.
"""

from __future__ import annotations

import html
import re

from markdown_it import MarkdownIt
from markdown_it.token import Token

from mt.decode.documents.document import Skeleton, SkeletonBuilder, check_text
from mt.decode.documents.units import PLAIN_PATTERNS, UnitBuilder

_FRONT_MATTER = re.compile(
    r"\A(?:---|\+\+\+)[ \t]*\n(?:.*\n)*?(?:---|\+\+\+|\.\.\.)[ \t]*(?:\n|\Z)"
)
_PAIRED = {"em": "em", "strong": "strong", "s": "s"}


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
        builder = UnitBuilder(PLAIN_PATTERNS)
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
    position = 0
    lines = iter(separators)
    skipping = False  # inside an autolink, copied whole
    for child in children:
        kind = child.type
        if skipping:
            skipping = kind != "link_close"
        elif kind == "text":
            position = _expect(raw, position, child.content)
            builder.text(child.content)
        elif kind in ("softbreak", "hardbreak"):
            backslash = raw.startswith("\\\n", position)
            position = _expect(raw, position, "\\\n" if backslash else "\n")
            builder.line_break(("\\" if backslash else "") + next(lines))
        elif kind == "text_special":
            position = _special(raw, position, child, builder)
        elif kind.removesuffix("_open") in _PAIRED and kind.endswith("_open"):
            position = _expect(raw, position, child.markup)
            builder.open(child.markup, kind.removesuffix("_open"))
        elif kind.removesuffix("_close") in _PAIRED and kind.endswith("_close"):
            position = _expect(raw, position, child.markup)
            builder.close(child.markup, kind.removesuffix("_close"))
        elif kind == "link_open" and child.markup == "autolink":
            end = raw.find(">", position) + 1
            if not raw.startswith("<", position) or end <= 0:
                raise _Mismatch
            builder.keep(raw[position:end])
            position, skipping = end, True
        elif kind == "link_open":
            position = _expect(raw, position, "[")
            builder.open("[", "link")
        elif kind == "link_close":
            end = _link_tail(raw, position)
            builder.close(raw[position:end], "link")
            position = end
        elif kind in ("image", "code_inline", "html_inline"):
            end = _protected_end(raw, position, child)
            builder.keep(raw[position:end])
            position = end
        else:
            raise _Mismatch
    if position != len(raw):
        raise _Mismatch


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


def _protected_end(raw: str, position: int, child: Token) -> int:
    if child.type == "html_inline":
        return _expect(raw, position, child.content)
    if child.type == "code_inline":
        fence = re.compile(rf"(?<!`){re.escape(child.markup)}(?!`)")
        start = _expect(raw, position, child.markup)
        closing = fence.search(raw, start)
        if closing is None:
            raise _Mismatch
        return closing.end()
    start = _expect(raw, position, "![")
    return _link_tail(raw, _balanced(raw, start - 1, "[", "]") - 1)


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
