"""benchmarks/quality/ on tiny data: each benchmark runs to its end in this process and writes its
figures (a tiny model misses the stated targets; that the benchmark gets there is what counts)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import torch

from bench_support import figures, prepared_of, run_main, tiny_domains, tiny_general
from benchmarks.quality import (
    average_runs,
    bench,
    bench_arch,
    bench_domain,
    bench_everyday,
    bench_general,
)
from mt.model.checkpoint import load_tensors, save_tensors

pytestmark = pytest.mark.usefixtures("torch_threads")


def test_bench_prepares_trains_and_scores_a_recipe(tmp_path: Path, corpus_file: Path) -> None:
    run_main(
        bench.main, "--corpus", corpus_file, "--recipe", "thesis-small", "--budget", "2s",
        "--limit", 10, "--device", "cpu", "--out", tmp_path,
    )  # fmt: skip
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["recipe"] == "thesis-small" and results["steps"] > 0
    assert (tmp_path / "run" / "best.safetensors").is_file()


def test_bench_arch_trains_both_architectures(tmp_path: Path, corpus_file: Path) -> None:
    run_main(
        bench_arch.main, "--corpus", corpus_file, "--budget", "1s", "--limit", 3,
        "--eval-every", 5, "--device", "cpu", "--threads", 1, "--out", tmp_path,
    )  # fmt: skip
    results = json.loads((tmp_path / "results.json").read_text())["results"]
    assert set(results) == {"transformer", "rnn"}
    assert all(result["test"]["beam5"]["sentences_per_second"] > 0 for result in results.values())


def test_bench_domain_scores_each_domain(tmp_path: Path, trained_run: Path) -> None:
    out = tmp_path / "domains.json"
    run_main(
        bench_domain.main, "--run", f"tiny={trained_run}", "--tatoeba", prepared_of(trained_run),
        "--domains", tiny_domains(), "--limit", 4, "--json", out,
    )  # fmt: skip
    scores = json.loads(out.read_text())["runs"]["tiny"]["scores"]
    assert set(scores) == {"python-docs", "tldr", "libreoffice", "news", "tatoeba"}


def test_bench_general_scores_beside_a_peer(tmp_path: Path, trained_run: Path) -> None:
    run_main(
        bench_general.main, "--run", trained_run, "--tatoeba", prepared_of(trained_run),
        "--general", tiny_general(), "--domains", tiny_domains(), "--limit", 3, "--beam", 1,
        "--apertium", "cat", "--threads", 1, "--out", tmp_path,
    )  # fmt: skip
    sets = figures(tmp_path / "test.json")["sets"]
    assert {"flores", "news", "tico", "xquad", "tatoeba", "news-500"} <= set(sets)
    assert all(row["pairs"] <= 3 for row in sets.values())


def test_bench_everyday_scores_the_held_out_pairs_and_those_without_a_near_duplicate(
    tmp_path: Path, trained_run: Path
) -> None:
    prepared = prepared_of(trained_run)
    common = ("--runs", trained_run, "--parts", prepared, "--training", prepared / "train.tsv",
              "--beam", 1, "--apertium", "cat", "--threads", 1, "--out", tmp_path)  # fmt: skip
    run_main(bench_everyday.main, *common, "--near", 1.01)  # nothing is near enough: all kept
    sets = figures(tmp_path / "selection.json")["sets"]
    assert sets["no near-duplicate"]["pairs"] == sets["held out"]["pairs"] > 0
    assert set(sets["held out"]) == {"pairs", str(trained_run), "Apertium"}
    with pytest.raises(SystemExit, match="near-duplicate"):
        bench_everyday.main([str(arg) for arg in (*common, "--near", 0.0)])


def test_average_runs_writes_the_mean_of_two_runs_weights(
    tmp_path: Path, trained_run: Path
) -> None:
    half = tmp_path / "half"
    shutil.copytree(trained_run, half)
    weights, metadata = load_tensors(half / "best.safetensors")
    save_tensors(half / "best.safetensors", {k: v * 0 for k, v in weights.items()}, metadata)
    run_main(average_runs.main, trained_run, half, tmp_path / "soup", "--share", "0.25")
    soup, _ = load_tensors(tmp_path / "soup" / "best.safetensors")
    assert all(torch.allclose(soup[k], 0.75 * weights[k]) for k in weights)
    assert (tmp_path / "soup" / "model.json").read_text() == (
        trained_run / "model.json"
    ).read_text()


def test_averaged_branches_count_both_ledgers_and_leave_what_one_alone_scored(
    tmp_path: Path, trained_run: Path
) -> None:
    """Version 13: two annealed branches of the student, each with its CPU ledger and dev curve."""
    branches = [tmp_path / "seed-12", tmp_path / "seed-13"]
    for branch, seconds in zip(branches, (4811.37, 4558.57), strict=True):
        shutil.copytree(trained_run, branch)
        (branch / "cpu.json").write_text(json.dumps({"seconds": seconds, "scored": 1}))
        (branch / "dev-curve.csv").write_text("utc,step\n")
    run_main(average_runs.main, *branches, tmp_path / "soup")
    soup = tmp_path / "soup"
    assert json.loads((soup / "cpu.json").read_text())["seconds"] == 9369.94
    assert not (soup / "dev-curve.csv").exists() and not (soup / "checkpoints").exists()
    assert (soup / "train.json").read_text() == (branches[0] / "train.json").read_text()
