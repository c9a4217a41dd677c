"""Gettext .po files as English-Spanish segments, read with polib.

Only finished entries are pairs: fuzzy, obsolete and untranslated ones are counted and left out,
and so is the header. `msgctxt` is not text. A plural entry gives two pairs (`msgid` with
`msgstr[0]`, `msgid_plural` with `msgstr[1]`). msgid is English and msgstr Spanish whatever the
header's `Language` says (python-docs-es has Spanish files whose header says en_GB).
"""

from __future__ import annotations

import re
from pathlib import Path

import polib

from mt.data.readers.translator_entries import FileEntries, Segment, decoded
from mt.errors import MtError

FUZZY = "fuzzy"
OBSOLETE = "obsolete"
UNTRANSLATED = "untranslated"
HEADER = "header"
_SYNTAX_LINE = re.compile(r"\(line (\d+)\)")


def read_po(path: Path, data: bytes) -> FileEntries:
    """The translated entries of one .po file (its bytes, read by the caller)."""
    text = decoded(path, data)
    try:
        # polib takes a str holding a newline as the file's content, never as a path.
        po = polib.pofile(text if "\n" in text else text + "\n", wrapwidth=0)
    except (OSError, ValueError) as error:
        found = _SYNTAX_LINE.search(str(error))
        where = f" line {found.group(1)}" if found else ""
        raise MtError(f"{path}{where}: not a valid gettext .po file (syntax error)") from None
    result = FileEntries(path=path)
    if po.metadata or po.header:
        result.entries += 1
        result.skipped[HEADER] += 1
    for entry in po:
        result.entries += 1
        reason = _left_out(entry)
        if reason:
            result.skipped[reason] += 1
            continue
        if entry.msgid_plural:
            result.segments += _plural_segments(path, entry)
        else:
            result.segments.append(Segment(entry.linenum, entry.msgid, entry.msgstr))
    return result


def _left_out(entry: polib.POEntry) -> str:
    """Why an entry is not a pair, or "" when it is one."""
    if entry.obsolete:
        return OBSOLETE
    if entry.fuzzy:
        return FUZZY
    if not entry.translated():
        return UNTRANSLATED
    return ""


def _plural_segments(path: Path, entry: polib.POEntry) -> list[Segment]:
    forms = entry.msgstr_plural
    if 0 not in forms or 1 not in forms:
        raise MtError(
            f"{path} line {entry.linenum}: plural entry {entry.msgid!r} needs msgstr[0] and "
            "msgstr[1]"
        )
    return [
        Segment(entry.linenum, entry.msgid, forms[0]),
        Segment(entry.linenum, entry.msgid_plural, forms[1]),
    ]
