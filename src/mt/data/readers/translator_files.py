"""The files translators keep (gettext .po, TMX, XLIFF) as English-Spanish segments, told by
suffix; a directory is every such file below it, in path order. An unreadable file is one MtError
naming file, entry and problem; unfinished entries are only counted (translator_entries.py).
"""

from __future__ import annotations

from pathlib import Path

from mt.data.readers.po_files import read_po
from mt.data.readers.translator_entries import FileEntries
from mt.data.readers.xml_memories import read_tmx, read_xliff
from mt.errors import MtError
from mt.storage.files import read_text_file

PO_SUFFIXES = (".po",)
TMX_SUFFIXES = (".tmx",)
XLIFF_SUFFIXES = (".xlf", ".xliff")
SUFFIXES = PO_SUFFIXES + TMX_SUFFIXES + XLIFF_SUFFIXES
WHAT = "translator file"


def is_translator_input(path: Path) -> bool:
    """Whether `path` is read by this module: a translator file, or a directory of them."""
    return path.is_dir() or path.suffix.lower() in SUFFIXES


def translator_files(path: Path) -> list[Path]:
    """`path` itself, or the translator files below the directory `path` in path order."""
    if not path.is_dir():
        return [path]
    found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES)
    if not found:
        raise MtError(
            f"{path} is a directory with no translator file ({', '.join(SUFFIXES)}) in it; a "
            "TSV/CSV corpus is a file"
        )
    return found


def read_translator_file(path: Path) -> FileEntries:
    """The segments of one .po, .tmx, .xlf or .xliff file."""
    data = read_text_file(path, what=WHAT)
    suffix = path.suffix.lower()
    if suffix in PO_SUFFIXES:
        return read_po(path, data)
    if suffix in TMX_SUFFIXES:
        return read_tmx(path, data)
    if suffix in XLIFF_SUFFIXES:
        return read_xliff(path, data)
    raise MtError(f"{path}: not a translator file (expected {', '.join(SUFFIXES)})")
