"""benchmarks/speed/ on tiny data: each benchmark runs to its end in this process and writes or
prints its figures (a tiny model misses the stated targets; that the benchmark gets there is what
counts)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench_support import figures, prepared_of, run_main, tiny_domains, tiny_general
from benchmarks.speed import (
    bench_backtranslate,
    bench_evaluate,
    bench_export,
    bench_precision,
    bench_step,
    bench_step_floor,
    bench_student_shape,
    bench_train,
    bench_train_start,
    bench_translate,
)

pytestmark = pytest.mark.usefixtures("torch_threads")


def test_bench_train_times_both_models(
    corpus_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(
        bench_train.main, "--corpus", corpus_file, "--out", tmp_path, "--preset", "thesis-small",
        "--steps", 2, "--rounds", 1, "--batch-tokens", 400, "--device", "cpu",
    )  # fmt: skip
    assert "ratio mt / torch.nn.Transformer" in capsys.readouterr().out


def test_bench_translate_decodes_cached_and_uncached(
    corpus_file: Path, trained_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(
        bench_translate.main, "--corpus", corpus_file, "--run", trained_run, "--sentences", 4,
        "--device", "cpu", "--out", tmp_path,
    )  # fmt: skip
    assert "uncached sent/s" in capsys.readouterr().out


def test_bench_export_measures_each_engine(trained_run: Path, tmp_path: Path) -> None:
    run_main(
        bench_export.main, "--run", trained_run, "--data", prepared_of(trained_run),
        "--out", tmp_path, "--sentences", 4, "--threads", 1,
    )  # fmt: skip
    engines = {row["engine"] for row in figures(tmp_path / "results.json")}
    assert {"mt PyTorch fp32", "CT2 float32", "CT2 int8"} <= engines


def test_bench_precision_trains_and_decodes_in_each_mode(trained_run: Path, tmp_path: Path) -> None:
    run_main(
        bench_precision.main,
        "--prepared",
        prepared_of(trained_run),
        "--run",
        trained_run,
        "--steps",
        1,
        "--rounds",
        1,
        "--batch-size",
        4,
        "--sentences",
        3,
        "--threads",
        1,
        "--out",
        tmp_path,
    )  # fmt: skip  (4-sentence batches: bf16 on a CPU without bf16 instructions is slow)
    summary = json.loads((tmp_path / "results.json").read_text())
    assert summary["training"] and summary["decoding"]
    assert summary["command"].startswith("python")


def test_bench_backtranslate_times_an_engine_against_itself(tmp_path: Path) -> None:
    out = tmp_path / "backtranslate.json"
    run_main(
        bench_backtranslate.main, "--mono", tiny_general() / "un-news.es.tsv.xz", "--lines", 10,
        "--engine", "cat", "--threads", 1, "--json", out,
    )  # fmt: skip
    assert figures(out)["engine"]["command"] == "cat"


def test_bench_step_times_the_trainers_steps(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "step.json"
    run_main(
        bench_step.main, "--data", prepared_of(trained_run), "--steps", 2, "--warmup", 1,
        "--change", "batch_size=8", "--json", out,
    )  # fmt: skip
    measured = json.loads(out.read_text())
    assert len(measured["cpu_ms"]) == 2 and measured["changes"]["batch_size"] == 8


def test_bench_step_floor_times_the_matrix_products(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "floor.json"
    run_main(
        bench_step_floor.main, "--data", prepared_of(trained_run), "--warmup", 1, "--steps", 1,
        "--tries", 1, "--json", out,
    )  # fmt: skip
    assert figures(out)["matrix_floor_ms"] > 0


def test_bench_train_start_times_the_first_step_and_two_epochs(
    trained_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(
        bench_train_start.main, "--data", prepared_of(trained_run), "--init-from", trained_run,
        "--repeats", 1, "--pairs", 128, "--threads", 1, "--out", tmp_path,
    )  # fmt: skip
    found = json.loads((tmp_path / "results.json").read_text())["figures"]
    assert found["first_step_median"] > 0 and len(found["epoch_steps_per_second"]) == 2
    assert "first step" in capsys.readouterr().out


def test_bench_evaluate_times_both_commands_on_the_same_dev_lines(
    trained_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(
        bench_evaluate.main, "--model", trained_run, "--general", tiny_general(),
        "--domains", tiny_domains(), "--limit", 12, "--threads", 1, "--repeats", 1,
        "--out", tmp_path,
    )  # fmt: skip
    measured = figures(tmp_path / "results.json")
    assert measured["lines"] == sum(measured["sets"].values()) == 12
    assert len((tmp_path / "dev.hyps.es").read_text(encoding="utf-8").splitlines()) == 12
    assert measured["differing_lines"] == 0
    assert measured["bleu"]["evaluate"] == measured["bleu"]["translate"]
    assert measured["evaluate_report"]["search"].startswith("PyTorch")  # a run, not shipped
    assert min(measured["seconds"].values()) > 0
    assert "evaluate / translate" in capsys.readouterr().out


def test_bench_evaluate_says_the_shared_data_is_absent(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="general/tico19.tsv is absent: it needs ../shared"):
        bench_evaluate.main(["--general", str(tmp_path / "general"), "--out", str(tmp_path)])


def test_bench_student_shape_times_each_shape_at_the_same_output_lengths(
    trained_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "dev.tsv"
    data.write_text(
        "Where is the museum?\t¿Dónde está el museo?\n"
        "I have seven cats and a dog.\tTengo siete gatos y un perro.\n"
        "Ilse likes bread.\tA Ilse le gusta el pan.\n",
        encoding="utf-8",
    )
    run_main(
        bench_student_shape.main, "--data", data, "--model", trained_run,
        "--shapes", "today,student", "--repeats", 1, "--threads", 1, "--out", tmp_path,
    )  # fmt: skip
    measured = figures(tmp_path / "results.json")
    today, student = measured["shapes"]["today"], measured["shapes"]["student"]
    assert measured["lines"] == 3 and measured["forced_labels"] >= measured["reference_labels"]
    assert today["output_tokens"] == student["output_tokens"] == measured["forced_labels"]
    assert student["parameters"] > today["parameters"] and student["int8_bytes"] > 0
    assert student["shape"] == "6+2, d 256, ff 1536, 8 heads"
    assert "x today" in capsys.readouterr().out


def test_bench_student_shape_says_its_data_is_absent(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "tico19.tsv"
    assert bench_student_shape.main(["--data", str(missing), "--out", str(tmp_path)]) == 2
    assert f"{missing} is absent" in capsys.readouterr().err
