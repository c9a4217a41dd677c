"""benchmarks/quality/bench_general.py's peer: one pass of the lines through a command, one line
back per line in, and a command that returns fewer lines or fails is stopped with a one-line
reason."""

from __future__ import annotations

import pytest

from benchmarks.quality import bench_general


def test_each_line_comes_back_in_order_with_its_spacing_collapsed() -> None:
    lines = ["The  cat sat.", "A dog\tran.", "Third."]
    assert bench_general.apertium(lines, "tr a-z A-Z") == ["THE CAT SAT.", "A DOG RAN.", "THIRD."]


@pytest.mark.parametrize("command", ["head -n 1", "false"])
def test_a_peer_that_loses_lines_or_fails_stops_the_benchmark(command: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench_general.apertium(["One.", "Two.", "Three."], command)
    assert command.split()[0] in str(stopped.value)
