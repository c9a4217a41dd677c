"""The segments of one compiled LibreOffice help page: every `<p>` and `<h1>`–`<h5>` whose `id`
starts with `par_id` or `hd_id`, with its text (entities decoded, `<br>` a space, a
`switchinline`'s `default` variant, else its first) and its inner HTML as written. Whitespace is
mt.data.sources.libreoffice's to normalise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

SEGMENT_TAGS = frozenset({"p", "h1", "h2", "h3", "h4", "h5"})
SEGMENT_IDS = ("par_id", "hd_id")


@dataclass(frozen=True)
class Segment:
    id: str
    text: str
    inner_html: str


@dataclass
class _Switch:
    """An open `switchinline`: its variants (id, text pieces); `open` is the one being read."""

    level: int  # the span depth of the switchinline itself
    variants: list[tuple[str, list[str]]] = field(default_factory=list)
    open: bool = False


@dataclass
class _Open:
    id: str
    tag: str
    start: int  # offset of the inner HTML
    depth: int = 0  # nested elements of the same tag
    spans: int = 0  # span depth inside the segment
    switches: list[_Switch] = field(default_factory=list)
    texts: list[list[str]] = field(default_factory=lambda: [[]])  # where text goes, innermost last


def segments(page: str) -> list[Segment]:
    parser = _Segments(page)
    parser.feed(page)
    parser.close()
    return parser.found


class _Segments(HTMLParser):
    def __init__(self, page: str) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.line_starts = [0] + [i + 1 for i, char in enumerate(page) if char == "\n"]
        self.found: list[Segment] = []
        self.current: _Open | None = None

    def _position(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        segment = self.current
        if segment is None:
            if tag in SEGMENT_TAGS and values.get("id", "").startswith(SEGMENT_IDS):
                start = self._position() + len(self.get_starttag_text() or "")
                self.current = _Open(values["id"], tag, start)
            return
        if tag == "br":
            segment.texts[-1].append(" ")
        elif tag == segment.tag:
            segment.depth += 1
        elif tag == "span":
            self._span_starts(segment, values)

    def _span_starts(self, segment: _Open, values: dict[str, str]) -> None:
        segment.spans += 1
        switch = segment.switches[-1] if segment.switches else None
        if switch and not switch.open and segment.spans == switch.level + 1:
            switch.variants.append((values.get("id", ""), []))
            switch.open = True
            segment.texts.append(switch.variants[-1][1])
        if "switchinline" in values.get("class", "").split():
            segment.switches.append(_Switch(segment.spans))
            segment.texts.append([])  # text between the variants is not shown

    def handle_endtag(self, tag: str) -> None:
        segment = self.current
        if segment is None:
            return
        if tag == segment.tag and segment.depth == 0:
            inner = self.page[segment.start : self._position()]
            self.found.append(Segment(segment.id, "".join(segment.texts[0]), inner))
            self.current = None
        elif tag == segment.tag:
            segment.depth -= 1
        elif tag == "span" and segment.spans:
            self._span_ends(segment)

    def _span_ends(self, segment: _Open) -> None:
        switch = segment.switches[-1] if segment.switches else None
        if switch and switch.open and segment.spans == switch.level + 1:
            switch.open = False
            segment.texts.pop()
        elif switch and segment.spans == switch.level:
            segment.switches.pop()
            segment.texts.pop()
            chosen = _default_variant(switch.variants)
            segment.texts[-1].append("".join(chosen))
        segment.spans -= 1

    def handle_data(self, data: str) -> None:
        if self.current is not None:
            self.current.texts[-1].append(data)


def _default_variant(variants: list[tuple[str, list[str]]]) -> list[str]:
    for ident, text in variants:
        if ident.startswith("default"):
            return text
    return variants[0][1] if variants else []
