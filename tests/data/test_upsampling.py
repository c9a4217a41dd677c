from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from conftest import cli_output as invoke
from conftest import write_corpus
from mt.data.prepare.upsampling import corpus_repeats, row_repeats
from mt.data.prepared_dir import read_pairs


def test_temperature_one_keeps_every_corpus_as_it_is() -> None:
    assert corpus_repeats([100_000, 10_000, 37], 1.0) == [1, 1, 1]


def test_temperature_two_repeats_by_the_square_root_of_the_size_ratio() -> None:
    # Tatoeba, Python docs, tldr, news as `make model` has them.
    assert corpus_repeats([107_000, 37_777, 15_719, 10_068], 2.0) == [1, 2, 3, 3]
    # The largest corpus is never repeated; an empty one gets 1; a high T nears equal shares.
    assert corpus_repeats([50, 0], 2.0) == [1, 1]
    assert corpus_repeats([10_000, 100], 100.0) == [1, 95]


def test_only_training_rows_of_each_corpus_count_and_repeat() -> None:
    # Corpus 0: 4 rows (3 train); corpus 1: 3 rows (1 train, 1 test, 1 duplicate).
    part = np.array([0, 0, 1, 0, 0, 2, -1], dtype=np.int8)
    rows, per_corpus = row_repeats(part, [4, 3], 4.0)
    assert per_corpus == [1, 2]  # (3 train rows / 1) ** (1 - 1/4) = 2.28
    assert rows.tolist() == [1, 1, 1, 1, 2, 1, 1]  # the test row and the duplicate: once


def test_prepare_repeats_the_small_corpus_in_the_training_part_only(tmp_path: Path) -> None:
    big = write_corpus(tmp_path / "big.tsv")
    small_pairs = [(f"The box {n} is red.", f"La caja {n} es roja.") for n in range(40)]
    small = write_corpus(tmp_path / "small.tsv", small_pairs)
    common = ("--src-vocab", "150", "--tgt-vocab", "180", "--split", "0.8,0.1,0.1")
    invoke("prepare", big, small, "--out", tmp_path / "plain", *common)
    output = invoke(
        "prepare", big, small, "--out", tmp_path / "hot", *common, "--sampling-temperature", "3"
    )
    assert "training repeats (T=3)" in output
    info = json.loads((tmp_path / "hot" / "prepare.json").read_text(encoding="utf-8"))
    assert info["sampling_temperature"] == 3.0
    plain = read_pairs(tmp_path / "plain" / "train.tsv")
    hot = read_pairs(tmp_path / "hot" / "train.tsv")
    times = info["corpora"][1]["train_repeats"]
    big_train = sum(1 for en, _ in plain if not en.startswith("The box"))
    small_train = len(plain) - big_train
    assert times == round((big_train / small_train) ** (2 / 3)) > 1
    # Same split, same pairs: each small-corpus pair `times` times, the others once.
    counts = Counter(hot)
    assert set(counts) == set(plain)
    assert {counts[pair] for pair in plain if pair[0].startswith("The box")} == {times}
    assert {counts[pair] for pair in plain if not pair[0].startswith("The box")} == {1}
    for part in ("selection", "test"):
        assert (tmp_path / "hot" / f"{part}.tsv").read_bytes() == (
            tmp_path / "plain" / f"{part}.tsv"
        ).read_bytes()
    hot_ids = (tmp_path / "hot" / "train.en.offsets").stat().st_size
    assert hot_ids > (tmp_path / "plain" / "train.en.offsets").stat().st_size


def test_a_temperature_below_one_is_a_clear_error(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "c.tsv")
    output = invoke(
        "prepare", corpus, "--out", tmp_path / "p", "--sampling-temperature", "0.5", code=2
    )
    assert "--sampling-temperature must be 1 (corpora as they are) or more, got 0.5" in output
    assert not (tmp_path / "p").exists()
