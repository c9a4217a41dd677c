"""A run or export directory without the tables prepare writes is refused in one line that says
what to do, and a words.tsv without its word pairs is too."""

from __future__ import annotations

from pathlib import Path

import pytest

from mt.decode.run_tables import lexicon_for, word_stats_for
from mt.errors import MtError
from mt.text.wordstats import read_word_stats


@pytest.mark.parametrize(
    ("read", "name"), [(lexicon_for, "lexicon.tsv"), (word_stats_for, "words.tsv")]
)
def test_a_directory_without_its_table_is_refused_in_one_line(
    read, name: str, tmp_path: Path
) -> None:
    with pytest.raises(MtError) as refused:
        read(tmp_path)
    message = str(refused.value)
    assert "\n" not in message
    assert message == f"{tmp_path}: no {name}; made by an older mt: use the version that wrote it"


def test_word_statistics_without_the_pair_table_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "words.tsv"
    path.write_text(
        "# training sentences: 1\nword\tfirst\tlater\nHello\t1\t0\n\n"
        "start\tsentences\tquestions\texclamations\nhello\t1\t0\t0\n",
        encoding="utf-8",
    )
    with pytest.raises(MtError, match=r"words.tsv: no table of word pairs; run `mt prepare` again"):
        read_word_stats(path)
