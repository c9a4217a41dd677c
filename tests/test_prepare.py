"""`mt prepare` end to end through the CLI, and `load_prepared` reading its directory back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli_output as invoke
from conftest import invented_pairs, write_corpus
from mt.errors import MtError
from mt.prepare import load_prepared, prepare_corpus, read_pairs
from mt.tokenization import UNK, WordPieceCodec

SMALL_VOCAB = ["--src-vocab", "150", "--tgt-vocab", "180"]


def prepare(corpus: Path, out: Path, *extra: str | Path, code: int = 0) -> str:
    return invoke("prepare", corpus, "--out", out, *SMALL_VOCAB, *extra, code=code)


def test_prepare_writes_a_complete_directory(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    output = prepare(corpus_file, out)
    assert "prepared" in output and "train" in output
    assert sorted(p.name for p in out.iterdir()) == [
        "prepare.json",
        "selection.tsv",
        "source-tokenizer.json",
        "target-tokenizer.json",
        "test.tsv",
        "train.tsv",
    ]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    info = json.loads((out / "prepare.json").read_text(encoding="utf-8"))
    assert info["format_version"] == 1 and info["seed"] == 0 and info["split"] == [0.6, 0.2, 0.2]
    assert info["vocabulary"] == {
        "shared_vocab": False,
        "requested_source": 150,
        "requested_target": 180,
        "source": 150,
        "target": 180,
    }
    parts = info["counts"]["parts"]
    assert sum(part["pairs"] for part in parts.values()) == len(invented_pairs())
    assert set(info["lengths"]["test"]["target"]) == {"mean", "p95", "p99", "max"}
    assert info["elapsed_seconds"] >= 0


def test_prepared_parts_are_grouped_and_read_back(corpus_file: Path, tmp_path: Path) -> None:
    prepare(corpus_file, tmp_path / "prep")
    prepared = load_prepared(tmp_path / "prep")
    parts = {name: prepared.read_part(name) for name in ("train", "selection", "test")}
    assert sorted(sum(parts.values(), [])) == sorted(invented_pairs())
    english = {name: {en for en, _ in pairs} for name, pairs in parts.items()}
    assert not english["train"] & (english["selection"] | english["test"])
    assert not english["selection"] & english["test"]
    assert prepared.info["counts"]["parts"]["test"]["pairs"] == len(parts["test"])
    assert prepared.source.vocab_size == 150 and prepared.target.vocab_size == 180


def test_spanish_round_trips_through_the_target_tokenizer(
    corpus_file: Path, tmp_path: Path
) -> None:
    prepare(corpus_file, tmp_path / "prep")
    prepared = load_prepared(tmp_path / "prep")
    spanish = [es for _, es in prepared.read_part("test")]
    ids = prepared.target.encode_batch(spanish)
    assert all(UNK not in sentence for sentence in ids)
    assert [prepared.target.decode(sentence) for sentence in ids] == spanish


def test_same_seed_same_split_other_seed_other_split(corpus_file: Path, tmp_path: Path) -> None:
    for name, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        prepare(corpus_file, tmp_path / name, "--seed", seed)
    test = {name: (tmp_path / name / "test.tsv").read_text(encoding="utf-8") for name in "abc"}
    assert test["a"] == test["b"] != test["c"]


def test_shared_vocabulary_writes_one_tokenizer_twice(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out, "--shared-vocab", "200")
    source = (out / "source-tokenizer.json").read_bytes()
    assert source == (out / "target-tokenizer.json").read_bytes()
    info = load_prepared(out).info["vocabulary"]
    assert info["shared_vocab"] and info["source"] == info["target"] == 200


def test_existing_directory_needs_force(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out, "--seed", "1")
    output = prepare(corpus_file, out, code=2)
    assert "already exists; use --force" in output
    prepare(corpus_file, out, "--force")
    assert load_prepared(out).info["seed"] == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.tsv", "prep"]


def test_force_never_replaces_a_directory_mt_did_not_write(
    corpus_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    output = prepare(corpus_file, out, "--force", code=2)
    assert "not a prepared directory" in output
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_failed_run_leaves_the_old_directory_alone(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out)
    before = (out / "train.tsv").read_text(encoding="utf-8")
    tiny = write_corpus(tmp_path / "tiny.tsv", [("A.", "Una."), ("B.", "Be.")])
    assert "too small to split" in prepare(tiny, out, "--force", code=2)
    assert (out / "train.tsv").read_text(encoding="utf-8") == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_interrupted_run_leaves_no_half_prepared_directory(
    corpus_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def interrupted(self: WordPieceCodec, path: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(WordPieceCodec, "save", interrupted)
    with pytest.raises(KeyboardInterrupt):
        prepare_corpus(corpus_file, out=out, src_vocab=150, tgt_vocab=180, seed=7, force=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(KeyboardInterrupt):
        prepare_corpus(corpus_file, out=tmp_path / "new", src_vocab=150, tgt_vocab=180)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.tsv", "prep"]


def test_bad_lines_are_skipped_or_stop_with_strict(tmp_path: Path) -> None:
    pairs = invented_pairs()
    path = tmp_path / "c.tsv"
    lines = [f"{en}\t{es}" for en, es in pairs]
    lines.insert(3, "a line without a tab")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    output = prepare(path, tmp_path / "prep")
    assert "line 4: one column" in output
    info = load_prepared(tmp_path / "prep").info
    assert info["counts"]["dropped"] == {"one column: expected english<TAB>spanish": 1}
    assert info["bad_line_examples"] == [f"{path} line 4: one column: expected english<TAB>spanish"]
    output = prepare(path, tmp_path / "strict", "--strict", code=2)
    assert "c.tsv line 4: one column" in output and "--strict" in output
    assert not (tmp_path / "strict").exists()


def test_explicit_selection_and_test_files(corpus_file: Path, tmp_path: Path) -> None:
    selection = write_corpus(tmp_path / "sel.tsv", [("Thank you, Ilse!", "¡Gracias, Ilse!")])
    test = write_corpus(tmp_path / "test.tsv", [("Bruno likes soup.", "A Bruno le gusta la sopa.")])
    out = tmp_path / "prep"
    prepare(corpus_file, out, "--selection", selection, "--test", test)
    prepared = load_prepared(out)
    assert prepared.read_part("test") == [("Bruno likes soup.", "A Bruno le gusta la sopa.")]
    assert len(prepared.read_part("train")) == len(invented_pairs()) - 4
    assert prepared.info["counts"]["excluded_from_train"] == 4


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--selection", "sel.tsv"], "give both --selection and --test"),
        (["--split", "0.5,0.5"], "--split must be three positive fractions"),
        (["--shared-vocab", "3"], "--shared-vocab must be more than 4"),
        (["--src-vocab", "2"], "--src-vocab must be more than 4"),
    ],
)
def test_bad_options_are_clear_errors(
    corpus_file: Path, tmp_path: Path, extra: list[str], message: str
) -> None:
    write_corpus(tmp_path / "sel.tsv", [("A.", "Una.")])
    extra = [str(tmp_path / arg) if arg.endswith(".tsv") else arg for arg in extra]
    assert message in prepare(corpus_file, tmp_path / "prep", *extra, code=2)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "does not exist"),
        (b"", "is empty"),
        (b"\x00\x01binary", "looks like a binary file"),
        ("Coffee.\tCafé.\n".encode("latin-1"), "not valid UTF-8"),
        (b"english,spanish\n", "no valid English-Spanish pair"),
        (b"one\ntwo\n", "no valid English-Spanish pair"),
    ],
)
def test_bad_corpus_files_exit_2_with_one_line(
    tmp_path: Path, content: bytes | None, message: str
) -> None:
    path = tmp_path / "corpus.tsv"
    if content is not None:
        path.write_bytes(content)
    output = prepare(path, tmp_path / "prep", code=2)
    assert message in output and output.startswith("error:")
    assert len(output.strip().splitlines()) == 1


def test_directory_as_corpus(tmp_path: Path) -> None:
    assert "is a directory" in prepare(tmp_path, tmp_path / "prep", code=2)


def test_load_prepared_names_what_is_missing(corpus_file: Path, tmp_path: Path) -> None:
    with pytest.raises(MtError, match="does not exist; run `mt prepare"):
        load_prepared(tmp_path / "nothing")
    out = tmp_path / "prep"
    prepare(corpus_file, out)
    (out / "selection.tsv").unlink()
    with pytest.raises(MtError, match=r"incomplete: missing selection\.tsv; run `mt prepare`"):
        load_prepared(out)


def test_load_prepared_refuses_another_format(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out)
    info = json.loads((out / "prepare.json").read_text(encoding="utf-8"))
    (out / "prepare.json").write_text(json.dumps({**info, "format_version": 99}))
    with pytest.raises(MtError, match="prepare.json: prepared format version 99"):
        load_prepared(out)


def test_damaged_part_file_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "train.tsv"
    path.write_text("One.\tUno.\nbroken\n", encoding="utf-8")
    with pytest.raises(MtError, match=r"train\.tsv line 2: expected english<TAB>spanish"):
        read_pairs(path)


def test_help_lists_every_command() -> None:
    output = invoke("--help")
    for command in ("download", "prepare", "train", "translate", "evaluate"):
        assert command in output
