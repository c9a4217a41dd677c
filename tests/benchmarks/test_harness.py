"""Benchmarks with targets fail when they miss: benchmarks/harness.py writes the figures as JSON
with the machine, commit, date and command, and gives exit status 1 on a miss; every benchmark
that prints a miss goes through it."""

from __future__ import annotations

import ast
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


NO_TARGET = {
    "peers/peer_spm.py": "a sentencepiece tool that bench_peer's eole run calls",
    "quality/average_runs.py": "makes an averaged run for bench_general to score",
    "quality/bench.py": "the recipe's figures for a time budget, compared in docs/performance.md",
    "quality/bench_arch.py": "two architectures side by side: the comparison is the figure",
    "quality/bench_domain.py": "BLEU per domain for the runs given, compared in docs/domain.md",
    "quality/dev_curve.py": "appends a checkpoint's dev scores to the student's curve",
    "quality/student.py": "keeps the student training; its status is mt train's",
    "scale/synthetic_corpus.py": "writes a corpus for bench_scale",
    "speed/bench_precision.py": "the figures --precision auto decides from (mt.model.precision)",
    "speed/bench_step.py": "milliseconds a step, for comparing levers one at a time",
    "speed/bench_step_floor.py": "the floor under a step; it writes its figures with no target",
    "speed/bench_train.py": "mt's step against torch.nn.Transformer's: the ratio is the figure",
    "speed/bench_translate.py": "the key/value cache against recomputation: speed and BLEU",
    "text/bench_text.py": "text as people type it: BLEU per kind of input, compared in docs",
}
"""The benchmarks that state no target, and why; every other one reports through the harness."""
MISS_WORDS = re.compile(r"\bMISS(ED)?\b|\bnot met\b|\bmissed\b|\bFAIL(ED)?\b|short of", re.I)
"""What a benchmark prints when it compares a figure with a target and the figure falls short."""
COMMANDS = sorted(
    path
    for path in BENCHMARKS.rglob("*.py")
    if path.name != "harness.py" and re.search(r"^def main\(", path.read_text(), re.MULTILINE)
)


def named(path: Path) -> str:
    return path.relative_to(BENCHMARKS).as_posix()


def harness_report_calls(tree: ast.Module) -> set[str]:
    """How the module spells benchmarks.harness.report: `report` when imported by name,
    `harness.report` when the module is."""
    spellings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "benchmarks.harness":
            spellings |= {alias.asname or alias.name for alias in node.names} & {"report"}
        elif isinstance(node, ast.ImportFrom) and node.module == "benchmarks":
            harness_imported = any(a.name == "harness" and not a.asname for a in node.names)
            spellings |= {"harness.report"} if harness_imported else set()
    return spellings


def returned(tree: ast.Module, function: str = "main") -> list[str]:
    """What `function` can give back, followed through the module's own functions it returns:
    the callee's dotted name, or the value's source ("0", "2", "None" for a bare return)."""
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    body = functions[function]
    nested = {id(n) for f in ast.walk(body) if f is not body and isinstance(f, ast.FunctionDef)
              for n in ast.walk(f)}  # fmt: skip
    values = []
    for node in ast.walk(body):
        if not isinstance(node, ast.Return) or id(node) in nested:
            continue
        value = node.value
        callee = ast.unparse(value.func) if isinstance(value, ast.Call) else None
        if callee in functions and callee != function:
            values += returned(tree, callee)
        else:
            values.append(callee or ast.unparse(value or ast.Constant(None)))
    return values


def failing_status(value: str) -> bool:
    """A constant status that fails (data absent, bad options), never 0 or None."""
    return value.isdigit() and int(value) != 0


def exits_with_main(tree: ast.Module) -> bool:
    """`if __name__ == "__main__":` ends in `sys.exit(main(...))` or `raise SystemExit(main(...))`:
    main's status is the exit's."""
    exits = ("sys.exit(main(", "raise SystemExit(main(")
    for node in tree.body:
        if isinstance(node, ast.If) and "__main__" in ast.unparse(node.test):
            return any(e in ast.unparse(statement) for statement in node.body for e in exits)
    return False


def unreported(text: str) -> list[str]:
    """Why a benchmark's exit status could hide a miss: no `sys.exit(main())`, main() never
    returning benchmarks.harness.report's status, or returning something else than that or a
    failing constant."""
    tree = ast.parse(text)
    spellings, statuses = harness_report_calls(tree), returned(tree)
    faults = [] if exits_with_main(tree) else ["no sys.exit(main())"]
    faults += [] if spellings & set(statuses) else ["no return of harness.report"]
    return faults + sorted(s for s in statuses if s not in spellings and not failing_status(s))


@pytest.mark.parametrize("path", COMMANDS, ids=named)
def test_every_benchmark_with_a_target_exits_with_harness_reports_status(path: Path) -> None:
    """A benchmark states no target (NO_TARGET, and prints no miss), or main() returns
    benchmarks.harness.report's status on every path, and the script exits with it."""
    text = path.read_text(encoding="utf-8")
    if named(path) not in NO_TARGET:
        assert not unreported(text), f"{named(path)}: {unreported(text)} (or name it in NO_TARGET)"
        return
    assert exits_with_main(ast.parse(text)), named(path)
    misses = [s for s in re.findall(r"\"[^\"\n]*\"|'[^'\n]*'", text) if MISS_WORDS.search(s)]
    assert not misses, f"{named(path)} prints a miss {misses}: report it through the harness"


def test_the_benchmarks_without_a_target_are_still_there() -> None:
    assert set(NO_TARGET) <= {named(path) for path in COMMANDS}


def test_a_benchmark_that_drops_the_reports_status_is_caught() -> None:
    """The check above on altered copies of a real benchmark, whose main() returns 2 without
    --data and else its measure(), which returns report's status: one whose measure() reports
    and returns 0, one whose script does not exit with main's status."""
    original = (BENCHMARKS / "speed" / "bench_student_shape.py").read_text(encoding="utf-8")
    call = "    return report(args.out / "
    assert original.count(call) == 1 and not unreported(original)
    dropped = original.replace(call, "    report(args.out / ").replace(
        "\n\n\ndef read_pairs(", "\n    return 0\n\n\ndef read_pairs("
    )
    assert unreported(dropped) == ["no return of harness.report", "0"]
    no_exit = original.replace("sys.exit(main())", "main()")
    assert unreported(no_exit) == ["no sys.exit(main())"]


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
