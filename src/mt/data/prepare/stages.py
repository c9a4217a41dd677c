"""Where `mt prepare` reports its progress: a rich bar in the command line, nothing in tests."""

from __future__ import annotations

from typing import Protocol


class Stages(Protocol):
    """Where prepare reports its progress (a rich bar in the CLI, nothing in tests)."""

    def start(self, stage: str, total: int | None) -> None: ...

    def advance(self, pairs: int) -> None: ...


class NoStages:
    def start(self, stage: str, total: int | None) -> None:
        pass

    def advance(self, pairs: int) -> None:
        pass
