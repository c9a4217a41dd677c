"""The shared shape of every document format: units of natural language with their inline markup.

A format's parser splits a file into the skeleton, copied byte for byte, and units, the runs of
text to translate, built here from text, inline tags (`<b>`, a Markdown link) and protected spans
(code, URLs, entities). The translator sees the plain text: tags are taken out and remembered by
the words they wrapped, and each protected span becomes a placeholder token (｟1｠, ｟2｠ ...,
numbered by paragraph), which mt.decode.documents.place puts back, by alignment where the
translation lost it (as it does every token past ｟16｠, which no model learned).
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from mt.data.tokenization import PLACEHOLDER as TOKEN
from mt.data.tokenization import placeholder
from mt.text.spans import find_kinds

PLAIN_KINDS = frozenset(("url", "tldr", "placeholder"))
"""What is never translated in any text, by mt.text.spans' one detector: URLs, printf and
python-format placeholders, and the tldr {{placeholders}} that its Spanish copies. Numbers and paths
are left in the text: the Translator protects those itself."""
REST_KINDS = PLAIN_KINDS | {"code"}
"""Python documentation's .po files add reST ``literals``, :role:`targets` and `code`."""

_WORDLIKE = re.compile(r"[^\W\d_]")
_WORD_CHAR = re.compile(r"\w")


@dataclass(frozen=True)
class Tag:
    """Inline markup exactly as written (`open`, `close`) around text[start:end] of its unit;
    `parent` is the index of the enclosing tag in the unit's tags, None at the top."""

    open: str
    close: str
    start: int
    end: int
    parent: int | None
    space_inside: tuple[bool, bool] = (False, False)  # "<b> x</b>", "<b>x </b>": kept there
    space_outside: tuple[bool, bool] = (True, True)  # " <b>x</b> ": also written outside


@dataclass(frozen=True)
class Unit:
    """What a translator translates: `text`, one line of words with each protected span its token;
    `breaks`, where the source broke the line, with its `separators` there ("\\n", "\\n> ")."""

    text: str
    tags: tuple[Tag, ...] = ()
    kept: tuple[tuple[str, str], ...] = ()  # (placeholder token, the original, byte for byte)
    breaks: tuple[int, ...] = ()
    required: frozenset[int] = frozenset()  # the breaks that must be kept (between cues)
    separators: tuple[str, ...] = ()
    ordered: tuple[str, ...] = ()
    """Tokens that must keep their order (unnamed printf directives: %s, %d)."""
    glued_left: frozenset[str] = frozenset()
    glued_right: frozenset[str] = frozenset()
    """Placeholder tokens the source wrote against the word on their left ("word&nbsp;") or right
    ("{\\an8}Hi"): the text has a space there for the model, which the output leaves out again."""
    escape: Callable[[str], str] | None = field(default=None, compare=False)
    """How translated words are written in the format (HTML escapes & and <); None: as they are."""

    @property
    def translatable(self) -> bool:
        """Words to translate: a unit of code, numbers or punctuation is copied instead."""
        return bool(_WORDLIKE.search(TOKEN.sub(" ", self.text)))


@dataclass
class UnitBuilder:
    """Collects one unit's content in source order; `finish()` gives (skeleton, unit, skeleton)."""

    kinds: frozenset[str] = PLAIN_KINDS  # the protected spans found in its text
    msgfmt: bool = False  # and msgfmt's printf directives (a c-format or python-format entry)
    escape: Callable[[str], str] | None = None
    _chunks: list[tuple[str, str]] = field(default_factory=list)  # (kind, raw) in order
    _stack: list[str] = field(default_factory=list)  # names of the open tags, innermost last

    def text(self, text: str) -> None:
        """Natural-language text (entities decoded); protected patterns inside are found here."""
        if (self.kinds or self.msgfmt) and text:
            position = 0
            for span in find_kinds(text, self.kinds, msgfmt=self.msgfmt):
                self._chunks.append(("text", text[position : span.start]))
                self._chunks.append(("keep", span.text))
                position = span.end
            text = text[position:]
        self._chunks.append(("text", text))

    def keep(self, raw: str) -> None:
        """A protected span: copied byte for byte, never translated."""
        self._chunks.append(("keep", raw))

    def line_break(self, separator: str, *, required: bool = False) -> None:
        """Where the source broke the line; the translation is broken again, by length. A
        `required` break (between two subtitle cues) is never left out, even with too few words."""
        self._chunks.append(("required" if required else "break", separator))

    def open(self, raw: str, name: str = "") -> None:
        """An inline tag's opening markup; `name` pairs it with its close."""
        self._stack.append(name)
        self._chunks.append(("open", raw))

    def close(self, raw: str, name: str = "") -> bool:
        """The close of the innermost open tag named `name` (any if ""), closing those opened inside
        it; False when none is open by that name (the caller protects the stray close)."""
        if not self._stack or (name and name not in self._stack):
            return False
        while True:
            open_name = self._stack.pop()
            matched = not name or open_name == name
            self._chunks.append(("close", raw if matched else ""))
            if matched:
                return True

    def finish(self) -> tuple[str, Unit | None, str]:
        while self._stack:  # tags the source never closed stay unclosed
            self.close("")
        return assemble(self._chunks, self.escape)


def assemble(
    chunks: list[tuple[str, str]], escape: Callable[[str], str] | None = None
) -> tuple[str, Unit | None, str]:
    """(skeleton before, unit, skeleton after) from chunks; a unit without words is all skeleton."""
    raw = "".join(value for _, value in chunks)
    chunks = list(chunks)
    before = after = ""
    if chunks and chunks[0][0] == "text":
        value = chunks[0][1]
        before = value[: len(value) - len(value.lstrip())]
        chunks[0] = ("text", value[len(before) :])
    if chunks and chunks[-1][0] == "text":
        value = chunks[-1][1]
        after = value[len(value.rstrip()) :]
        chunks[-1] = ("text", value[: len(value) - len(after)])
    unit = _plain(chunks, escape)
    if not unit.translatable:
        return raw, None, ""
    return before, unit, after


def _plain(chunks: list[tuple[str, str]], escape: Callable[[str], str] | None) -> Unit:
    """The unit's plain text (whitespace runs one space, trimmed), tags, tokens and line breaks."""
    text = ""
    tags: list[Tag] = []
    stack: list[int] = []
    kept: list[tuple[str, str]] = []
    breaks: list[tuple[int, str]] = []
    required: set[int] = set()  # offsets of breaks that must be kept
    glued_left: set[str] = set()  # tokens the source wrote right after a word
    glued_right: set[str] = set()  # ... and right before one
    tokens = _tokens("".join(value for kind, value in chunks if kind == "text"))
    boundary = False  # a tag since the last text
    opened: list[int] = []  # tags opened since the last text
    for kind, value in chunks:
        if kind == "text":
            value = re.sub(r"\s+", " ", value)
            # A word glued to a placeholder ("&nbsp;now") would reach the model as one odd word.
            if kept and text.endswith(kept[-1][0]) and _WORD_CHAR.match(value):
                text += " "
                glued_right.add(kept[-1][0])
            elif boundary and _WORD_CHAR.match(text[-1:]) and _WORD_CHAR.match(value):
                text += " "  # a tag inside a word ("Command</span><span>Ctrl"): two words
                for index in opened:  # the space is the source's gap, not inside these tags
                    tags[index] = dataclasses.replace(tags[index], start=len(text))
            boundary, opened = False, []
            text += value
        elif kind == "keep":
            boundary, opened = False, []
            token = next(tokens)
            kept.append((token, value))
            if _WORD_CHAR.match(text[-1:]):
                text += " "
                glued_left.add(token)
            text += token
        elif kind in ("break", "required"):
            text += " "
            breaks.append((len(text) - 1, value))
            if kind == "required":
                required.add(len(text) - 1)
        elif kind == "open":
            boundary = True
            opened.append(len(tags))
            tags.append(Tag(value, "", len(text), len(text), stack[-1] if stack else None))
            stack.append(len(tags) - 1)
        else:  # a close: the builder closes tags innermost first
            boundary = True
            index = stack.pop()
            tags[index] = Tag(
                tags[index].open, value, tags[index].start, len(text), tags[index].parent
            )
    unit = _squeezed(text, tags, kept, breaks, required, escape)
    return dataclasses.replace(
        unit, glued_left=frozenset(glued_left), glued_right=frozenset(glued_right)
    )


def _squeezed(
    text: str, tags: list[Tag], kept: list, breaks: list[tuple[int, str]], required, escape
) -> Unit:
    """Runs of spaces made one and the ends trimmed, every offset moved with its character."""
    keep = [i for i, c in enumerate(text) if c != " " or (i > 0 and text[i - 1] != " ")]
    while keep and text[keep[-1]] == " ":
        keep.pop()
    # at[i]: the first kept character at or after offset i (one pass, so a long unit is linear)
    at = [len(keep)] * (len(text) + 1)
    kept_index = len(keep) - 1
    for offset in range(len(text) - 1, -1, -1):
        if kept_index >= 0 and keep[kept_index] == offset:
            at[offset] = kept_index
            kept_index -= 1
        else:
            at[offset] = at[offset + 1]

    def moved(offset: int) -> int:
        return at[min(offset, len(text))]

    squeezed_breaks: dict[int, str] = {}
    must: set[int] = set()
    for offset, separator in breaks:
        position = moved(offset)
        if position < len(keep) and text[keep[position]] == " ":
            if offset in required and position in squeezed_breaks:
                squeezed_breaks[position] += separator  # two breaks on one space: both kept
            squeezed_breaks.setdefault(position, separator)
            if offset in required:
                must.add(position)
    return Unit(
        text="".join(text[i] for i in keep),
        tags=tuple(_moved_tag(t, moved, text) for t in tags),
        kept=tuple(kept),
        breaks=tuple(squeezed_breaks),
        separators=tuple(squeezed_breaks.values()),
        required=frozenset(must),
        escape=escape,
    )


def _moved_tag(tag: Tag, moved: Callable[[int], int], text: str) -> Tag:
    """The tag on the squeezed text, knowing whether the source had a space just inside it."""
    filled = tag.start < tag.end
    inside = (filled and text[tag.start] == " ", filled and text[tag.end - 1] == " ")
    outside = (text[tag.start - 1 : tag.start] == " ", text[tag.end : tag.end + 1] == " ")
    return Tag(tag.open, tag.close, moved(tag.start), moved(tag.end), tag.parent, inside, outside)


def _tokens(text: str) -> Iterator[str]:
    """Placeholder tokens in order, but those the text already holds (one pass: linear)."""
    present = set(TOKEN.findall(text))
    for number in itertools.count(1):
        if placeholder(number) not in present:
            yield placeholder(number)
