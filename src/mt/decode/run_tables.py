"""The tables prepare writes beside the tokenizers (lexicon.tsv, words.tsv), read from a run or an
export directory, which carries its own copies. A directory made before it carried them is
refused: the mt version that wrote it reads it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from mt.errors import MtError
from mt.storage.derived import derived
from mt.storage.files import LEXICON, WORD_STATS
from mt.text import dictionary, first_words, lexicon, normalize, sentence_ends, tables, wordstats
from mt.text.lexicon import Lexicon, lexicon_from_json, lexicon_to_json, read_lexicon
from mt.text.normalize import Normalizer, normalizer_from_json, normalizer_to_json
from mt.text.wordstats import WordStats, read_word_stats

T = TypeVar("T")


def table_of_run(model_dir: Path, name: str, *, read: Callable[[Path], T]) -> T:
    """The table `name` of `model_dir`, read from its own copy."""
    path = model_dir / name
    if not path.is_file():
        raise MtError(f"{model_dir}: no {name}; made by an older mt: use the version that wrote it")
    return read(path)


def lexicon_for(model_dir: Path) -> Lexicon:
    """The lexicon of a run or export directory (kept in the user's cache once read)."""

    def read(path: Path) -> Lexicon:
        return derived(
            path,
            kind="lexicon",
            code=(lexicon, tables),
            build=lambda: read_lexicon(path),
            encode=lexicon_to_json,
            decode=lexicon_from_json,
        )

    return table_of_run(model_dir, LEXICON, read=read)


def word_stats_for(model_dir: Path) -> WordStats:
    """The word statistics of a run or export directory: how the training English spells."""
    return table_of_run(model_dir, WORD_STATS, read=read_word_stats)


def normalizer_for(model_dir: Path) -> Normalizer:
    """The normaliser of a directory's word statistics (kept in the user's cache)."""

    def read(path: Path) -> Normalizer:
        return derived(
            path,
            kind="normalizer",
            code=(normalize, sentence_ends, wordstats, tables, dictionary),
            build=lambda: Normalizer.from_stats(read_word_stats(path)),
            encode=normalizer_to_json,
            decode=normalizer_from_json,
        )

    return table_of_run(model_dir, WORD_STATS, read=read)


def seen_words_for(model_dir: Path) -> frozenset[str]:
    """The words a directory's training English has, in lower case (the rest are never-seen:
    mt.decode.unseen), kept in the user's cache (parsing words.tsv outlasts a start-up)."""

    def read(path: Path) -> frozenset[str]:
        return derived(
            path,
            kind="seen-words",
            code=(wordstats, tables),
            build=lambda: frozenset(s.lower() for s in read_word_stats(path).spellings),
            encode=sorted,
            decode=frozenset,
        )

    return table_of_run(model_dir, WORD_STATS, read=read)


def first_word_candidates_for(model_dir: Path) -> frozenset[str]:
    """The lower-case words a sentence may begin with (mt.text.first_words), kept in the cache."""

    def read(path: Path) -> frozenset[str]:
        return derived(
            path,
            kind="first-words",
            code=(first_words, wordstats, tables),
            build=lambda: first_words.candidates(read_word_stats(path)),
            encode=sorted,
            decode=frozenset,
        )

    return table_of_run(model_dir, WORD_STATS, read=read)
