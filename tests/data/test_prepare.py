"""`mt prepare` end to end through the CLI, and `load_prepared` reading its directory back."""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import cli_output as invoke
from conftest import invented_pairs, write_corpus
from mt.config import PrepareConfig
from mt.data.prepare.partition import tokenizer_sample_mask
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared, read_pairs
from mt.data.tokenization import UNK, WordPieceCodec
from mt.errors import MtError

SMALL_VOCAB = ["--src-vocab", "150", "--tgt-vocab", "180"]


def prepare(corpus: Path, out: Path, *extra: str | Path, code: int = 0) -> str:
    return invoke("prepare", corpus, "--out", out, *SMALL_VOCAB, *extra, code=code)


def test_prepare_writes_a_complete_directory(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    output = prepare(corpus_file, out)
    assert "prepared" in output and "train" in output
    assert sorted(p.name for p in out.iterdir()) == [
        "checksums.sha256",
        "lexicon.tsv",
        "prepare.json",
        "selection.en.ids",
        "selection.en.offsets",
        "selection.es.ids",
        "selection.es.offsets",
        "selection.tsv",
        "source-tokenizer.json",
        "target-tokenizer.json",
        "test.tsv",
        "train.en.ids",
        "train.en.offsets",
        "train.es.ids",
        "train.es.offsets",
        "train.tsv",
        "words.tsv",
    ]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    info = json.loads((out / "prepare.json").read_text(encoding="utf-8"))
    assert info["format_version"] == 2 and info["seed"] == 0 and info["split"] == [0.6, 0.2, 0.2]
    assert info["vocabulary"] == {
        "shared_vocab": False,
        "requested_source": 150,
        "requested_target": 180,
        "source": 150,
        "target": 180,
        "tokenizer_sample": info["counts"]["parts"]["train"]["pairs"],
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
        prepare_corpus(
            corpus_file,
            out=out,
            config=PrepareConfig(src_vocab=150, tgt_vocab=180, seed=7),
            force=True,
        )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(KeyboardInterrupt):
        prepare_corpus(
            corpus_file, out=tmp_path / "new", config=PrepareConfig(src_vocab=150, tgt_vocab=180)
        )
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
        (["--shared-vocab", "3"], "--shared-vocab must be more than 20"),
        (["--src-vocab", "2"], "--src-vocab must be more than 20"),
        (["--max-length", "-3"], "--max-length must be 0 (none) or a positive number of labels"),
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


# ----- streaming prepare: the split, token arrays, caps, samples, several corpora ----------------


def split_by_strings(
    pairs: list[tuple[str, str]], fractions: tuple[float, float, float], seed: int
) -> list[list[tuple[str, str]]]:
    """The split written the obvious way, on the sentences themselves: distinct English sentences
    in order of first appearance, shuffled with the seed, cut by the fractions."""
    codes, uniques = pd.factorize(pd.Series([en for en, _ in pairs], dtype=object))
    n_selection, n_test = (round(f * len(uniques)) for f in fractions[1:])
    part_of_group = np.zeros(len(uniques), dtype=np.int8)
    order = np.random.default_rng(seed).permutation(len(uniques))
    n_train = len(uniques) - n_selection - n_test
    part_of_group[order[n_train : n_train + n_selection]] = 1
    part_of_group[order[n_train + n_selection :]] = 2
    part = part_of_group[codes]
    return [[pair for pair, p in zip(pairs, part, strict=True) if p == k] for k in range(3)]


def test_split_is_the_split_of_grouping_the_strings(corpus_file: Path, tmp_path: Path) -> None:
    """Hash-based grouping gives exactly the parts (and order) of grouping the sentences, and every
    English sentence with all its translations is in one part only."""
    for seed, fractions in ((0, "0.6,0.2,0.2"), (5, "0.5,0.3,0.2")):
        out = tmp_path / f"prep{seed}"
        prepare(corpus_file, out, "--seed", seed, "--split", fractions)
        expected = split_by_strings(
            invented_pairs(), tuple(float(f) for f in fractions.split(",")), seed
        )
        prepared = load_prepared(out)
        parts = [prepared.read_part(part) for part in ("train", "selection", "test")]
        assert parts == expected
        for part in parts:
            assert len([es for en, es in part if en == "Thank you, Ilse!"]) in (0, 3)


def test_corpus_too_small_to_split(tmp_path: Path) -> None:
    path = write_corpus(tmp_path / "c.tsv", [("A.", "Una."), ("B.", "Be.")])
    output = prepare(path, tmp_path / "prep", code=2)
    assert "too small to split: 2 distinct English sentences" in output


def test_token_arrays_hold_the_encoded_parts(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out)
    prepared = load_prepared(out)
    for part in ("train", "selection"):
        pairs = prepared.read_part(part)
        encoded = prepared.encoded(part, max_src_len=1000, max_tgt_len=1000)
        assert encoded.source.dtype == np.uint16 and len(encoded) == len(pairs)
        assert [encoded.source.row(i).tolist() for i in range(len(pairs))] == (
            prepared.source.encode_batch([en for en, _ in pairs])
        )
        assert [encoded.target.row(i).tolist() for i in range(len(pairs))] == (
            prepared.target.encode_batch([es for _, es in pairs])
        )
    sums = dict(
        reversed(line.split("  ")) for line in (out / "checksums.sha256").read_text().splitlines()
    )
    assert set(sums) == {p.name for p in out.iterdir()} - {"checksums.sha256"}
    for name, digest in sums.items():
        assert hashlib.sha256((out / name).read_bytes()).hexdigest() == digest, name


def test_damaged_token_arrays_are_named(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out)
    ids = out / "train.en.ids"
    ids.write_bytes(ids.read_bytes()[:-2])
    with pytest.raises(MtError, match=r"train\.en\.ids has .* bytes, prepare\.json says"):
        load_prepared(out).encoded("train", max_src_len=50, max_tgt_len=50)
    (out / "train.en.ids").unlink()
    with pytest.raises(MtError, match=r"train\.en\.ids is missing; run `mt prepare` again"):
        load_prepared(out).encoded("train", max_src_len=50, max_tgt_len=50)


def test_held_out_parts_are_capped_and_the_rest_trains(corpus_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out, "--max-selection", 10, "--max-test", 3)
    prepared = load_prepared(out)
    parts = {name: prepared.read_part(name) for name in ("train", "selection", "test")}
    assert 0 < len(parts["selection"]) <= 10 and 0 < len(parts["test"]) <= 3
    assert sorted(sum(parts.values(), [])) == sorted(invented_pairs())
    english = {name: {en for en, _ in pairs} for name, pairs in parts.items()}
    assert not english["train"] & (english["selection"] | english["test"])
    assert prepared.info["max_selection"] == 10 and prepared.info["max_test"] == 3


def test_tokenizers_learn_from_a_seeded_sample(corpus_file: Path, tmp_path: Path) -> None:
    part = np.array([0, 1, 0, 0, -1, 2, 0, 0] * 50, dtype=np.int8)
    sample = tokenizer_sample_mask(part, size=30, seed=1)
    assert sample.sum() == 30 and (part[sample] == 0).all()
    assert (sample == tokenizer_sample_mask(part, size=30, seed=1)).all()
    assert not (sample == tokenizer_sample_mask(part, size=30, seed=2)).all()
    assert (tokenizer_sample_mask(part, size=10_000, seed=1) == (part == 0)).all()
    prepare(corpus_file, tmp_path / "prep", "--tokenizer-sample", 3)
    prepared = load_prepared(tmp_path / "prep")
    assert prepared.info["vocabulary"]["tokenizer_sample"] == 3
    # 3 sentences hold fewer distinct pieces than the whole training part
    assert prepared.source.vocab_size < 150


def test_line_aligned_compressed_pairs_and_several_corpora(tmp_path: Path) -> None:
    pairs = invented_pairs()
    half = len(pairs) // 2
    english = "".join(f"{en}\n" for en, _ in pairs[half:]).encode()
    spanish = "".join(f"{es}\n" for _, es in pairs[half:]).encode()
    (tmp_path / "b.en.gz").write_bytes(gzip.compress(english))
    (tmp_path / "b.es.xz").write_bytes(lzma.compress(spanish))
    write_corpus(tmp_path / "a.tsv", pairs[: half + 5])  # 5 pairs repeated across corpora
    out = tmp_path / "prep"
    invoke(
        "prepare", tmp_path / "a.tsv", "--source-file", tmp_path / "b.en.gz",
        "--target-file", tmp_path / "b.es.xz", "--out", out, *SMALL_VOCAB,
    )  # fmt: skip
    prepared = load_prepared(out)
    parts = [prepared.read_part(name) for name in ("train", "selection", "test")]
    assert sorted(sum(parts, [])) == sorted(pairs)
    corpora = prepared.info["corpora"]
    assert [c["name"] for c in corpora] == [
        str(tmp_path / "a.tsv"),
        f"{tmp_path / 'b.en.gz'} + {tmp_path / 'b.es.xz'}",
    ]
    assert [c["pairs"] for c in corpora] == [half + 5, len(pairs) - half - 5]
    assert [c["duplicates"] for c in corpora] == [0, 5]
    assert prepared.info["counts"]["duplicates"] == 5
    listing = tmp_path / "corpora.txt"
    listing.write_text("# two corpora\na.tsv\nb.en.gz\tb.es.xz\n", encoding="utf-8")
    invoke("prepare", "--corpus-list", listing, "--out", tmp_path / "listed", *SMALL_VOCAB)
    listed = load_prepared(tmp_path / "listed")
    assert listed.read_part("train") == prepared.read_part("train")


def test_misaligned_pair_is_one_clear_line(tmp_path: Path) -> None:
    (tmp_path / "x.en").write_text("One.\nTwo.\nThree.\n", encoding="utf-8")
    (tmp_path / "x.es").write_text("Uno.\nDos.\n", encoding="utf-8")
    output = invoke(
        "prepare", "--source-file", tmp_path / "x.en", "--target-file", tmp_path / "x.es",
        "--out", tmp_path / "prep", code=2,
    )  # fmt: skip
    assert "x.en has 3 lines but" in output and "x.es has 2" in output
    assert len(output.strip().splitlines()) == 1 and not (tmp_path / "prep").exists()
    output = invoke("prepare", "--source-file", tmp_path / "x.en", "--out", tmp_path / "p", code=2)
    assert "1 --source-file but 0 --target-file" in output


def test_filters_are_counted(tmp_path: Path) -> None:
    pairs = [*invented_pairs(), ("OK", "OK"), ("Short.", "Una frase mucho mucho mucho más larga.")]
    path = write_corpus(tmp_path / "c.tsv", pairs)
    out = tmp_path / "prep"
    invoke(
        "prepare", path, "--out", out, "--drop-identical", "--max-ratio", "3", "--max-words",
        "40", *SMALL_VOCAB,
    )  # fmt: skip
    counts = load_prepared(out).info["counts"]
    assert sum(counts["filtered"].values()) == 2
    assert counts["pairs"] == len(invented_pairs())


def test_an_older_prepared_directory_asks_for_prepare_again(
    corpus_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "prep"
    prepare(corpus_file, out)
    info = json.loads((out / "prepare.json").read_text(encoding="utf-8"))
    (out / "prepare.json").write_text(json.dumps({**info, "format_version": 1}))
    output = invoke("train", out, "--out", tmp_path / "run", "--max-steps", "1", code=2)
    assert "prepared format version 1, this mt reads version 2; run `mt prepare` again" in output


def test_max_length_leaves_long_pairs_out_of_text_and_arrays(
    corpus_file: Path, tmp_path: Path
) -> None:
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    prepare(corpus_file, whole)
    lengths = load_prepared(whole).info["lengths"]
    limit = int(lengths["train"]["target"]["mean"])  # about half the training pairs are longer
    prepare(corpus_file, cut, "--max-length", str(limit))
    before, after = load_prepared(whole), load_prepared(cut)
    counts = after.info["counts"]
    assert after.info["filters"]["max_length"] == limit
    left_out = counts["filtered"][f"more than {limit} labels"]
    assert left_out > 0 and counts["pairs"] == before.info["counts"]["pairs"] - left_out
    for part in ("train", "selection", "test"):
        pairs = after.read_part(part)
        assert counts["parts"][part]["pairs"] == len(pairs)
        assert set(pairs) <= set(before.read_part(part))  # same split, fewer pairs
        for en, es in pairs:
            assert len(after.source.encode(en)) <= limit >= len(after.target.encode(es))
    for part in ("train", "selection"):  # the arrays stay row for row the text
        pairs = after.read_part(part)
        encoded = after.encoded(part, max_src_len=1000, max_tgt_len=1000)
        assert [encoded.target.row(i).tolist() for i in range(len(encoded))] == (
            after.target.encode_batch([es for _, es in pairs])
        )
    assert "no training pair left with --max-length 1" in prepare(
        corpus_file, tmp_path / "none", "--max-length", "1", code=2
    )


def test_sigterm_stops_prepare_like_ctrl_c_and_leaves_nothing_behind(tmp_path: Path) -> None:
    # A corpus big enough that prepare is still reading when the signal comes.
    rows = [f"Sentence number {n} is here.\tLa frase número {n} está aquí." for n in range(60_000)]
    corpus = tmp_path / "big.tsv"
    corpus.write_text("\n".join(rows) + "\n", encoding="utf-8")
    out = tmp_path / "prep"
    process = subprocess.Popen(
        [sys.executable, "-m", "mt", "prepare", str(corpus), "--out", str(out)],
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".prep.preparing-*")) and time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.tsv"]
