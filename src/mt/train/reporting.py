"""How training reports itself: the protocol the loop calls, and a silent reporter for tests and
workers; the rich one lives in mt.cli.progress."""

from __future__ import annotations

from typing import Protocol


class Reporter(Protocol):
    tokens_per_second: float

    def start_epoch(self, epoch: int, steps: int, done: int) -> None: ...
    def advance(
        self, done: int, loss: float, accuracy: float, lr: float, tokens_per_second: float
    ) -> None: ...
    def evaluation(self, row: dict[str, float]) -> None: ...
    def message(self, text: str) -> None: ...
    def close(self) -> None: ...


class SilentReporter:
    """For tests and for non-zero ranks."""

    def __init__(self) -> None:
        self.tokens_per_second = 0.0
        self.messages: list[str] = []

    def start_epoch(self, epoch: int, steps: int, done: int) -> None:
        pass

    def advance(
        self, done: int, loss: float, accuracy: float, lr: float, tokens_per_second: float
    ) -> None:
        self.tokens_per_second = tokens_per_second

    def evaluation(self, row: dict[str, float]) -> None:
        pass

    def message(self, text: str) -> None:
        self.messages.append(text)

    def close(self) -> None:
        pass
