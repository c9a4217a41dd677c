"""Benchmarks with targets fail when they miss: benchmarks/harness.py writes the figures as JSON
with the machine, commit, date and command, and gives exit status 1 on a miss; every benchmark
that prints a miss goes through it."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

from benchmarks import harness
from benchmarks.harness import MISSED, Target, report

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"

MISS_WORDS = re.compile(r"NOT met|\bMISS\b|\bFAIL\b|: missed\b|targets? missed")
"""What a benchmark prints when a target is missed (not bench_trust's verdict on one copy the flag
"MISSED", nor bench_splitters' "missed" cases)."""


def test_a_missed_target_gives_exit_status_1_and_the_json_says_which(tmp_path: Path) -> None:
    script = tmp_path / "bench_toy.py"
    script.write_text(
        textwrap.dedent(
            """
            import sys
            from pathlib import Path
            from benchmarks.harness import Target, report

            checks = [Target("speed, x baseline", 2.5, ">=", 3.0),
                      Target("BLEU gap", -0.4, "within", 0.5)]
            sys.exit(report(Path(sys.argv[1]), {"rows": [1, 2]}, checks, threads=2))
            """
        )
    )
    out = tmp_path / "out" / "results.json"
    done = subprocess.run(
        [sys.executable, str(script), str(out), "--toy-flag"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": f"{ROOT}:{ROOT / 'src'}"},
        cwd=ROOT,
    )
    assert done.returncode == MISSED, done.stdout + done.stderr
    assert "speed, x baseline: 2.5 (target >= 3): MISS" in done.stdout
    assert "BLEU gap: -0.4 (target within 0.5): MET" in done.stdout
    document = json.loads(out.read_text())
    assert document["missed"] == ["speed, x baseline"]
    assert [t["met"] for t in document["targets"]] == [False, True]
    assert document["figures"] == {"rows": [1, 2]}
    assert document["command"].endswith("bench_toy.py " + f"{out} --toy-flag")
    assert document["machine"]["threads"] == 2 and document["machine"]["cores"] > 0
    assert re.fullmatch(r"[0-9a-f]{7,}(\+changes)?|unknown", document["commit"])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", document["date"])


def test_met_targets_exit_0_and_a_nan_figure_is_a_miss(tmp_path: Path) -> None:
    met = [Target("size share", 0.27, "<=", 0.3), Target("speed", 3.87, ">=", 3.0)]
    assert report(tmp_path / "a.json", [], met, threads=1) == 0
    assert json.loads((tmp_path / "a.json").read_text())["missed"] == []
    assert report(tmp_path / "b.json", [], [Target("gap", float("nan"), "within", 1)], threads=1)
    with pytest.raises(ValueError, match="op must be one of"):
        Target("x", 1.0, ">", 0.0)


@pytest.mark.parametrize(
    "path",
    sorted(BENCHMARKS.rglob("*.py")),
    ids=lambda path: path.relative_to(BENCHMARKS).as_posix(),
)
def test_every_benchmark_that_prints_a_miss_reports_through_targets(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    strings = re.findall(r"\"[^\"\n]*\"|'[^'\n]*'", text)  # its literals: what it may print
    prints_a_miss = any(MISS_WORDS.search(s) for s in strings)
    if path.name == "harness.py" or not prints_a_miss:
        return
    assert re.search(r"^from benchmarks.harness import .*\breport\b", text, re.MULTILINE), (
        f"{path.name} prints a missed target: it must report through benchmarks/harness.py "
        "(JSON beside its table, exit status 1 on a miss)"
    )
    assert re.search(r"\breport\(", text) and re.search(r"sys\.exit\(|SystemExit\(", text), (
        path.name
    )


def test_the_shared_options_have_one_spelling_and_a_benchmarks_own_defaults() -> None:
    parser = harness.parser("benchmarks.toy_group.bench_toy", "A toy benchmark.\n\n    usage line")
    harness.add_run(parser)
    harness.add_part(parser, choices=("selection", "test"), default="selection")
    harness.add_limit(parser, 300, flag="--sentences")
    harness.add_beam(parser, 5)
    harness.add_threads(parser)
    harness.add_domains(parser)
    harness.add_out(parser, Path("bench/toy"))
    args = parser.parse_args(["--run", "runs/demo"])
    assert (args.run, args.part, args.sentences, args.beam, args.threads) == (
        Path("runs/demo"), "selection", 300, 5, 2,
    )  # fmt: skip
    assert (args.domains, args.out) == (harness.DOMAINS, Path("bench/toy"))
    help_text = parser.format_help()
    assert help_text.startswith("usage: python -m benchmarks.toy_group.bench_toy ")
    assert "A toy benchmark.\n\n    usage line" in help_text  # the docstring as written
    with pytest.raises(SystemExit):
        parser.parse_args([])  # --run without a default is required


def test_the_command_is_recorded_as_it_is_typed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    main = types.ModuleType("__main__")
    main.__spec__ = types.SimpleNamespace(name="benchmarks.quality.bench_general")
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(sys, "argv", ["/repo/benchmarks/quality/bench_general.py", "--part", "dev"])
    python = Path(sys.executable).name
    assert harness.command_line() == f"{python} -m benchmarks.quality.bench_general --part dev"
    main.__spec__ = None  # a script run by its path
    assert (
        harness.command_line() == f"{python} /repo/benchmarks/quality/bench_general.py --part dev"
    )
