"""The tables prepare writes beside the tokenizers (lexicon.tsv, words.tsv), found for a run or
an export: its own copy, else (a directory made before the table existed) the copy in the
prepared directory its train.json names, else counted from that directory's training part,
else the empty table when the data is gone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mt.data.prepared_dir import PART_FILES
from mt.errors import MtError
from mt.files import LEXICON, WORD_STATS
from mt.model.rundir import read_train_config
from mt.text.lexicon import NO_LEXICON, Lexicon, lexicon_of_part, read_lexicon
from mt.text.normalize import Normalizer
from mt.text.wordstats import NO_WORD_STATS, WordStats, read_word_stats, word_stats_of_part

T = TypeVar("T")


def table_of_run(
    model_dir: Path,
    name: str,
    *,
    read: Callable[[Path], T],
    count: Callable[[Path], T],
    absent: T,
) -> T:
    """The table `name` of `model_dir`, by the first of the four ways above that works."""
    own = model_dir / name
    if own.is_file():
        return read(own)
    prepared = prepared_dir_of(model_dir)
    if prepared is None:
        return absent
    if (prepared / name).is_file():
        return read(prepared / name)
    return count(prepared / PART_FILES["train"])


def prepared_dir_of(model_dir: Path) -> Path | None:
    """Where the run's training data was, if train.json says and the part file is still there."""
    try:
        prepared = read_train_config(model_dir)[1]
    except MtError:
        return None
    return prepared if (prepared / PART_FILES["train"]).is_file() else None


def lexicon_for(model_dir: Path) -> Lexicon:
    """The lexicon of a run or export directory: its own lexicon.tsv; for one made before there
    were lexicons, that of the prepared directory its train.json names (counted from its training
    part if it has none); an empty lexicon when that directory is gone."""
    return table_of_run(
        model_dir, LEXICON, read=read_lexicon, count=lexicon_of_part, absent=NO_LEXICON
    )


def word_stats_for(model_dir: Path) -> WordStats:
    """The word statistics of a run or export directory: its own words.tsv; for one made before
    there were any, those of the prepared directory its train.json names (counted from its
    training part if it has none); nothing when that directory is gone."""
    return table_of_run(
        model_dir, WORD_STATS, read=read_word_stats, count=word_stats_of_part, absent=NO_WORD_STATS
    )


def normalizer_for(model_dir: Path) -> Normalizer:
    return Normalizer.from_stats(word_stats_for(model_dir))
