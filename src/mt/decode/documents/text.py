"""Plain text, as `mt translate` has always read it: every line one unit, its line ending and the
whitespace around it kept; nothing protected beyond the Translator's own stand-ins for names and
numbers, so a text file translates exactly as its lines do one by one."""

from __future__ import annotations

from mt.decode.documents.document import Skeleton, SkeletonBuilder, check_text
from mt.decode.documents.units import UnitBuilder


def parse(text: str, *, name: str) -> Skeleton:
    check_text(text, name)
    skeleton = SkeletonBuilder()
    for line in text.splitlines(keepends=True):
        content = line.rstrip("\r\n")
        builder = UnitBuilder(kinds=frozenset())
        builder.text(content)
        skeleton.add(builder)
        skeleton.raw(line[len(content) :])
    return skeleton.build()
