"""The tables a new run carries (lexicon.tsv, words.tsv), so that it translates without its
prepared directory: copied from that directory, or counted from its training part where it was
prepared before the tables existed."""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from mt.data.prepare.synthetic import is_synthetic
from mt.data.prepared_dir import PART_FILES
from mt.storage.atomic import atomic_write_text
from mt.storage.files import LEXICON, WORD_STATS
from mt.text.lexicon import lexicon_of_part, write_lexicon
from mt.text.wordstats import PAIR_HEADER, word_stats_of_part, write_word_stats


def copy_tables(prepared_dir: Path, run_dir: Path) -> None:
    """Both tables of `prepared_dir` into `run_dir`; a words.tsv written before its table of word
    pairs gets an empty one, as it was read."""
    part = prepared_dir / PART_FILES["train"]
    if (prepared_dir / LEXICON).is_file():
        shutil.copyfile(prepared_dir / LEXICON, run_dir / LEXICON)
    else:
        write_lexicon(run_dir / LEXICON, lexicon_of_part(part))
    words = prepared_dir / WORD_STATS
    if not words.is_file():
        count = functools.partial(word_stats_of_part, machine_made=is_synthetic)
        write_word_stats(run_dir / WORD_STATS, count(part))
        return
    text = words.read_text(encoding="utf-8")
    if PAIR_HEADER not in text.split("\n"):
        text = text.rstrip("\n") + f"\n\n{PAIR_HEADER}\n"
    atomic_write_text(run_dir / WORD_STATS, text)
