"""`mt prepare --tokenizers-from RUN`: new data encoded with a trained run's labels, its coverage
measured, and runs that cannot serve refused with one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import run_cli
from mt.config import PrepareConfig
from mt.data.prepare import prepare_corpus
from mt.data.prepared_dir import load_prepared
from mt.data.tokenization import UNK, WordPieceCodec
from mt.errors import MtError
from mt.files import MODEL_JSON, SOURCE_TOKENIZER, TARGET_TOKENIZER

DOMAIN = [
    (f"The function number {i} returns a dictionary of keys.", f"La función {i} devuelve llaves.")
    for i in range(80)
] + [(f"Bruno likes bread {i} ÿ.", f"A Bruno le gusta el pan {i}.") for i in range(40)]


def domain_corpus(path: Path) -> Path:
    path.write_text("".join(f"{en}\t{es}\n" for en, es in DOMAIN), encoding="utf-8")
    return path


def test_new_data_is_encoded_with_the_runs_tokenizers(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "domain"
    result = prepare_corpus(
        domain_corpus(tmp_path / "domain.tsv"), out=out, config=PrepareConfig(src_vocab=50),
        tokenizers_from=trained_run,
    )  # fmt: skip
    for name in (SOURCE_TOKENIZER, TARGET_TOKENIZER):
        assert (out / name).read_bytes() == (trained_run / name).read_bytes()
    run_codec = WordPieceCodec.load(trained_run / SOURCE_TOKENIZER)
    prepared = load_prepared(out)
    english = prepared.read_part("train")[0][0]
    assert prepared.source.encode(english) == run_codec.encode(english)
    assert prepared.source.vocab_size == run_codec.vocab_size != 50, "--src-vocab is not used"

    lineage = result.info["tokenizers_from"]
    assert lineage["run"] == str(trained_run.resolve())
    assert lineage["arch"] == "transformer"
    assert set(lineage["sha256"]) == {SOURCE_TOKENIZER, TARGET_TOKENIZER}


def test_coverage_compares_the_new_data_with_the_base(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "domain"
    prepare_corpus(domain_corpus(tmp_path / "d.tsv"), out=out, tokenizers_from=trained_run)
    figures = json.loads((out / "prepare.json").read_text())["coverage"]
    new, base = figures["new"]["source"], figures["base"]["source"]
    # "function", "returns", "dictionary" were never seen: more pieces a word than the base's
    assert new["pieces_per_word"] > base["pieces_per_word"] >= 1.0
    assert new["unknown_share"] > 0 == base["unknown_share"]  # "ÿ" is in no training sentence
    codec = load_prepared(out).source
    train = load_prepared(out).read_part("train")
    pieces = [codec.encode(en) for en, _ in train]
    words = sum(len(en.split()) for en, _ in train)
    assert new["pieces_per_word"] == pytest.approx(sum(map(len, pieces)) / words, abs=1e-4)
    unknown = sum(ids.count(UNK) for ids in pieces) / sum(map(len, pieces))
    assert new["unknown_share"] == pytest.approx(unknown, abs=1e-6)


def test_the_summary_table_shows_coverage(trained_run: Path, tmp_path: Path) -> None:
    corpus = domain_corpus(tmp_path / "d.tsv")
    output = run_cli(
        "prepare", corpus, "--out", tmp_path / "p", "--tokenizers-from", trained_run
    ).output
    assert "coverage" in output and "pieces/word (base" in output


def copy_run(trained_run: Path, tmp_path: Path) -> Path:
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    return run


def set_model(run: Path, **changes: object) -> None:
    data = json.loads((run / MODEL_JSON).read_text())
    data["model"].update(changes)
    (run / MODEL_JSON).write_text(json.dumps(data))


def test_runs_that_cannot_serve_are_refused(trained_run: Path, tmp_path: Path) -> None:
    corpus = domain_corpus(tmp_path / "d.tsv")
    run = copy_run(trained_run, tmp_path)
    set_model(run, arch="conformer")
    cases = {run: r"run/model.json: unknown architecture 'conformer'"}
    export = tmp_path / "export"
    export.mkdir()
    (export / MODEL_JSON).write_text(json.dumps({"format": "mt-ctranslate2"}))
    cases[export] = r"is an `mt export` directory"
    cases[tmp_path / "nothing"] = "no such run directory"
    cases[tmp_path] = r"not a run directory of `mt train`"
    other = copy_run(trained_run, tmp_path / "o")
    set_model(other, src_vocab=999)
    cases[other] = r"its tokenizers have \d+/\d+ labels but its model.json says 999/"
    for bad, message in cases.items():
        with pytest.raises(MtError, match=message):
            prepare_corpus(corpus, out=tmp_path / "prep", tokenizers_from=bad)
        assert not (tmp_path / "prep").exists()
    output = run_cli("prepare", corpus, "-o", tmp_path / "prep", "--tokenizers-from", run, code=2)
    assert len(output.output.strip().splitlines()) == 1
