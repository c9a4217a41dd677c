"""gettext .po files: each untranslated msgid translated into its msgstr, everything else kept.

Parsed and written with polib: comments, flags, references, obsolete entries and order come back
as they were, in gettext's line wrapping. A filled entry is marked `fuzzy` ("machine-made, check
me"); plural entries fill every form the header's nplurals asks for. Besides URLs and format
placeholders, reST is respected: ``literals`` and :role:`targets` are protected, *emphasis* and
`link text <url>`_ are tags.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

import polib

from mt.decode.documents.document import check_text
from mt.decode.documents.units import REST_KINDS, Unit, UnitBuilder
from mt.errors import MtError
from mt.text.spans import MSGFMT_PRINTF

_REST_MARKUP = re.compile(
    r"(?P<strong>\*\*)(?=\S)(?P<strong_text>[^*]+?)(?<=\S)\*\*"
    r"|(?<![\w*])(?P<em>\*)(?=[^\s*])(?P<em_text>[^*]+?)(?<=\S)\*(?!\w)"
    r"|(?<![\w`:])`(?P<link_text>[^`<]+?)(?P<link_close>\s*<[^`>]+>`__?)"
)
_NPLURALS = re.compile(r"nplurals\s*=\s*(\d+)")
_STRING = r'"(?:[^"\\]|\\.)*"'
_LINE = re.compile(rf"(?:(?:msgctxt|msgid|msgid_plural|msgstr(?:\[\d+\])?)[ \t]+)?{_STRING}[ \t]*")


@dataclass(frozen=True)
class Slot:
    """Where translated units go: an entry (by its index in the file) and the outer whitespace
    of its msgid (and msgid_plural), which msgfmt --check wants kept at the ends."""

    entry: int
    units: tuple[int | None, ...]  # unit index of msgid (and msgid_plural); None: copy it
    ends: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class PoDocument:
    text: str
    units: tuple[Unit, ...]
    slots: tuple[Slot, ...]

    def render(self, translations: Sequence[str]) -> str:
        return "".join(self.stream(translations))

    def stream(self, translations: Iterable[str]) -> Iterator[str]:
        """The file in polib's layout (its str(): header, metadata entry, entries, obsolete
        entries last), each entry written once its slot's msgstr is filled and marked fuzzy."""
        po = polib.pofile(self.text)
        nplurals = _nplurals(po)
        source = iter(translations)
        slots = {slot.entry: slot for slot in self.slots}
        yield _header(po) + po.metadata_as_entry().__unicode__(po.wrapwidth)
        for index, entry in enumerate(po):
            if entry.obsolete:
                continue
            if index in slots:
                _fill(entry, slots[index], source, nplurals)
            yield "\n" + entry.__unicode__(po.wrapwidth)
        for entry in po.obsolete_entries():
            yield "\n" + entry.__unicode__(po.wrapwidth)


def _header(po: polib.POFile) -> str:
    """The header comment as polib's POFile.__unicode__ writes it."""
    lines = []
    for line in po.header.split("\n"):
        if not line:
            lines.append("#\n")
        elif line[:1] in (",", ":"):
            lines.append(f"#{line}\n")
        else:
            lines.append(f"# {line}\n")
    return "".join(lines)


def _fill(entry: polib.POEntry, slot: Slot, source: Iterator[str], nplurals: int) -> None:
    """The entry's msgstr (every plural form) from the next translations, marked fuzzy."""
    sources = [entry.msgid, entry.msgid_plural][: len(slot.units)]
    filled = [
        text if unit is None else f"{lead}{next(source)}{trail}"
        for text, unit, (lead, trail) in zip(sources, slot.units, slot.ends, strict=True)
    ]
    if entry.msgid_plural:
        entry.msgstr_plural = {k: filled[min(k, 1)] for k in range(nplurals)}
    else:
        entry.msgstr = filled[0]
    if "fuzzy" not in entry.flags:
        entry.flags.insert(0, "fuzzy")


def parse(text: str, *, name: str, overwrite: bool = False) -> PoDocument:
    """The entries to translate: those without a translation, or all of them with `overwrite`.
    A syntax error is one MtError naming the file and line."""
    check_text(text, name)
    po = _read(text, name)
    units: list[Unit] = []
    slots: list[Slot] = []
    for index, entry in enumerate(po):
        if entry.obsolete or not entry.msgid or not (overwrite or _untranslated(entry)):
            continue
        sources = [entry.msgid] + ([entry.msgid_plural] if entry.msgid_plural else [])
        indices: list[int | None] = []
        ends = []
        for source in sources:
            core = source.strip()
            ends.append(
                (source[: len(source) - len(source.lstrip())], source[len(source.rstrip()) :])
            )
            unit = _unit(core, msgfmt=_formatted(entry))
            indices.append(None if unit is None else len(units))
            if unit is not None:
                units.append(unit)
        slots.append(Slot(index, tuple(indices), tuple(ends)))
    return PoDocument(text, tuple(units), tuple(slots))


def _read(text: str, name: str) -> polib.POFile:
    _check_lines(text, name)
    try:
        return polib.pofile(text)
    except (OSError, ValueError) as error:
        line = re.search(r"line (\d+)", str(error))
        where = f"{name}:{line.group(1)}" if line else name
        reason = re.sub(r"\s*\(line \d+\)", "", str(error)).lower()
        raise MtError(f"{where}: not a valid .po file: {reason}") from None


def _check_lines(text: str, name: str) -> None:
    """Every line a comment, blank, a keyword with a string or a string: polib itself skips an
    unterminated string and the entry with it, which would lose entries without a word."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#") and not _LINE.fullmatch(stripped):
            raise MtError(f"{name}:{number}: not a valid .po file: cannot read {stripped[:40]!r}")


def _untranslated(entry: polib.POEntry) -> bool:
    if entry.msgid_plural:
        return not any(entry.msgstr_plural.values())
    return not entry.msgstr


def _nplurals(po: polib.POFile) -> int:
    found = _NPLURALS.search(po.metadata.get("Plural-Forms", ""))
    return int(found.group(1)) if found else 2


def _positional(text: str) -> bool:
    """A directive taking its argument by position (not %(name)s nor %%), in a ``literal`` too."""
    return any(not m.group().startswith(("%(", "%%")) for m in re.finditer(MSGFMT_PRINTF, text))


def _formatted(entry: polib.POEntry) -> bool:
    """A c-format or python-format entry: msgfmt checks every directive it sees in it."""
    return any(flag in ("c-format", "python-format") for flag in entry.flags)


def _unit(text: str, *, msgfmt: bool) -> Unit | None:
    """A msgid as a unit: its lines broken again as they were, reST markup as tags."""
    builder = UnitBuilder(REST_KINDS, msgfmt=msgfmt)
    for number, line in enumerate(text.split("\n")):
        if number:
            builder.line_break("\n")
        position = 0
        for match in _REST_MARKUP.finditer(line):
            builder.text(line[position : match.start()])
            kind = match.lastgroup.removesuffix("_text").removesuffix("_close")
            opening = {"strong": "**", "em": "*", "link": "`"}[kind]
            closing = match.group("link_close") if kind == "link" else opening
            builder.open(opening, kind)
            builder.text(match.group(f"{kind}_text"))
            builder.close(closing, kind)
            position = match.end()
        builder.text(line[position:])
    _, unit, _ = builder.finish()
    if unit is None or not msgfmt:
        return unit
    positional = [token for token, original in unit.kept if _positional(original)]
    return dataclasses.replace(unit, ordered=tuple(positional))
