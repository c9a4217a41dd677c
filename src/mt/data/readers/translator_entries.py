"""What the readers of translator files (.po, TMX, XLIFF) return: segments with the line of their
entry, and the entries left out by reason (fuzzy, obsolete, untranslated, header, a unit without
Spanish), which are the ordinary state of such files and not errors.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from mt.errors import MtError


@dataclass(frozen=True)
class Segment:
    """One English-Spanish pair and the line where its entry starts."""

    line: int
    en: str
    es: str


@dataclass
class FileEntries:
    """What one file gave: its segments, how many entries it has, and those left out by reason."""

    path: Path
    segments: list[Segment] = field(default_factory=list)
    entries: int = 0
    skipped: Counter[str] = field(default_factory=Counter)

    def counts(self) -> dict[str, object]:
        """The file's line in prepare.json."""
        return {
            "file": str(self.path),
            "entries": self.entries,
            "skipped": dict(sorted(self.skipped.items())),
            "segments": len(self.segments),
        }


def primary_language(code: str | None) -> str:
    """ "es-419" -> "es", "en_US" -> "en": translation memories name regions and scripts that do
    not matter for choosing the English and the Spanish side."""
    return (code or "").replace("_", "-").split("-", 1)[0].strip().lower()


def decoded(path: Path, data: bytes) -> str:
    """`data` as UTF-8, or an error naming the line of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise MtError(
            f"{path} line {line}: not valid UTF-8 (convert it, e.g. `msgconv -t UTF-8` or "
            "`iconv -t utf-8`)"
        ) from None
