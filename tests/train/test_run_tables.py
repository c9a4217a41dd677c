"""A new run carries its prepared directory's tables: copied, or counted from the training part
of data prepared before them."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import LEGACY
from mt.text.lexicon import lexicon_of_part, read_lexicon
from mt.text.wordstats import PAIR_HEADER, read_word_stats, word_stats_of_part
from mt.train.run_tables import copy_tables

TRAIN = LEGACY / "data" / "train.tsv"


def test_data_prepared_before_the_tables_has_them_counted(tmp_path: Path) -> None:
    copy_tables(LEGACY / "data", tmp_path)
    assert read_lexicon(tmp_path / "lexicon.tsv") == lexicon_of_part(TRAIN)
    assert read_word_stats(tmp_path / "words.tsv") == word_stats_of_part(TRAIN)


def test_the_tables_are_copied_and_an_older_words_tsv_gets_an_empty_pair_table(
    tmp_path: Path,
) -> None:
    prepared, run = tmp_path / "prepared", tmp_path / "run"
    shutil.copytree(LEGACY / "data", prepared)
    run.mkdir()
    copy_tables(LEGACY / "data", prepared)
    words = (prepared / "words.tsv").read_text(encoding="utf-8")
    (prepared / "words.tsv").write_text(words[: words.index(f"\n{PAIR_HEADER}\n")] + "\n")
    copy_tables(prepared, run)
    assert (run / "lexicon.tsv").read_bytes() == (prepared / "lexicon.tsv").read_bytes()
    stats = read_word_stats(run / "words.tsv")
    assert stats.pairs == {} and stats.spellings == word_stats_of_part(TRAIN).spellings
