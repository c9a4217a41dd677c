"""SubRip (.srt) and WebVTT (.vtt): the cues' text translated, everything else untouched.

A cue's lines are joined, translated together and broken again into as many lines by length; a
sentence running on into the next cues is translated once and spread back over them. Indices,
timecodes, settings, NOTE, STYLE and REGION blocks, blank lines and line endings are copied byte
for byte. The cues are read here, not with srt, webvtt-py or pysubs2, which rebuild the file from
their own model (renumbering, reformatting timecodes) and let bad timecodes pass. Inline tags
(<i>, <c.x>, <v Name>) are tags; timestamps, entities and SSA overrides ({\\an8}) are protected.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from mt.decode.documents.document import Skeleton, SkeletonBuilder, check_text
from mt.decode.documents.units import PLAIN_KINDS, UnitBuilder
from mt.errors import MtError

_SRT_TIME = r"\d+:[0-5]\d:[0-5]\d[,.]\d{3}"
_VTT_TIME = r"(?:\d+:)?[0-5]\d:[0-5]\d\.\d{3}"
SRT_TIMING = re.compile(rf"[ \t]*{_SRT_TIME}[ \t]*-->[ \t]*{_SRT_TIME}(?:[ \t]+[^\r\n]*)?[ \t]*")
VTT_TIMING = re.compile(rf"{_VTT_TIME}[ \t]+-->[ \t]+{_VTT_TIME}(?:[ \t]+[^\r\n]*)?")
_MARKUP = re.compile(
    r"(?P<tag><(?P<close>/)?(?P<name>[a-zA-Z]+)(?:[.\s][^<>]*)?>)"
    r"|(?P<keep><\d[\d:.]*>|&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);|\{\\[^{}]*\})"
)
_VTT_SKELETON_BLOCKS = ("NOTE", "STYLE", "REGION")
_OPEN_END = re.compile(r"[^\W\d_][\"'”’»)]?$|[,;:–—-]$")
"""Cue text that stops mid-sentence: a word or a comma at its end."""
MAX_CUES = 4


def parse_srt(text: str, *, name: str) -> Skeleton:
    """Units (one a cue) and skeleton of a SubRip file; a bad timecode's line is named."""
    check_text(text, name)
    cues = _Cues()
    for block, first_line in _blocks(text):
        lines = block.splitlines(keepends=True)
        timing = 0 if "-->" in lines[0] else 1
        if timing == 1 and not lines[0].strip().isdigit():
            raise MtError(f"{name}:{first_line}: expected a cue number, found {lines[0].strip()!r}")
        _check_timing(lines, timing, SRT_TIMING, name, first_line)
        cues.cue(lines, timing)
    return cues.build()


def parse_vtt(text: str, *, name: str) -> Skeleton:
    """Units and skeleton of a WebVTT file; no WEBVTT header or a bad timecode is refused."""
    check_text(text, name)
    if not re.match(r"(?:\ufeff)?WEBVTT(?:[ \t][^\r\n]*)?(?:\r?\n|\Z)", text):
        raise MtError(f"{name}:1: a WebVTT file starts with a WEBVTT line")
    cues = _Cues()
    for number, (block, first_line) in enumerate(_blocks(text)):
        lines = block.splitlines(keepends=True)
        if number == 0 or lines[0].split(None, 1)[0] in _VTT_SKELETON_BLOCKS:
            cues.raw(block)
            continue
        timing = 0 if "-->" in lines[0] else 1
        _check_timing(lines, timing, VTT_TIMING, name, first_line)
        cues.cue(lines, timing)
    return cues.build()


def _blocks(text: str) -> Iterator[tuple[str, int]]:
    """The text cut after each run of blank lines: (block with the blank lines after it, number
    of its first line). Blank lines before the first block come with it."""
    lines = text.splitlines(keepends=True)
    start = 0
    index = 0
    while index < len(lines):
        while index < len(lines) and not lines[index].strip():
            index += 1
        first = index
        while index < len(lines) and lines[index].strip():
            index += 1
        while index < len(lines) and not lines[index].strip():
            index += 1
        if first < len(lines):
            yield "".join(lines[start:index]), first + 1
        else:
            yield "".join(lines[start:index]), start + 1
        start = index


def _check_timing(lines: list[str], timing: int, pattern: re.Pattern, name: str, first: int):
    lead = next(i for i, line in enumerate(lines) if line.strip())
    timing += lead
    if timing >= len(lines) or not pattern.fullmatch(lines[timing].rstrip("\r\n")):
        found = lines[timing].strip() if timing < len(lines) else "nothing"
        raise MtError(f"{name}:{first + timing - lead}: bad timecode line {found!r}")


class _Cues:
    """Cue text into units: a cue that stops mid-sentence is continued by the next (up to MAX_CUES)
    and the translation spread back over them by length."""

    def __init__(self) -> None:
        self.skeleton = SkeletonBuilder()
        self.builder: UnitBuilder | None = None
        self.trailer = ""  # the end of the open unit's last line and the blank lines after it
        self.cues = 0
        self.open_sentence = False
        self.tagged = False

    def raw(self, text: str) -> None:
        self._close()
        self.skeleton.raw(text)

    def cue(self, lines: list[str], timing: int) -> None:
        lead = next(i for i, line in enumerate(lines) if line.strip())
        text_start = lead + timing + 1
        header = "".join(lines[:text_start])
        text_lines = [line for line in lines[text_start:] if line.strip()]
        plain = " ".join(line.strip() for line in text_lines)
        tagged = "<" in plain or "{" in plain  # a tag must not reach across cues
        if (
            self.builder is not None
            and self.open_sentence
            and text_lines
            and not (tagged or self.tagged or self.cues >= MAX_CUES)
        ):
            self.builder.line_break(self.trailer + header, required=True)
            self.cues += 1
        else:
            self._close()
            self.skeleton.raw(header)
            self.builder, self.cues, self.tagged = UnitBuilder(PLAIN_KINDS), 1, False
        self.tagged |= tagged
        for index, line in enumerate(text_lines):
            if index:
                previous = text_lines[index - 1]
                self.builder.line_break(previous[len(previous.rstrip("\r\n")) :])
            _markup(line.rstrip("\r\n"), self.builder)
        ending = text_lines[-1][len(text_lines[-1].rstrip("\r\n")) :] if text_lines else ""
        self.trailer = ending + "".join(lines[text_start + len(text_lines) :])
        self.open_sentence = bool(_OPEN_END.search(plain))

    def _close(self) -> None:
        if self.builder is not None:
            self.skeleton.add(self.builder)
            self.skeleton.raw(self.trailer)
            self.builder = None

    def build(self) -> Skeleton:
        self._close()
        return self.skeleton.build()


def _markup(line: str, builder: UnitBuilder) -> None:
    position = 0
    for match in _MARKUP.finditer(line):
        builder.text(line[position : match.start()])
        if match.group("keep"):
            builder.keep(match.group())
        elif match.group("close"):
            if not builder.close(match.group(), match.group("name").lower()):
                builder.keep(match.group())
        else:
            builder.open(match.group(), match.group("name").lower())
        position = match.end()
    builder.text(line[position:])
