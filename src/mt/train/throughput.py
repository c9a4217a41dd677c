"""Tokens/s, model TFLOP/s and MFU of training, as the run measures them.

A lent GPU returns only the files a run wrote, so each metrics.csv row records real tokens so far
and the rates since the row before, over training seconds (`elapsed` less `eval_seconds`). A row
sums counts over processes, so it is a collective every process reaches.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from mt.config import ModelConfig
from mt.data.feed.batching import Batch
from mt.train.distributed import Distributed
from mt.train.flops import TokenCounts, mac_rates, training_flops
from mt.train.peaks import Peak

RATE_COLUMNS = (
    "source_target_tokens_per_second",
    "target_tokens_per_second",
    "model_tflop_per_second",
    "mfu",
)
"""metrics.csv's rates (mt.model.rundir.METRICS_FIELDS): measured, so no two runs agree."""


@dataclass(frozen=True)
class Throughput:
    """What `devices` devices trained in `seconds`: tokens, model FLOPs, and the peak of one."""

    seconds: float
    tokens: TokenCounts
    flops: int
    peak: Peak
    devices: int = 1

    @property
    def tokens_per_second(self) -> float:
        """Source and target tokens a second."""
        return (self.tokens.source + self.tokens.target) / max(self.seconds, 1e-9)

    @property
    def target_tokens_per_second(self) -> float:
        return self.tokens.target / max(self.seconds, 1e-9)

    @property
    def tflops(self) -> float:
        """Achieved model TFLOP/s, all devices together."""
        return self.flops / max(self.seconds, 1e-9) / 1e12

    @property
    def mfu(self) -> float | None:
        """Model FLOP utilisation, 0 to 1; None where the peak is not known."""
        if not self.peak.tflops:
            return None
        return self.tflops / (self.peak.tflops * self.devices)

    def columns(self) -> dict[str, float]:
        """The rates of a metrics.csv row (RATE_COLUMNS); without a peak, no MFU (blank)."""
        rates = (self.tokens_per_second, self.target_tokens_per_second, self.tflops, self.mfu)
        return {
            name: rate for name, rate in zip(RATE_COLUMNS, rates, strict=True) if rate is not None
        }

    def describe(self) -> str:
        """One line for the end of training."""
        mfu = "n/a" if self.mfu is None else f"{self.mfu:.2%}"
        per = f" per device x {self.devices}" if self.devices > 1 else ""
        peak = f" of {self.peak.tflops:g} TFLOP/s{per}" if self.peak.tflops else ""
        return (
            f"{self.tokens_per_second:,.0f} tokens/s (source + target), "
            f"{self.target_tokens_per_second:,.0f} target tokens/s over {self.seconds:.0f} s "
            f"of training; model {self.tflops:.3g} TFLOP/s; MFU {mfu}{peak} ({self.peak.source})"
        )


class Meter:
    """Counts this process's training tokens and turns them into rates at each metrics row."""

    def __init__(
        self, model_config: ModelConfig, peak: Peak, dist: Distributed, device: torch.device
    ) -> None:
        self.rates = mac_rates(model_config)
        self.peak, self.dist, self.device = peak, dist, device
        self.unsummed = TokenCounts()  # this process's, since the last row
        self.marks: list[float] = [0.0, 0.0]  # training seconds at the start and at the last row
        self.since_start = TokenCounts()  # every process's, from the start to the last row

    def count(self, batch: Batch) -> None:
        self.unsummed = self.unsummed + TokenCounts.of_batch(batch)

    def start(self, train_seconds: float) -> None:
        """Training (re)starts with `train_seconds` already done; earlier counts are not ours."""
        self.marks = [train_seconds, train_seconds]
        self.unsummed = self.since_start = TokenCounts()

    def window(self, train_seconds: float) -> Throughput:
        """Every process's tokens since the last row: a collective, called by all processes."""
        tokens = self._summed(self.unsummed)
        self.unsummed = TokenCounts()
        self.since_start = self.since_start + tokens
        seconds = train_seconds - self.marks[1]
        self.marks[1] = train_seconds
        return self._throughput(seconds, tokens)

    def summary(self) -> Throughput | None:
        """From the start of training to the last row; None before any row."""
        seconds = self.marks[1] - self.marks[0]
        if seconds <= 0:
            return None
        return self._throughput(seconds, self.since_start)

    def _throughput(self, seconds: float, tokens: TokenCounts) -> Throughput:
        flops = training_flops(self.rates, tokens)
        return Throughput(seconds, tokens, flops, self.peak, self.dist.world_size)

    def _summed(self, tokens: TokenCounts) -> TokenCounts:
        if not self.dist.enabled:
            return tokens
        # float64 holds these sums exactly (under 2^53) and every backend reduces it
        values = torch.tensor(tokens.values(), dtype=torch.float64, device=self.device)
        return TokenCounts(*(int(value) for value in self.dist.sum(values).tolist()))
