"""Which way a prepared directory, a run and an export translate: English→Spanish, or the reverse.

`mt prepare --reverse` records the languages in prepare.json, copied on into train.json; a
directory that records none is English→Spanish. The text layer's English heuristics apply only
where `Direction.english_source` holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mt.errors import MtError

LANGUAGE_NAMES = {"en": "English", "es": "Spanish"}


@dataclass(frozen=True)
class Direction:
    source: str
    target: str

    def __post_init__(self) -> None:
        if {self.source, self.target} != set(LANGUAGE_NAMES):
            raise MtError(f"unknown translation direction {self.source}->{self.target}")

    @property
    def reverse(self) -> bool:
        return self.source != "en"

    @property
    def english_source(self) -> bool:
        return self.source == "en"

    @property
    def label(self) -> str:
        """ "English→Spanish", for messages and `mt serve`'s page."""
        return f"{LANGUAGE_NAMES[self.source]}→{LANGUAGE_NAMES[self.target]}"

    def to_dict(self) -> dict[str, str]:
        return {"source_language": self.source, "target_language": self.target}


FORWARD = Direction("en", "es")
REVERSE = Direction("es", "en")


def direction_of(info: Any) -> Direction:
    """The direction a prepare.json or train.json records; FORWARD where it records none."""
    if not isinstance(info, dict) or "source_language" not in info:
        return FORWARD
    return Direction(str(info.get("source_language")), str(info.get("target_language")))
