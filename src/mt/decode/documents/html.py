"""HTML fragments and whole pages: text translated a block at a time, markup copied byte for byte.

Parsed with the standard library's html.parser, which reports each tag as written and where it
starts (a tree parser re-serialises) and reads broken HTML as a browser does. Block elements
bound the units; inline elements (b, a, span) are tags; code, kbd, samp, var, void elements,
comments and entities other than letters are protected; script, style, pre and textarea are
skeleton. Of attributes only alt and title are translated, each a unit of its own.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

from mt.decode.documents.document import Skeleton, SkeletonBuilder, check_text
from mt.decode.documents.units import PLAIN_KINDS, UnitBuilder

# fmt: off
INLINE = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "big", "cite", "del", "dfn", "em", "font", "i", "ins",
    "label", "mark", "q", "s", "small", "span", "strong", "sub", "sup", "time", "u",
})
PROTECTED = frozenset({"code", "kbd", "samp", "var", "tt"})
"""Inline elements whose content is code: the whole element is copied."""
RAW = frozenset({"script", "style", "pre", "textarea", "template", "svg", "math"})
"""Elements copied whole with all they hold."""
VOID = frozenset({
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
    "source", "track", "wbr",
})
BLOCK_VOID = VOID - {"br", "img", "input", "wbr"}
# fmt: on
_TRANSLATED_ATTRIBUTE = re.compile(
    r"""(\s(?:alt|title)\s*=\s*)(?:"([^"]*)"|'([^']*)')""", re.IGNORECASE
)


_BARE_CHARREF = re.compile(r"&(?=#(?![0-9]|[xX][0-9a-fA-F]))")
"""The "&" of a "&#" that starts no character reference."""


def escape(text: str) -> str:
    """Translated words as HTML text: `&`, `<` and `>` escaped."""
    return html.escape(text, quote=False)


def _double_quoted(text: str) -> str:
    return escape(text).replace('"', "&quot;")


def _single_quoted(text: str) -> str:
    return escape(text).replace("'", "&#x27;")


def parse(text: str, *, name: str) -> Skeleton:
    """Units and skeleton of an HTML document or fragment; never fails on broken HTML."""
    check_text(text, name)
    events = _Events()
    # After a bare "&#" html.parser gives the rest as text, tags included; a browser reads "&#"
    # as itself. So that "&" is fed as a space (the same offsets: the units are cut from `text`).
    events.feed(_BARE_CHARREF.sub(" ", text))
    events.close()
    return _Walker(text, events.found).walk()


class _Events(HTMLParser):
    """The parser's events in order with their offsets: an event's text runs to the next one."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: list[tuple[str, str, int]] = []  # (kind, tag name, line/column key)

    def _add(self, kind: str, name: str = "") -> None:
        self.found.append((kind, name, self.getpos()))

    def handle_starttag(self, tag, attrs) -> None:
        self._add("start", tag)

    def handle_startendtag(self, tag, attrs) -> None:
        self._add("void", tag)

    def handle_endtag(self, tag) -> None:
        self._add("end", tag)

    def handle_data(self, data) -> None:
        self._add("data")

    def handle_entityref(self, name) -> None:
        self._add("entity")

    handle_charref = handle_entityref

    def handle_comment(self, data) -> None:
        self._add("other")

    handle_decl = handle_pi = unknown_decl = handle_comment


class _Walker:
    """Turns the events into a Skeleton: a builder per block, raw copy inside RAW elements."""

    def __init__(self, text: str, events: list) -> None:
        line_starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
        offsets = [line_starts[line - 1] + column for _, _, (line, column) in events]
        ends = offsets[1:] + [len(text)] if offsets else []
        self.events = [
            (kind, name, text[start:end])
            for (kind, name, _), start, end in zip(events, offsets, ends, strict=True)
        ]
        self.head = text[: offsets[0]] if offsets else text
        self.skeleton = SkeletonBuilder()
        self.unit = UnitBuilder(PLAIN_KINDS, escape=escape)

    def walk(self) -> Skeleton:
        self.skeleton.raw(self.head)
        raw_until: tuple[str, int] | None = None  # inside a RAW element: its name and depth
        kept: list[str] | None = None  # inside a PROTECTED element: its raw so far
        kept_name, kept_depth = "", 0
        for kind, name, raw in self.events:
            if raw_until is not None:
                self.skeleton.raw(raw)
                raw_until = _raw_depth(raw_until, kind, name)
            elif kept is not None:
                kept.append(raw)
                kept_depth += (kind == "start" and name == kept_name) - (
                    kind == "end" and name == kept_name
                )
                if kept_depth == 0:
                    self.unit.keep("".join(kept))
                    kept = None
            elif kind == "start" and name in RAW:
                self._flush()
                self.skeleton.raw(raw)
                raw_until = (name, 1)
            elif kind == "start" and name in PROTECTED:
                kept, kept_name, kept_depth = [raw], name, 1
            else:
                self._event(kind, name, raw)
        if kept is not None:
            self.unit.keep("".join(kept))
        self._flush()
        return self.skeleton.build()

    def _event(self, kind: str, name: str, raw: str) -> None:
        if kind == "data" and raw.startswith("<"):
            self.unit.keep(raw)  # markup the parser gave up on ("<!--" never closed): as written
        elif kind == "data":
            self.unit.text(raw)
        elif kind == "entity":
            decoded = html.unescape(raw)
            if decoded.isalpha():  # a letter belongs to its word: translated with it
                self.unit.text(decoded)
            else:
                self.unit.keep(raw)
        elif kind == "other" or (name in VOID and name not in BLOCK_VOID) or kind == "void":
            self.unit.keep(self._attributes(raw))
        elif name in INLINE or (name not in VOID and "-" in name):
            if kind == "start":
                self.unit.open(self._attributes(raw), name)
            elif not self.unit.close(raw, name):
                self.unit.keep(raw)
        else:  # a block element bounds the unit
            self._flush()
            self.skeleton.raw(self._attributes(raw) if kind == "start" else raw)

    def _flush(self) -> None:
        self.skeleton.add(self.unit)
        self.unit = UnitBuilder(PLAIN_KINDS, escape=escape)

    def _attributes(self, raw: str) -> str:
        """A start tag with its alt and title values made units of their own."""
        if not raw.startswith("<") or raw.startswith(("<!", "<?")):
            return raw

        def unit(match: re.Match) -> str:
            double = match.group(2) is not None
            value = match.group(2) if double else match.group(3)
            builder = UnitBuilder(PLAIN_KINDS, escape=_double_quoted if double else _single_quoted)
            builder.text(html.unescape(value))
            mark = self.skeleton.unit(builder)
            inner = mark if "\x00" in mark else value
            quote = '"' if double else "'"
            return f"{match.group(1)}{quote}{inner}{quote}"

        return _TRANSLATED_ATTRIBUTE.sub(unit, raw)


def _raw_depth(state: tuple[str, int], kind: str, name: str) -> tuple[str, int] | None:
    """Inside a RAW element: the same element nested deeper, or closed (None when it ends)."""
    element, depth = state
    if name == element and kind == "start":
        return element, depth + 1
    if name == element and kind == "end":
        return None if depth == 1 else (element, depth - 1)
    return state
