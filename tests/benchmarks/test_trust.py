"""benchmarks/trust/ on tiny data: each benchmark runs to its end in this process and writes its
figures (a tiny model misses the stated targets; that the benchmark gets there is what counts)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench_support import figures, prepared_of, run_main, tiny_domains
from benchmarks.harness import MISSED, report
from benchmarks.trust import bench_glossary, bench_protect, bench_trust, bench_trust_choices

# A tiny model's few sentences give degenerate statistics (a constant column, one value a set).
pytestmark = [
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.usefixtures("torch_threads"),
]


@pytest.fixture
def run_copy(trained_run: Path, tmp_path: Path) -> Path:
    """A copy of the tiny run: bench_trust calibrates a run without calibration.json in place."""
    return Path(shutil.copytree(trained_run, tmp_path / "run"))


def test_bench_trust_calibrates_and_measures_every_set(
    run_copy: Path, trained_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "trust.json"
    run_main(
        bench_trust.main, "--run", run_copy, "--data", prepared_of(trained_run),
        "--domains", tiny_domains(), "--sentences", 12, "--domain-sentences", 4,
        "--threads", 1, "--out", out,
    )  # fmt: skip
    assert (run_copy / "calibration.json").is_file()
    assert set(figures(out)["sets"]) == {"test", "python-docs", "tldr", "libreoffice", "news"}


def test_bench_trust_choices_measures_and_chooses(
    run_copy: Path, trained_run: Path, tmp_path: Path
) -> None:
    data = prepared_of(trained_run)
    out = tmp_path / "choices.json"
    run_main(
        bench_trust_choices.main, "--model", run_copy, data / "selection.tsv", "--data", data,
        "--domains", tiny_domains(), "--sentences", 12, "--domain-sentences", 4,
        "--beam-size", 1, "--threads", 1, "--out", out,
    )  # fmt: skip
    chosen = figures(out)
    assert chosen["target_chosen"] in chosen["target_means"]
    assert list(chosen["models"]) == [f"{run_copy} beam 1"]


def test_bench_protect_prints_copy_rates(
    trained_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "protect.json"
    run_main(
        bench_protect.main, "--run", trained_run, "--domains", tiny_domains(), "--limit", 4,
        "--threads", 1, "--json", out,
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert "python-docs" in printed and "tldr" in printed
    assert [s["name"] for s in figures(out)["sets"]] == ["python-docs", "tldr", "tatoeba"]


def protected(url: tuple[int, int], bleu: tuple[float, float]) -> bench_protect.SetFigures:
    """A set's figures: `url` = (URLs copied with protection, of how many), BLEU (with, without);
    every name on the list copied, one capitalised word not on it lost."""
    copied, spans = url
    table = {
        "url": [copied, 0, spans],
        "name (--keep)": [5, 4, 5],
        bench_protect.UNLISTED: [0, 0, 1],
    }
    return bench_protect.SetFigures("tldr", 9, table, *bleu)


@pytest.mark.parametrize(
    ("tokens", "url", "bleu", "missed"),
    [
        (True, (100, 100), (60.0, 50.0), []),
        (True, (98, 100), (60.0, 50.0), ["tldr: url copied"]),
        (True, (100, 100), (49.0, 50.0), ["tldr: BLEU protected - plain"]),
        (False, (0, 100), (1.0, 2.0), []),  # stand-ins: no target stated
    ],
)
def test_bench_protect_exits_1_when_a_kind_or_bleu_misses(
    tokens: bool, url: tuple[int, int], bleu: tuple[float, float], missed: list[str], tmp_path: Path
) -> None:
    checks = bench_protect.targets(tokens, [protected(url, bleu)])
    assert [check.name for check in checks if not check.met] == missed
    assert len(checks) == (3 if tokens else 0)  # url, listed names and BLEU; never the unlisted
    assert report(tmp_path / "p.json", {}, checks, threads=1) == (MISSED if missed else 0)


def test_bench_glossary_measures_terms_with_and_without(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "glossary.json"
    run_main(bench_glossary.main, "--run", trained_run, "--domains", tiny_domains(), "--json", out)
    rows = figures(out)
    assert set(rows) == {"pytorch greedy", "pytorch beam 5"}
    assert all(row["glossary"]["terms"] > 0 for row in rows.values())
