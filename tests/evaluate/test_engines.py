"""mt.evaluate.engines through `mt evaluate`: a shipped model is searched by its int8 CTranslate2
copy, as `mt translate` searches it, and scored teacher-forced by its PyTorch weights; an export
keeps CTranslate2 for both, with no accuracy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli_output, invented_pairs, ship_tiny
from mt.catalog.modelinfo import DEFAULT_MODEL, resolve
from mt.export.int8_copy import COPY
from mt.export.writer import export_run

# Sentences the tiny run was trained on, and two it never saw (the int8 copy may part from fp32
# on those).
PAIRS = invented_pairs()[::37] + [
    ("The committee approved the report on Tuesday.", "El comité aprobó el informe el martes."),
    ("Bruno likes the cold station.", "A Bruno le gusta la estación fría."),
]


@pytest.fixture()
def shipped(tmp_path: Path, trained_run: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return ship_tiny(tmp_path, trained_run, monkeypatch)


def files(tmp_path: Path) -> tuple[Path, Path]:
    """The pairs as an english<TAB>spanish file, and their English as a file of lines."""
    tsv, source = tmp_path / "pairs.tsv", tmp_path / "source.en"
    tsv.write_text("".join(f"{en}\t{es}\n" for en, es in PAIRS), encoding="utf-8")
    source.write_text("".join(f"{en}\n" for en, _ in PAIRS), encoding="utf-8")
    return tsv, source


def evaluate(tmp_path: Path, *args: str | Path) -> tuple[dict, str, str]:
    """The JSON report, the --hyps file and what `mt evaluate ARGS` printed."""
    report, hyps = tmp_path / "report.json", tmp_path / "hyps.es"
    output = cli_output("evaluate", *args, "--json", report, "--hyps", hyps)
    return json.loads(report.read_text(encoding="utf-8")), hyps.read_text(encoding="utf-8"), output


def translate(tmp_path: Path, source: Path, *args: str | Path) -> str:
    """What `mt translate -i SOURCE -o FILE ARGS` wrote."""
    out = tmp_path / "translated.es"
    cli_output("translate", "-i", source, "-o", out, *args)
    return out.read_text(encoding="utf-8")


def test_a_shipped_model_is_evaluated_through_the_copy_mt_translate_uses(
    shipped: Path, tmp_path: Path
) -> None:
    tsv, source = files(tmp_path)
    report, hyps, output = evaluate(tmp_path, "--tsv", tsv)
    assert report["search"].startswith("CTranslate2 int8")
    assert f"the CTranslate2 copy of {DEFAULT_MODEL}" in report["search"]
    assert (tmp_path / "home" / "models" / DEFAULT_MODEL / COPY / "model.bin").is_file()
    assert hyps == translate(tmp_path, source)
    assert len(hyps.splitlines()) == len(PAIRS) and report["bleu"] > 0
    # the accuracy comes from the PyTorch weights, not "n/a" as CTranslate2's scoring would give
    assert report["teacher_forced"].startswith(
        "PyTorch fp32 on the best weights, loaded beside the search"
    )
    assert 0 < report["accuracy"] < 1
    assert "n/a" not in output and "decoded by: CTranslate2 int8" in " ".join(output.split())


def test_the_teacher_forced_figures_are_the_weights_whichever_engine_searches(
    shipped: Path, tmp_path: Path
) -> None:
    tsv, source = files(tmp_path)
    through_copy, _, _ = evaluate(tmp_path, "--tsv", tsv)
    # --precision fp32 asks for PyTorch: no copy, the search's own model scores
    pytorch, hyps, _ = evaluate(tmp_path, "--tsv", tsv, "--precision", "fp32")
    assert pytorch["search"].startswith("PyTorch, fp32")
    assert pytorch["teacher_forced"].startswith("PyTorch fp32 on the weights it searched with")
    assert hyps == translate(tmp_path, source, "--precision", "fp32")
    assert through_copy["pairs"] == pytorch["pairs"] == len(PAIRS)
    assert through_copy["cross_entropy"] == pytorch["cross_entropy"]
    assert through_copy["accuracy"] == pytorch["accuracy"]


def test_an_export_is_searched_and_scored_by_ctranslate2(trained_run: Path, tmp_path: Path) -> None:
    export = tmp_path / "export"
    export_run(resolve(trained_run), export, quantization="int8")
    tsv, source = files(tmp_path)
    report, hyps, output = evaluate(tmp_path, export, "--tsv", tsv)
    assert report["search"].startswith("CTranslate2 int8") and "an `mt export`" in report["search"]
    assert report["teacher_forced"].startswith("CTranslate2 score_batch")
    assert report["accuracy"] is None and "n/a (export)" in output
    assert report["cross_entropy"] > 0
    assert hyps == translate(tmp_path, source, "--model", export)


def test_workers_of_one_thread_add_up_to_one_pass(trained_run: Path) -> None:
    import torch

    from mt.config import DecodeConfig
    from mt.data.feed.batching import encode_parts
    from mt.decode.options import TranslateOptions
    from mt.decode.translator import open_translator
    from mt.evaluate.engines import teacher_forcing

    options = TranslateOptions(decode=DecodeConfig(beam_size=1))
    translator = open_translator(resolve(trained_run), options, device="cpu")
    run = translator.run
    data = encode_parts(invented_pairs()[:50], [], run.source, run.target, run.info.train).train
    threads = torch.get_num_threads()
    one = teacher_forcing(translator, threads=1)
    three = teacher_forcing(translator, threads=3)
    assert three.name.endswith("3 workers of one thread") and one.name.endswith(", cpu")
    alone, split = one.score(data, run.info.train), three.score(data, run.info.train)
    assert torch.get_num_threads() == threads  # put back after the workers
    assert (split.correct, split.count) == (alone.correct, alone.count) and alone.count > 100
    assert split.loss == pytest.approx(alone.loss, rel=1e-6)  # float32 batches of other shapes
