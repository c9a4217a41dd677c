"""The lexicon of capitalised words: counted from training pairs, written by `mt prepare`, read
back exactly, and refused with one line when damaged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import invented_pairs, write_corpus
from mt.config import PrepareConfig
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared
from mt.errors import MtError
from mt.text.lexicon import (
    Lexicon,
    WordCounts,
    build_lexicon,
    lexicon_from_json,
    lexicon_to_json,
    read_lexicon,
    write_lexicon,
)

PAIRS = [
    ("Kowalski lives in Warsaw.", "Kowalski vive en Varsovia."),
    ("Kowalski and Kowalski's dog.", "Kowalski y el perro de Kowalski."),
    ("Allow me, Kowalski.", "Permítame, Kowalski."),
    ("Please allow it.", "Por favor, permítelo."),
    ("They allow dogs.", "Permiten perros."),
    ("I met McDonald.", "Conocí a McDonald."),
]


def test_each_capitalised_word_is_counted_once_a_pair() -> None:
    lexicon = build_lexicon(PAIRS)
    assert lexicon.pairs == 6
    assert lexicon.get("Kowalski") == WordCounts(capitalised=3, copied=3, lower=0)
    assert lexicon.get("Warsaw") == WordCounts(capitalised=1, copied=0, lower=0)
    assert lexicon.get("Allow") == WordCounts(capitalised=1, copied=0, lower=2)
    assert lexicon.get("McDonald") == WordCounts(capitalised=1, copied=1, lower=0)
    assert lexicon.get("They") == WordCounts(capitalised=1, copied=0, lower=0)
    assert lexicon.copied_share("Kowalski") == 1.0
    assert lexicon.copied_share("Warsaw") is None, "one pair is too few to tell"
    assert lexicon.known_lower("Allow") and not lexicon.known_lower("Kowalski")


def test_a_pair_repeated_in_a_row_is_counted_once() -> None:
    # As `mt prepare` writes an upsampled corpus: one pair naming the sitcom, many times over,
    # must not outweigh the sentences that translate "Happy".
    sitcom = ("Who starred in Happy Days?", "¿Quién actuó en Happy Days?")
    wishes = [("Happy birthday!", "¡Feliz cumpleaños!"), ("Happy Easter!", "¡Felices Pascuas!")]
    lexicon = build_lexicon([sitcom] * 12 + wishes + [sitcom])
    assert lexicon.pairs == 4, "the repeats in a row count once; the later one is a pair again"
    assert lexicon.get("Happy") == WordCounts(capitalised=4, copied=2, lower=0)
    assert build_lexicon([sitcom] * 12 + wishes).copied_share("Happy") == pytest.approx(1 / 3)


def test_a_lower_case_word_seen_twice_is_known_under_its_capitalised_form() -> None:
    lexicon = build_lexicon([("They allow dogs.", ""), ("We allow cats.", "")])
    assert lexicon.get("Allow") == WordCounts(capitalised=0, copied=0, lower=2)
    assert lexicon.known_lower("Allow")
    assert lexicon.get("Dogs") is None, "seen once in lower case: left out of the file"


def test_the_file_reads_back_as_written(tmp_path: Path) -> None:
    lexicon = build_lexicon(PAIRS)
    write_lexicon(tmp_path / "lexicon.tsv", lexicon)
    assert read_lexicon(tmp_path / "lexicon.tsv") == lexicon
    lines = (tmp_path / "lexicon.tsv").read_text(encoding="utf-8").splitlines()
    assert lines[:3] == [
        "# training pairs: 6",
        "word\tcapitalised\tcopied\tlower",
        "Allow\t1\t0\t2",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["lexicon.tsv"], "no temporary file left"


def test_the_cached_json_reads_back_as_the_lexicon() -> None:
    for lexicon in (build_lexicon(PAIRS), Lexicon(words={}, pairs=0)):
        back = lexicon_from_json(json.loads(json.dumps(lexicon_to_json(lexicon))))
        assert back == lexicon
        assert dict(back.words) == dict(lexicon.words)
    assert back.get("Kowalski") is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "not a lexicon written by `mt prepare`"),
        ("word\tcapitalised\tcopied\tlower\n", "not a lexicon written by `mt prepare`"),
        ("# training pairs: 6\nword\tcount\n", "not a lexicon written by `mt prepare`"),
        ("# training pairs: x\nword\tcapitalised\tcopied\tlower\n", "line 1: 'x' is not a count"),
        ("# training pairs: 6\nword\tcapitalised\tcopied\tlower\nTom\t1\t1\n", "line 3: expected"),
        ("# training pairs: 6\nword\tcapitalised\tcopied\tlower\nTom\t1\t-1\t0\n", "line 3: '-1'"),
    ],
)
def test_a_damaged_file_is_one_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "lexicon.tsv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(MtError, match=message):
        read_lexicon(path)
    with pytest.raises(MtError, match="is missing"):
        read_lexicon(tmp_path / "none.tsv")


def test_prepare_writes_the_lexicon_of_the_training_part(tmp_path: Path) -> None:
    out = tmp_path / "prepared"
    corpus = write_corpus(tmp_path / "corpus.tsv")
    prepare_corpus(corpus, out=out, config=PrepareConfig(src_vocab=150, tgt_vocab=180))
    lexicon = read_lexicon(out / "lexicon.tsv")
    train = load_prepared(out).read_part("train")
    assert lexicon == build_lexicon(train) and lexicon.pairs == len(train) < len(invented_pairs())
    # The invented names are copied into the Spanish; the words that begin a sentence are not.
    for name in ("Ilse", "Bruno", "Nadia", "Oskar", "Wanda", "Teodor"):
        assert lexicon.copied_share(name) == 1.0, name
    for word in ("Does", "Where", "Thank", "How"):
        assert lexicon.copied_share(word) == 0.0, word
    assert lexicon.known_lower("Where") is False and lexicon.known_lower("Is")
