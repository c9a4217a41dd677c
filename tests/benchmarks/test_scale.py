"""benchmarks/scale/ on tiny data: synthetic_corpus and bench_memory (watching a small process) run
to their end and write their files; bench_scale's options and the A/B it times in-process."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bench_support import figures, run_main
from benchmarks.scale import bench_memory, bench_scale, synthetic_corpus
from benchmarks.scale.scale_train import MIN_ROUNDS, ABSettings, measure_sources
from conftest import invented_pairs, write_corpus
from mt.config import PrepareConfig
from mt.data.prepare.pipeline import prepare_corpus

pytestmark = pytest.mark.usefixtures("torch_threads")


def test_synthetic_corpus_writes_distinct_joined_pairs(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "synthetic.tsv"
    run_main(synthetic_corpus.main, "--corpus", corpus_file, "--pairs", "1k", "--out", out)
    lines = out.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(set(lines)) == 1000


def test_bench_scale_parses_its_options_and_times_its_ab(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """bench_scale's real run is six mt commands in processes of their own (about a minute on
    two busy cores: too long for the suite): its options, and the A/B it times in this process
    on a prepared directory, with enough pairs for its rounds of 64-sentence batches."""
    with pytest.raises(SystemExit) as done:
        bench_scale.main(["--help"])
    assert done.value.code == 0
    assert "python -m benchmarks.scale.bench_scale" in capsys.readouterr().out
    assert bench_scale.parse_sizes("4M,20k") == [("20k", 20_000), ("4M", 4_000_000)]
    keys = [(f"I have {n} keys.", f"Tengo {n} llaves.") for n in range(14, 300)]
    corpus = write_corpus(tmp_path / "corpus.tsv", invented_pairs() + keys)  # short sentences
    config = PrepareConfig(src_vocab=150, tgt_vocab=180)
    prepare_corpus(corpus, out=tmp_path / "prepared", config=config)
    settings = ABSettings(seconds=0.0, steps=1, warmup=1, max_rounds=MIN_ROUNDS, threads=1)
    result = measure_sources(tmp_path / "prepared", settings)
    assert len(result.round_ratios) == MIN_ROUNDS and result.ratio > 0


def test_bench_memory_samples_a_process_and_writes_its_growth(tmp_path: Path) -> None:
    """--attach: a process of a few MB for a second (its other way, `mt train` started with the
    arguments after --, takes seconds to start)."""
    grow = "import time\nfor _ in range(8): kept = [bytearray(4_000_000)]; time.sleep(0.15)"
    process = subprocess.Popen([sys.executable, "-c", grow])
    reaped = threading.Thread(target=process.wait)  # reaped as it ends: then /proc/PID is gone
    reaped.start()
    run_main(bench_memory.main, "--attach", process.pid, "--every", 0.1, "--out", tmp_path)
    reaped.join(30)
    assert figures(tmp_path / "results.json")["peak_mb"] > 0
    assert (tmp_path / "resident.csv").read_text().startswith("seconds,resident_mb\n")
    with pytest.raises(SystemExit, match="give `mt train` arguments after --"):
        bench_memory.main(["--out", str(tmp_path)])
