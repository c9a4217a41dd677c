"""Translate a parsed document a piece at a time, and write it back piece by piece.

A piece is a run of units of about PIECE_CHARS characters: one Translator call, the alignment
asked only for the units with tags or lost placeholders, then the piece's text written out. So
time is linear in the document, and memory beyond the parsed document is bounded by a piece.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

from mt.decode.documents.align import Aligner, aligner_for, words
from mt.decode.documents.place import place
from mt.decode.documents.split import MAX_UNIT_CHARS, Split, split_unit
from mt.decode.documents.units import TOKEN, Unit, UnitBuilder
from mt.errors import MtError


class Translated(Protocol):
    @property
    def text(self) -> str: ...


class LineTranslator(Protocol):
    """What documents need of mt.decode.translator.Translator (and what tests script)."""

    def translate(self, lines: Iterable[str]) -> Iterator[Translated]: ...


PIECE_CHARS = 50_000
"""Characters of unit text a piece holds (its last part may take it past): one Translator call."""

ALIGN_UNITS = 32
"""Units given to the aligner at a time (AttentionAligner sends 32 to the model at once). Each
unit is placed as its alignment matrix (its words squared as Python floats) is taken, so one
matrix is held: 32 held together churned some 30 MB of floats a batch, and the peak resident
memory rose piece after piece."""


class Document(Protocol):
    """A parsed file: its units, and how to write it back around their translations."""

    @property
    def units(self) -> Sequence[Unit]: ...

    def render(self, translations: Sequence[str]) -> str: ...

    def stream(self, translations: Iterable[str]) -> Iterator[str]:
        """The file text in order, each bit as soon as the translations it needs (taken from
        `translations` in unit order, never ahead of need) have come."""
        ...


MARK = re.compile("\x00(\\d+)\x00")
"""Where a unit sits inside protected markup (an <img alt> inside a sentence): the unit's index
between NUL characters, which no parsed document holds (parsers refuse them)."""


@dataclass(frozen=True)
class Skeleton:
    """A document that is skeleton text with a MARK where each unit goes (every format but .po)."""

    text: str
    units: tuple[Unit, ...]

    def render(self, translations: Sequence[str]) -> str:
        return "".join(self.stream(translations))

    def stream(self, translations: Iterable[str]) -> Iterator[str]:
        """The skeleton up to each unit's mark, then its translation; a unit inside another's markup
        (an alt attribute) comes first and is filled into the other's translation."""
        source = iter(translations)
        waiting: dict[int, str] = {}  # translations taken but not written yet
        taken = 0
        position = 0
        for match in MARK.finditer(self.text):
            index = int(match.group(1))
            while taken <= index:
                waiting[taken] = next(source)
                taken += 1
            text = MARK.sub(lambda m: waiting.pop(int(m.group(1))), waiting.pop(index))
            yield self.text[position : match.start()] + text
            position = match.end()
        yield self.text[position:]


class SkeletonBuilder:
    """Skeleton text and units in the order a parser meets them."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.units: list[Unit] = []

    def raw(self, text: str) -> None:
        self.parts.append(text)

    def unit(self, builder: UnitBuilder) -> str:
        """The builder's unit added; returns its MARK for the skeleton (the text if no words)."""
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


def place_splits(splits: Sequence[Split], texts: Sequence[str], aligner: Aligner) -> list[str]:
    """Each unit's translation with its markup, from its parts' translations in order."""
    parts = [part for split in splits for part in split.parts]
    placed = iter(place_units(parts, texts, aligner))
    return [split.join([next(placed) for _ in split.parts]) for split in splits]


def place_units(units: Sequence[Unit], texts: Sequence[str], aligner: Aligner) -> list[str]:
    """Each unit's translation (`texts`) with its markup put back; the aligner is asked only about
    units with tags or a lost placeholder, ALIGN_UNITS at a time, each unit placed as its matrix
    comes (the matrices are large)."""
    placed = [
        unit.escape(text) if unit.escape is not None else text
        for unit, text in zip(units, texts, strict=True)
    ]
    need = []
    for i, (unit, text) in enumerate(zip(units, texts, strict=True)):
        if unit.tags or _lost_placeholder(unit, text):
            need.append(i)
        elif unit.kept or unit.breaks:
            placed[i] = place(unit, text, [[] for _ in words(text)])
    for start in range(0, len(need), ALIGN_UNITS):
        chosen = need[start : start + ALIGN_UNITS]
        matrices = aligner.align([(units[i].text, texts[i]) for i in chosen])
        for i, matrix in zip(chosen, matrices, strict=True):
            placed[i] = place(units[i], texts[i], matrix)
    return placed


def _lost_placeholder(unit: Unit, text: str) -> bool:
    """Whether the translation lost one of the unit's placeholder tokens (placed by alignment)."""
    return bool(unit.kept) and not {token for token, _ in unit.kept} <= set(TOKEN.findall(text))


def translated_units(
    units: Iterable[Unit],
    translator: LineTranslator,
    aligner: Aligner,
    *,
    piece_chars: int = PIECE_CHARS,
    unit_chars: int = MAX_UNIT_CHARS,
) -> Iterator[str]:
    """Each unit's translation with its markup, in order: the units' parts gathered into pieces
    of about `piece_chars` characters, one Translator call a piece."""
    waiting: deque[Split] = deque()  # units not given out yet, in order
    placed: list[str] = []  # placed parts of the waiting units, in order
    parts: list[Unit] = []  # parts not sent to the translator yet
    size = 0

    def piece() -> Iterator[str]:
        texts = [translation.text for translation in translator.translate(p.text for p in parts)]
        placed.extend(place_units(parts, texts, aligner))
        parts.clear()
        given = 0
        while waiting and len(placed) - given >= len(waiting[0].parts):
            split = waiting.popleft()
            yield split.join(placed[given : given + len(split.parts)])
            given += len(split.parts)
        del placed[:given]  # what is left: the first parts of a unit the next piece finishes

    for unit in units:
        split = split_unit(unit, unit_chars)
        waiting.append(split)
        for part in split.parts:
            parts.append(part)
            size += len(part.text)
            if size >= piece_chars:
                yield from piece()
                size = 0
    if parts:
        yield from piece()


def translate_stream(
    document: Document,
    translator: LineTranslator,
    aligner: Aligner | None = None,
    *,
    piece_chars: int = PIECE_CHARS,
    unit_chars: int = MAX_UNIT_CHARS,
) -> Iterator[str]:
    """The document's file text, translated, in the bits Document.stream writes."""
    translations = translated_units(
        document.units,
        translator,
        aligner or aligner_for(translator),
        piece_chars=piece_chars,
        unit_chars=unit_chars,
    )
    return document.stream(translations)


def translate_document(
    document: Document,
    translator: LineTranslator,
    aligner: Aligner | None = None,
    *,
    piece_chars: int = PIECE_CHARS,
    unit_chars: int = MAX_UNIT_CHARS,
) -> str:
    """The document's file text, translated."""
    stream = translate_stream(
        document, translator, aligner, piece_chars=piece_chars, unit_chars=unit_chars
    )
    return "".join(stream)
