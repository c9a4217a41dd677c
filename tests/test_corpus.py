"""Corpus reading, cleaning and splitting: every bad input gives its message, never a crash."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import invented_pairs, write_corpus
from mt.corpus import (
    BLANK,
    EMPTY_ENGLISH,
    EMPTY_SPANISH,
    NOT_UTF8,
    ONE_COLUMN,
    parse_split,
    read_corpus,
    split_by_files,
    split_corpus,
)
from mt.errors import MtError


def write(path: Path, text: str) -> Path:
    path.write_bytes(text.encode("utf-8"))
    return path


def test_reads_the_invented_corpus_in_order(corpus_file: Path) -> None:
    corpus = read_corpus(corpus_file)
    assert corpus.pairs == invented_pairs()
    assert corpus.report.lines == corpus.report.pairs == len(invented_pairs())
    assert corpus.report.dropped == {}


def test_quotes_are_plain_text_in_tsv(tmp_path: Path) -> None:
    text = '"Hello", she said.\t"Hola", dijo ella.\n"Unbalanced\t"Suelto\nNext one.\tSiguiente.\n'
    pairs = read_corpus(write(tmp_path / "q.tsv", text)).pairs
    assert pairs == [
        ('"Hello", she said.', '"Hola", dijo ella.'),
        ('"Unbalanced', '"Suelto'),
        ("Next one.", "Siguiente."),
    ]


def test_cleaning_normalises_and_counts_each_change(tmp_path: Path) -> None:
    decomposed = unicodedata.normalize("NFD", "café")
    lines = [
        f"Black {decomposed}.\tCafé solo.",  # NFC
        "Two\u200b words.\tDos\u2060 palabras.",  # zero-width
        "Ten\u00a0euros.\tDiez\u202feuros.",  # no-break spaces
        "Too   many\u3000spaces.\tDemasiados  espacios.",  # runs of whitespace
        " Padded. \t Relleno. ",  # outer spaces
        "Padded.\tRelleno.",  # duplicate once cleaned
    ]
    corpus = read_corpus(write(tmp_path / "c.tsv", "\n".join(lines) + "\n"))
    assert corpus.pairs == [
        ("Black café.", "Café solo."),
        ("Two words.", "Dos palabras."),
        ("Ten euros.", "Diez euros."),
        ("Too many spaces.", "Demasiados espacios."),
        ("Padded.", "Relleno."),
    ]
    report = corpus.report
    assert (report.nfc_changed, report.zero_width_removed, report.no_break_spaces_mapped) == (
        1,
        1,
        1,
    )
    assert (report.whitespace_collapsed, report.stripped, report.duplicates) == (1, 1, 1)
    assert report.pairs == 5


def test_bom_crlf_and_attribution_column(tmp_path: Path) -> None:
    data = "\ufeffOne.\tUno.\r\nTwo.\tDos.\tCC-BY 2.0 (France) Attribution: x\r\n".encode()
    path = tmp_path / "c.tsv"
    path.write_bytes(data)
    assert read_corpus(path).pairs == [("One.", "Uno."), ("Two.", "Dos.")]


def test_bad_lines_are_reported_with_line_numbers_and_skipped(tmp_path: Path) -> None:
    lines = [
        "Good.\tBueno.",
        "only one column",
        "",
        "\tSin inglés.",
        "No Spanish.\t  ",
        "Ok.\tVale.",
    ]
    corpus = read_corpus(write(tmp_path / "c.tsv", "\n".join(lines) + "\n"))
    assert corpus.pairs == [("Good.", "Bueno."), ("Ok.", "Vale.")]
    assert [(b.line, b.reason) for b in corpus.report.bad_lines] == [
        (2, ONE_COLUMN),
        (3, BLANK),
        (4, EMPTY_ENGLISH),
        (5, EMPTY_SPANISH),
    ]
    assert str(corpus.report.bad_lines[0]) == f"{tmp_path / 'c.tsv'} line 2: {ONE_COLUMN}"
    assert corpus.report.dropped == {ONE_COLUMN: 1, BLANK: 1, EMPTY_ENGLISH: 1, EMPTY_SPANISH: 1}


def test_strict_stops_at_the_first_bad_line(tmp_path: Path) -> None:
    path = write(tmp_path / "c.tsv", "Good.\tBueno.\nNo Spanish.\t\nbroken\n")
    with pytest.raises(MtError, match=r"c\.tsv line 2: empty Spanish side") as caught:
        read_corpus(path, strict=True)
    assert caught.value.exit_code == 2


def test_latin1_lines_are_reported_one_by_one(tmp_path: Path) -> None:
    path = tmp_path / "latin1.tsv"
    path.write_bytes("Plain.\tSimple.\nCoffee.\tCafé.\n".encode("latin-1"))
    corpus = read_corpus(path)
    assert corpus.pairs == [("Plain.", "Simple.")]
    assert [(b.line, b.reason) for b in corpus.report.bad_lines] == [(2, NOT_UTF8)]


def test_all_latin1_file_suggests_converting(tmp_path: Path) -> None:
    path = tmp_path / "latin1.tsv"
    path.write_bytes("Coffee.\tCafé.\nYes.\tSí.\n".encode("latin-1"))
    with pytest.raises(MtError, match="no valid English-Spanish pair.*2 not valid UTF-8.*iconv"):
        read_corpus(path)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b" \n\n", "is empty"),
        (b"abc\x00\x01\x02\tdef\n", "line 1: NUL byte, this looks like a binary file"),
        (b"PK\x03\x04rest", "zip archive; extract it with `mt download --source"),
        (b"\x1f\x8b\x08rest", "is a damaged gzip file"),
        (b"no tabs here\nnor here\n", "no valid English-Spanish pair (2 lines: 2 one column"),
    ],
)
def test_unusable_files_give_one_clear_error(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "bad.tsv"
    path.write_bytes(content)
    with pytest.raises(MtError, match=message.replace("(", r"\(")):
        read_corpus(path)


def test_missing_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(MtError, match="does not exist"):
        read_corpus(tmp_path / "missing.tsv")
    with pytest.raises(MtError, match="is a directory"):
        read_corpus(tmp_path)


def test_very_long_line_is_kept(tmp_path: Path) -> None:
    long = "word " * 2000
    corpus = read_corpus(write(tmp_path / "c.tsv", f"{long}\t{long}\nShort.\tCorta.\n"))
    assert len(corpus.pairs[0][0]) == 9999


def test_csv_with_header_quotes_and_commas(tmp_path: Path) -> None:
    text = 'english,spanish\n"Yes, please.","Sí, por favor."\n"He said ""hi"".","Dijo ""hola""."\n'
    corpus = read_corpus(write(tmp_path / "data.csv", text))
    assert corpus.pairs == [("Yes, please.", "Sí, por favor."), ('He said "hi".', 'Dijo "hola".')]


def test_csv_columns_in_any_order_and_detected_by_header(tmp_path: Path) -> None:
    text = "Spanish,English,extra\nHola.,Hello.,x\nsolo\n"
    corpus = read_corpus(write(tmp_path / "data.txt", text))
    assert corpus.pairs == [("Hello.", "Hola.")]
    assert [(b.line, b.reason) for b in corpus.report.bad_lines] == [
        (3, "missing the spanish column")
    ]


def test_csv_with_wrong_header_names_the_expected_columns(tmp_path: Path) -> None:
    path = write(tmp_path / "data.csv", "en,es\nHello.,Hola.\n")
    with pytest.raises(MtError, match="line 1: CSV header must have columns english,spanish"):
        read_corpus(path)


def test_split_is_grouped_by_english_and_covers_every_pair(corpus_file: Path) -> None:
    corpus = read_corpus(corpus_file)
    split = split_corpus(corpus, fractions=(0.6, 0.2, 0.2), seed=0)
    english = [{en for en, _ in part} for part in (split.train, split.selection, split.test)]
    assert not english[0] & english[1] and not english[0] & english[2]
    assert not english[1] & english[2]
    assert sorted(split.train + split.selection + split.test) == sorted(corpus.pairs)
    groups = len({en for en, _ in corpus.pairs})
    assert [len(e) for e in english] == [
        groups - 2 * round(0.2 * groups),
        *[round(0.2 * groups)] * 2,
    ]


def test_split_depends_on_the_seed_only(corpus_file: Path) -> None:
    corpus = read_corpus(corpus_file)
    assert split_corpus(corpus, seed=3) == split_corpus(corpus, seed=3)
    assert split_corpus(corpus, seed=3).test != split_corpus(corpus, seed=4).test


def test_several_translations_stay_together(corpus_file: Path) -> None:
    split = split_corpus(read_corpus(corpus_file), seed=1)
    for part in (split.train, split.selection, split.test):
        thanks = [es for en, es in part if en == "Thank you, Ilse!"]
        assert len(thanks) in (0, 3)


def test_corpus_too_small_to_split(tmp_path: Path) -> None:
    corpus = read_corpus(write_corpus(tmp_path / "c.tsv", [("A.", "Una."), ("B.", "Be.")]))
    with pytest.raises(MtError, match="too small to split: 2 distinct English sentences"):
        split_corpus(corpus)


def test_split_by_files_removes_held_out_english_from_training(tmp_path: Path) -> None:
    corpus = read_corpus(write_corpus(tmp_path / "c.tsv"))
    selection = read_corpus(write_corpus(tmp_path / "s.tsv", [("Thank you, Ilse!", "¡Gracias!")]))
    test = read_corpus(write_corpus(tmp_path / "t.tsv", [("Ilse likes bread.", "Le gusta.")]))
    split = split_by_files(corpus, selection=selection, test=test)
    assert split.excluded == 4
    assert all(en not in ("Thank you, Ilse!", "Ilse likes bread.") for en, _ in split.train)
    assert split.selection == selection.pairs and split.test == test.pairs


@pytest.mark.parametrize("text", ["0.6,0.4", "0.5,0.5,0.5", "0.8,0.2,0", "a,b,c", ""])
def test_bad_split_fractions(text: str) -> None:
    with pytest.raises(MtError, match="--split must be three positive fractions"):
        parse_split(text)


def test_split_fractions_parse() -> None:
    assert parse_split("0.8,0.1,0.1") == (0.8, 0.1, 0.1)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(alphabet=st.characters(codec="utf-8"), max_size=200))
def test_any_text_gives_pairs_or_a_clear_error(tmp_path: Path, text: str) -> None:
    check_pairs_or_error(tmp_path / "any.tsv", text.encode("utf-8", "surrogatepass"))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.binary(max_size=200), suffix=st.sampled_from([".tsv", ".csv"]))
def test_any_bytes_give_pairs_or_a_clear_error(tmp_path: Path, data: bytes, suffix: str) -> None:
    check_pairs_or_error(tmp_path / f"any{suffix}", data)


def check_pairs_or_error(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    try:
        corpus = read_corpus(path)
    except MtError as error:
        assert str(error) and "\n" not in str(error)
        return
    assert corpus.pairs
    for en, es in corpus.pairs:
        assert en and es and en == en.strip() and es == es.strip()
        assert "\t" not in en + es and "\n" not in en + es
        assert unicodedata.is_normalized("NFC", en + es)


def test_a_line_with_both_sides_empty_is_one_bad_line(tmp_path: Path) -> None:
    corpus = read_corpus(write(tmp_path / "c.tsv", "\u200b\t\u200b\nOk.\tVale.\n"))
    assert [(b.line, b.reason) for b in corpus.report.bad_lines] == [(1, EMPTY_ENGLISH)]
    assert corpus.report.lines == 2
