"""benchmarks/text/ on tiny data: each benchmark runs to its end in this process and writes or
prints its figures (a tiny model misses the stated targets; that the benchmark gets there is what
counts)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_support import exported, figures, prepared_of, run_main, tiny_domains
from benchmarks.text import (
    bench_documents,
    bench_formats,
    bench_real_typing,
    bench_standins,
    bench_text,
    generated_documents,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore::RuntimeWarning"),
    pytest.mark.usefixtures("torch_threads"),
]


def test_bench_text_measures_every_kind_of_input(
    trained_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(
        bench_text.main, "--run", trained_run, "--data", prepared_of(trained_run),
        "--limit", 8, "--names", 3, "--trips", 2, "--threads", 1,
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert "paragraphs of 4, --no-split" in printed and "co-process round trip" in printed


def test_bench_real_typing_scores_real_misspellings(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "real.json"
    run_main(
        bench_real_typing.main, "--run", trained_run, "--data", prepared_of(trained_run),
        "--limit", 8, "--threads", 1, "--more-seeds", 1, "--json", out,
    )  # fmt: skip
    scored = figures(out)
    assert "real typing, --normalize" in scored["rows"]
    assert [seed["seed"] for seed in scored["seeds"]] == [0, 1]
    assert scored["mean_gap"] == pytest.approx(sum(s["gap"] for s in scored["seeds"]) / 2)


def test_bench_standins_compares_the_three_rules(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "standins.json"
    run_main(
        bench_standins.main, "--run", trained_run, "--data", prepared_of(trained_run),
        "--limit", 8, "--threads", 1, "--json", out,
    )  # fmt: skip
    assert {key.split(" / ")[2] for key in figures(out)} == {"none", "old", "fixed"}


def test_bench_formats_translates_documents_with_run_and_export(
    trained_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "formats.json"
    run_main(
        bench_formats.main, "--run", trained_run, "--export", exported(trained_run),
        "--domains", tiny_domains(), "--limit", 4, "--pages", 2, "--po-files", 2,
        "--beam-size", 1, "--device", "cpu", "--json", out,
    )  # fmt: skip
    benched = figures(out)
    assert set(benched) == {"run", "export"}
    assert set(benched["run"]) == {"LibreOffice (HTML)", "tldr (Markdown)", "python-docs-es (.po)"}


def test_bench_documents_measures_each_format_as_documents_and_as_lines(
    trained_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "documents.json"
    run_main(
        bench_documents.main, "--model", trained_run, "--synthetic", "--sizes", 2, 4,
        "--target-kb", 4, "--layer-sizes", 2, 4, "--threads", 1, "--json", out,
    )  # fmt: skip
    benched = figures(out)
    assert set(benched["model"]) == {
        f"{f} {k} KB" for f in ("html", "markdown", "po", "srt") for k in (2, 4)
    }
    assert set(benched["layer"]) == set(benched["model"])
    row = benched["model"]["html 4 KB"]
    assert row["document"]["sentences"] == row["plain lines"]["sentences"] > 0
    assert row["document"]["KB"] >= 4


def test_bench_documents_memory_target_is_the_growth_beyond_plain_lines() -> None:
    def row(kb: float, beyond: float) -> dict:
        return {"document": {"KB": kb}, "peak MB beyond plain lines": beyond}

    model = {"html 10 KB": row(10, 0.0), "html 100 KB": row(100, 80.0)}
    flat = bench_documents._model_targets(
        {**model, "html 1000 KB": row(1000, 100.0)}, ["html"], [10, 100, 1000], 300
    )
    grown = bench_documents._model_targets(
        {**model, "html 1000 KB": row(1000, 150.0)}, ["html"], [10, 100, 1000], 300
    )
    assert [(t.value, t.met) for t in flat] == [(20.0, True)]  # 10 KB's figure is not used
    assert [(t.value, t.met) for t in grown] == [(70.0, False)]


def test_bench_documents_says_where_its_sentences_are_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = bench_documents.main(
        ["--text", str(tmp_path / "none.en"), "--json", str(tmp_path / "x.json")]
    )
    assert status == 2
    assert "give --text FILE" in capsys.readouterr().err


@pytest.mark.parametrize("form", generated_documents.FORMATS)
def test_generated_documents_reach_their_size_and_parse_as_their_format(form: str) -> None:
    from mt.decode.documents.formats import Format, read_document

    sentences = generated_documents.synthetic_sentences(400)
    text, used = generated_documents.generate(form, sentences, 8 * 1024)
    assert 8 * 1024 <= len(text.encode("utf-8")) < 10 * 1024
    _, document = read_document(text.encode("utf-8"), Format(form), name=f"g.{form}")
    words = " ".join(unit.text for unit in document.units)
    assert all(sentence.split()[-1].rstrip(".") in words for sentence in sentences[:used])
    with pytest.raises(ValueError, match="too few"):
        generated_documents.generate(form, sentences[:5], 8 * 1024)
