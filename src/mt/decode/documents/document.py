"""Translate a parsed document: all its units in one Translator call, then the file written back.

One call over every unit keeps batches dense (the Translator sorts a chunk's sentences by
length); the alignment that places tags and lost placeholders is asked only for the units that
have any.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from mt.decode.documents.align import Aligner, aligner_for
from mt.decode.documents.place import place
from mt.decode.documents.units import Unit, UnitBuilder
from mt.errors import MtError


class Translated(Protocol):
    @property
    def text(self) -> str: ...


class LineTranslator(Protocol):
    """What documents need of mt.decode.translator.Translator (and what tests script)."""

    def translate(self, lines: Iterable[str]) -> Iterator[Translated]: ...


class Document(Protocol):
    """A parsed file: its units, and how to write it back around their translations."""

    @property
    def units(self) -> Sequence[Unit]: ...

    def render(self, translations: Sequence[str]) -> str: ...


MARK = re.compile("\x00(\\d+)\x00")
"""Where a unit sits inside protected markup (an <img alt> inside a sentence): the unit's index
between NUL characters, which no parsed document holds (parsers refuse them)."""


@dataclass(frozen=True)
class Skeleton:
    """A document that is skeleton text with a MARK where each unit goes (every format but .po)."""

    text: str
    units: tuple[Unit, ...]

    def render(self, translations: Sequence[str]) -> str:
        """The skeleton with each unit replaced by its translation; a unit inside another's
        protected markup is filled in by the second pass."""
        text = self.text
        for _ in range(2):
            text = MARK.sub(lambda m: translations[int(m.group(1))], text)
        return text


class SkeletonBuilder:
    """Skeleton text and units in the order a parser meets them."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.units: list[Unit] = []

    def raw(self, text: str) -> None:
        self.parts.append(text)

    def unit(self, builder: UnitBuilder) -> str:
        """The builder's unit added; returns what stands for it in the skeleton (its MARK, with
        the whitespace around it, or the source itself when it holds no words)."""
        before, unit, after = builder.finish()
        if unit is None:
            return before
        self.units.append(unit)
        return f"{before}\x00{len(self.units) - 1}\x00{after}"

    def add(self, builder: UnitBuilder) -> None:
        self.raw(self.unit(builder))

    def build(self) -> Skeleton:
        return Skeleton("".join(self.parts), tuple(self.units))


def check_text(text: str, name: str) -> None:
    """Parsers here take text without NUL characters (the skeleton's marks use them)."""
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise MtError(f"{name}:{line}: a NUL character; this is not a text document")


def translate_units(
    units: Sequence[Unit], translator: LineTranslator, aligner: Aligner | None = None
) -> list[str]:
    """Each unit translated and put back together with its markup."""
    texts = [translation.text for translation in translator.translate(u.text for u in units)]
    return place_units(units, texts, aligner or aligner_for(translator))


def place_units(units: Sequence[Unit], texts: Sequence[str], aligner: Aligner) -> list[str]:
    """Each unit's translation (`texts`) with its markup put back; the aligner is asked only
    about units that have markup, protected spans or line breaks."""
    need = [i for i, unit in enumerate(units) if unit.tags or unit.kept or unit.breaks]
    pairs = [(units[i].text, texts[i]) for i in need]
    matrices = dict(zip(need, aligner.align(pairs), strict=True))
    placed = []
    for i, (unit, text) in enumerate(zip(units, texts, strict=True)):
        if i in matrices:
            placed.append(place(unit, text, matrices[i]))
        else:
            placed.append(unit.escape(text) if unit.escape is not None else text)
    return placed


def translate_document(
    document: Document, translator: LineTranslator, aligner: Aligner | None = None
) -> str:
    """The document's file text, translated."""
    return document.render(translate_units(document.units, translator, aligner))
