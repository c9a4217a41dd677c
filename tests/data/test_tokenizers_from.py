"""`mt prepare --tokenizers-from RUN`: new data encoded with a trained run's labels, its coverage
measured, and runs that cannot serve refused with one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import legacy_models, run_cli
from mt.catalog.modelinfo import resolve
from mt.config import PrepareConfig
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared, summary_rows
from mt.data.tokenization import PLACEHOLDERS, UNK, WordPieceCodec
from mt.errors import MtError
from mt.export.writer import export_run
from mt.storage.files import MODEL_JSON, SOURCE_TOKENIZER, TARGET_TOKENIZER

DOMAIN = [
    (f"The function number {i} returns a dictionary of keys.", f"La función {i} devuelve llaves.")
    for i in range(80)
] + [(f"Bruno likes bread {i} ÿ.", f"A Bruno le gusta el pan {i}.") for i in range(40)]


def domain_corpus(path: Path) -> Path:
    path.write_text("".join(f"{en}\t{es}\n" for en, es in DOMAIN), encoding="utf-8")
    return path


def test_no_extend_encodes_with_the_runs_tokenizers_as_they_are(
    trained_run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "domain"
    result = prepare_corpus(
        domain_corpus(tmp_path / "domain.tsv"), out=out,
        config=PrepareConfig(src_vocab=50, extend_vocab=False), tokenizers_from=trained_run,
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
    assert "vocabulary_growth" not in result.info
    assert UNK in prepared.source.encode("Bruno likes bread ÿ.")


def test_the_runs_vocabularies_grow_by_appending(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "domain"
    rare = [("Keep <this> 1.", "Guarda <esto> 1.")] * 4  # "<", ">" four times: not enough
    corpus = domain_corpus(tmp_path / "domain.tsv")
    with corpus.open("a", encoding="utf-8") as file:
        file.write("".join(f"{en}\t{es}\n" for en, es in rare))
    result = prepare_corpus(corpus, out=out, tokenizers_from=trained_run)
    run = WordPieceCodec.load(trained_run / SOURCE_TOKENIZER)
    grown = load_prepared(out).source
    assert [grown.id_to_piece(i) for i in range(run.vocab_size)] == [
        run.id_to_piece(i) for i in range(run.vocab_size)
    ], "every old id keeps its label"
    new = [grown.id_to_piece(i) for i in range(run.vocab_size, grown.vocab_size)]
    assert {"ÿ", "##ÿ"} <= set(new) and not {"<", "##<", ">"} & set(new), "'<' is too rare"
    assert not set(PLACEHOLDERS) & set(new), "the run has them already"
    growth = result.info["vocabulary_growth"]
    assert "ÿ" in growth["source"]["characters"] and growth["source"]["pieces"] == new
    assert growth["source"]["added"] == len(new) and growth["source"]["placeholders"] == 0
    assert "ÿ" not in growth["target"]["characters"] and growth["min_count"] == 5
    for en, _ in load_prepared(trained_run.parent / "data").read_part("train")[:100]:
        assert grown.encode(en) == run.encode(en)
    assert grown.decode(grown.encode("Bruno likes bread 7 ÿ.")) == "Bruno likes bread 7 ÿ."
    figures = result.info["coverage"]
    assert figures["new_before_growth"]["source"]["unknown_share"] > 0
    assert figures["new"]["source"]["unknown_share"] == 0
    assert result.info["vocabulary"]["source"] == run.vocab_size + len(new)


def test_an_old_run_gets_the_placeholders(tmp_path: Path) -> None:
    """A run trained before placeholders existed: they are appended to both sides."""
    run = copy_run(legacy_models() / "run", tmp_path)
    corpus = domain_corpus(tmp_path / "d.tsv")
    result = prepare_corpus(corpus, out=tmp_path / "p", tokenizers_from=run)
    prepared = load_prepared(tmp_path / "p")
    for side, codec in (("source", prepared.source), ("target", prepared.target)):
        old = WordPieceCodec.load(run / f"{side}-tokenizer.json")
        assert result.info["vocabulary_growth"][side]["placeholders"] == len(PLACEHOLDERS)
        assert codec.encode("｟1｠") == [codec.vocab_size - len(PLACEHOLDERS)]
        words = prepared.read_part("train")[0][0 if side == "source" else 1].split()
        text = " ".join([words[0], "｟3｠", *words[1:]])  # a sentence of the run's own letters
        assert codec.decode(codec.encode(text)) == text
        assert [codec.id_to_piece(i) for i in range(old.vocab_size)] == [
            old.id_to_piece(i) for i in range(old.vocab_size)
        ]
    rows = dict(summary_rows(result.info))
    assert "16 placeholders" in rows["vocabulary grown"] and "before growing" in rows["coverage"]


def test_coverage_compares_the_new_data_with_the_base(trained_run: Path, tmp_path: Path) -> None:
    out = tmp_path / "domain"
    prepare_corpus(
        domain_corpus(tmp_path / "d.tsv"), out=out, config=PrepareConfig(extend_vocab=False),
        tokenizers_from=trained_run,
    )  # fmt: skip
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
    assert "vocabulary grown" in output and "before growing" in output
    run_cli(
        "prepare", corpus, "--out", tmp_path / "q", "--tokenizers-from", trained_run, "--no-extend"
    )  # fmt: skip
    for name in (SOURCE_TOKENIZER, TARGET_TOKENIZER):
        assert (tmp_path / "q" / name).read_bytes() == (trained_run / name).read_bytes()
    assert (tmp_path / "p" / SOURCE_TOKENIZER).read_bytes() != (
        trained_run / SOURCE_TOKENIZER
    ).read_bytes()


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
    export_run(resolve(trained_run), export, quantization="float32")
    cases[export] = r"is an `mt export` directory"
    cases[tmp_path / "nothing"] = "no such model: not a model name"
    cases[tmp_path] = r"not a model directory \(no model.json\)"
    other = copy_run(trained_run, tmp_path / "o")
    set_model(other, src_vocab=999)
    cases[other] = r"its tokenizers have \d+/\d+ labels but its model.json says 999/"
    for bad, message in cases.items():
        with pytest.raises(MtError, match=message):
            prepare_corpus(corpus, out=tmp_path / "prep", tokenizers_from=bad)
        assert not (tmp_path / "prep").exists()
    output = run_cli("prepare", corpus, "-o", tmp_path / "prep", "--tokenizers-from", run, code=2)
    assert len(output.output.strip().splitlines()) == 1
