"""benchmarks/serving/ on tiny data: bench_serve serves a tiny model with `mt serve` in a process of
its own and writes its figures; bench_shipped runs to its end with one
real cold `mt translate`, its other start-up timings (a dozen processes, some of them the shipped
model's) stood in for."""

from __future__ import annotations

import argparse
import contextlib
import inspect
import socket
from pathlib import Path

import pytest
from rich.console import Console

from bench_support import figures, prepared_of, run_main
from benchmarks.harness import MISSED, report
from benchmarks.serving import bench_serve, bench_shipped

pytestmark = pytest.mark.usefixtures("torch_threads")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_bench_serve_serves_a_model_under_load_and_soaks(trained_run: Path, tmp_path: Path) -> None:
    run_main(
        bench_serve.main, "--model", trained_run, "--sentences", 4, "--concurrency", "1,2",
        "--short-requests", 5, "--beams", 5, "--soak", 1, "--return-wait-ms", 0, "--threads", 1,
        "--port", free_port(), "--out", tmp_path,
    )  # fmt: skip
    (search,) = figures(tmp_path / "results.json")["searches"]
    assert [run["concurrency"] for run in search["runs"]] == [1, 2]
    assert search["soak"]["seconds"] > 0 and search["server_exit_code"] == 0


def served(*, failures: int = 0, same: int = 1000, many: float = 330.0, batch: float = 400.0,
           p95: float = 17.5, exit_code: int = 0, wrong: int = 0,
           rss_change: float = 0.036) -> dict:  # fmt: skip
    """bench_serve's figures for one greedy search at 1 and 32 clients (`many` sentences/s at 32,
    `batch` for `mt translate`); by default every target is met."""
    runs = [
        {"concurrency": c, "requests": 1000, "failures": f, "same_as_mt_translate": s,
         "sentences_per_second": speed}
        for c, f, s, speed in ((1, 0, 1000, 84.4), (32, failures, same, many))
    ]  # fmt: skip
    soak = {
        "unexpected_statuses": {"valid -> 500": wrong} if wrong else {},
        "rss_change": rss_change,
    }
    return {"searches": [{
        "search": "greedy", "runs": runs, "mt_translate_sentences_per_second": batch,
        "short_sentence_c1": {"p95_ms": p95}, "server_exit_code": exit_code, "soak": soak,
    }]}  # fmt: skip


@pytest.mark.parametrize(
    ("change", "missed"),
    [
        ({}, []),
        ({"failures": 1}, ["greedy: failed requests"]),
        ({"same": 999}, ["greedy: answers unlike mt translate's"]),
        ({"many": 250.0, "batch": 300.0}, ["greedy: 32 clients / 1 client, x"]),
        ({"batch": 500.0}, ["greedy: 32 clients / mt translate"]),
        ({"p95": 51.0}, ["greedy: one short sentence, p95 ms"]),
        ({"exit_code": -9}, ["greedy: server exit status"]),
        ({"wrong": 3}, ["greedy: soak, unexpected statuses"]),
        ({"rss_change": 0.11}, ["greedy: soak, memory growth"]),
    ],
)
def test_bench_serve_exits_1_on_each_missed_target(
    change: dict, missed: list[str], tmp_path: Path
) -> None:
    checks = bench_serve.targets(served(**change))
    assert [check.name for check in checks if not check.met] == missed
    status = report(tmp_path / "results.json", {}, checks, threads=1)
    assert status == (MISSED if missed else 0)


def test_bench_serve_trains_a_missing_model_with_start_trainings_options(
    corpus_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mt.train import launch

    calls = []
    signature = inspect.signature(launch.start_training)
    monkeypatch.setattr(launch, "start_training", lambda **kw: calls.append(signature.bind(**kw)))
    monkeypatch.setattr(bench_serve, "prepare_corpus", lambda *args, **kw: None)
    args = argparse.Namespace(
        model=tmp_path / "absent", out=tmp_path, corpus=corpus_file, train_budget="2s", threads=1
    )
    assert bench_serve.ensure_model(args, Console(quiet=True)) == tmp_path / "run"
    (call,) = calls
    assert call.arguments["changes"] == {"time_budget": 2.0}


def test_bench_shipped_measures_start_up_storage_and_the_language_check(
    trained_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seconds, printed = bench_shipped.cold_translate(str(trained_run))  # one real cold start
    assert seconds > 0 and printed
    monkeypatch.setattr(bench_shipped, "cold_translate", lambda model, sentence="": (0.5, "x"))
    monkeypatch.setattr(bench_shipped, "busy_machine", contextlib.nullcontext)
    monkeypatch.setattr(bench_shipped, "serve_first_answer", lambda model, port: 1.5)
    dev = prepared_of(trained_run) / "test.tsv"
    run_main(
        bench_shipped.main, "--model", trained_run, "--run", trained_run, "--dev", dev,
        "--limit", 4, "--language-check", dev, "--threads", 1, "--out", tmp_path,
    )  # fmt: skip
    measured = figures(tmp_path / "results.json")
    assert (
        measured["translate_cold_median"] == 0.5 and measured["serve_first_answer_seconds"] == 1.5
    )
    assert set(measured["formats"]["rows"]) == {
        "shipped, bfloat16 weights", "CTranslate2 int8 export", "run, float32 weights",
    }  # fmt: skip
    assert measured["language_check"]["en"]["lines"] > 0
