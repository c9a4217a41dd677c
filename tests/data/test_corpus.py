"""Corpus reading, cleaning and splitting: every bad input gives its message, never a crash."""

from __future__ import annotations

import gzip
import lzma
import unicodedata
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mt.data.readers.streams
from conftest import invented_pairs
from mt.data.readers.corpus import (
    BAD_LINE_EXAMPLES,
    BLANK,
    EMPTY_ENGLISH,
    EMPTY_SPANISH,
    IDENTICAL,
    NOT_UTF8,
    Chunk,
    CorpusInput,
    CorpusReport,
    Filters,
    parse_split,
    read_corpus,
    stream_corpus,
)
from mt.data.readers.corpus_rows import ONE_COLUMN
from mt.errors import MtError
from mt.text.cleaning import clean_text, clean_texts


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


# ----- streaming: compressed inputs, two files, filters, chunks --------------------------------

COMPRESS: dict[str, Callable[[bytes], bytes]] = {
    "gz": gzip.compress,
    "xz": lzma.compress,
    "zst": zstandard.ZstdCompressor().compress,
}
MESSY = (
    "\ufeffGood.\tBueno.\r\n"
    "only one column\r\n"
    "\r\n"
    "\tSin inglés.\r\n"
    " \t \r\n"
    "Coffee.\tCafé.\r\n"
    "Two\u200b  words.\tDos\u00a0palabras.\tCC-BY\r\n"
    "Good.\tBueno.\r\n"
    "Ok.\tVale."
)


def stream(source: CorpusInput, **options: object) -> tuple[list[Chunk], CorpusReport]:
    report = CorpusReport(path=source.name)
    return list(stream_corpus(source, report, **options)), report  # type: ignore[arg-type]


def pairs_of(chunks: list[Chunk]) -> list[tuple[int, str, str]]:
    """(line, english, spanish) of every pair the chunks hold."""
    found = []
    for chunk in chunks:
        found += zip(chunk.lines.tolist(), chunk.en, chunk.es, strict=True)
    return found


def write_latin1_line(path: Path, text: str, *, bad_line: int) -> Path:
    lines = text.split("\n")
    path.write_bytes(
        b"\n".join(
            line.encode("latin-1" if n == bad_line else "utf-8") for n, line in enumerate(lines, 1)
        )
    )
    return path


@pytest.mark.parametrize("kind", COMPRESS)
def test_compressed_corpora_give_the_same_pairs_and_report(tmp_path: Path, kind: str) -> None:
    plain = write_latin1_line(tmp_path / "c.tsv", MESSY.replace("\r\n", "\n"), bad_line=6)
    packed = tmp_path / f"c.tsv.{kind}"
    packed.write_bytes(COMPRESS[kind](plain.read_bytes()))
    expected, got = read_corpus(plain), read_corpus(packed)
    assert (
        got.pairs
        == expected.pairs
        == [("Good.", "Bueno."), ("Two words.", "Dos palabras."), ("Ok.", "Vale.")]
    )
    assert got.report.counts() == expected.report.counts()
    assert [(b.line, b.reason) for b in got.report.bad_lines] == [
        (b.line, b.reason) for b in expected.report.bad_lines
    ]


def test_csv_is_told_by_the_suffix_under_compression(tmp_path: Path) -> None:
    # A tab in the header hides it from header detection: only the name says CSV.
    text = 'english,spanish,"a\tb"\n"Yes, please.","Sí, por favor.",x\n'
    for name, expected in (("d.csv.gz", [("Yes, please.", "Sí, por favor.")]), ("d.txt.gz", None)):
        path = tmp_path / name
        path.write_bytes(gzip.compress(text.encode()))
        if expected is None:
            assert read_corpus(path).pairs == [('english,spanish,"a', 'b"')]
        else:
            assert read_corpus(path).pairs == expected


def test_a_corrupt_gzip_corpus_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "c.tsv.gz"
    data = gzip.compress(MESSY.encode() * 100)
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(MtError, match=r"c\.tsv\.gz is a damaged gzip file"):
        read_corpus(path)


def test_csv_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "d.csv"
    path.write_bytes("english,spanish\nHello.,Hola.\nCoffee.,Café.\n".encode("latin-1"))
    with pytest.raises(
        MtError, match=r"d\.csv line 3: not valid UTF-8 \(CSV files must be UTF-8\)"
    ):
        read_corpus(path)
    path.write_bytes(b"english,spanish\nHello.,Hola.\nA\x00,B\n")
    with pytest.raises(MtError, match=r"d\.csv line 3: NUL byte"):
        read_corpus(path)


def test_two_files_give_pairs_and_name_the_file_of_each_bad_line(tmp_path: Path) -> None:
    source = write_latin1_line(
        tmp_path / "c.en", "Good.\nCrème.\nRight.\n \n\u200b\nOk.\nTab\there.\n", bad_line=2
    )
    target = write_latin1_line(
        tmp_path / "c.es", "Bueno.\nCafé.\nCafé.\n\t\nAlgo.\n\nTab.\n", bad_line=3
    )
    corpus = read_corpus(CorpusInput(source=source, target=target))
    assert corpus.pairs == [("Good.", "Bueno."), ("Tab here.", "Tab.")]
    assert [str(bad) for bad in corpus.report.bad_lines] == [
        f"{source} line 2: {NOT_UTF8}",
        f"{target} line 3: {NOT_UTF8}",
        f"{source} + {target} line 4: {BLANK}",
        f"{source} line 5: {EMPTY_ENGLISH}",
        f"{target} line 6: {EMPTY_SPANISH}",
    ]
    assert corpus.report.path == f"{source} + {target}"
    with pytest.raises(MtError, match=rf"^{source} line 2: {NOT_UTF8} \(drop --strict"):
        read_corpus(CorpusInput(source=source, target=target), strict=True)


@pytest.mark.parametrize(("en_lines", "es_lines"), [(5, 3), (3, 5)])
def test_two_files_of_different_lengths_are_an_error_with_both_counts(
    tmp_path: Path, en_lines: int, es_lines: int
) -> None:
    source = write(tmp_path / "c.en", "".join(f"Line {n}.\n" for n in range(en_lines)))
    target = write(tmp_path / "c.es", "".join(f"Línea {n}.\n" for n in range(es_lines)))
    message = f"{source} has {en_lines:,} lines but {target} has {es_lines:,}: the two files must"
    with pytest.raises(MtError, match=message.replace("+", r"\+")):
        stream(CorpusInput(source=source, target=target), chunk_lines=2)


def test_a_corpus_input_is_one_file_or_two(tmp_path: Path) -> None:
    for bad in ({}, {"path": tmp_path, "source": tmp_path}, {"source": tmp_path}):
        with pytest.raises(MtError, match="one TSV/CSV file, or a source file and a target"):
            CorpusInput(**bad)


def test_filters_are_counted_by_reason_and_applied(tmp_path: Path) -> None:
    lines = [
        "One two three four.\tUno dos tres cuatro.",  # kept
        "One two three four five six.\tUno.",  # 6 words: over the limit first
        "One two three four.\tUno.",  # ratio 4 > 3
        "One two three.\tUno.",  # ratio 3: kept
        "OK\tOK",  # identical
        "Same.\tSame.\textra",  # identical
    ]
    filters = Filters(max_words=5, max_ratio=3, drop_identical=True)
    chunks, report = stream(
        CorpusInput(path=write(tmp_path / "c.tsv", "\n".join(lines))), filters=filters, strict=True
    )
    assert [(n, en) for n, en, _ in pairs_of(chunks)] == [
        (1, "One two three four."),
        (4, "One two three."),
    ]
    assert report.filtered == {"more than 5 words": 1, "length ratio over 3": 1, IDENTICAL: 2}
    assert report.dropped == {} and report.bad_lines == [] and report.pairs == 2
    assert report.counts()["filtered"] == report.filtered


@pytest.mark.parametrize("bad", [{"max_words": -1}, {"max_ratio": 0.5}, {"max_ratio": -2.0}])
def test_meaningless_filters_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(MtError, match="must be 0"):
        Filters(**bad)  # type: ignore[arg-type]


def test_strict_stops_at_a_bad_line_but_not_at_a_filtered_pair(tmp_path: Path) -> None:
    path = write(tmp_path / "c.tsv", "Same.\tSame.\nGood.\tBueno.\nbroken\n")
    source = CorpusInput(path=path)
    with pytest.raises(MtError, match=rf"c\.tsv line 3: {ONE_COLUMN} \(drop --strict"):
        stream(source, strict=True, filters=Filters(drop_identical=True), chunk_lines=2)


def everything(source: CorpusInput, **options: object) -> tuple[object, ...]:
    chunks, report = stream(source, **options)
    assert all(0 < chunk.lines.size <= int(options.get("chunk_lines", 100_000)) for chunk in chunks)
    assert all(chunk.lines.dtype == np.int64 for chunk in chunks)
    bad = [str(item) for item in report.bad_lines]
    return pairs_of(chunks), report.counts(), bad, report.bad_count


@pytest.mark.parametrize("kind", ["tsv", "csv", "two files"])
def test_chunks_and_blocks_of_any_size_give_one_result(
    tmp_path: Path, kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if kind == "tsv":
        source = CorpusInput(path=write_latin1_line(tmp_path / "c.tsv", MESSY, bad_line=6))
    elif kind == "csv":
        text = (
            'english,spanish\r\nGood.,Bueno.\r\n,\r\n"Multi\r\nline",Varias\r\nsolo\r\nOk.,"Vale"'
        )
        source = CorpusInput(path=write(tmp_path / "c.csv", text))
    else:
        source = CorpusInput(
            source=write(tmp_path / "c.en", "\ufeffGood.\r\n\r\nTwo\u200b.\r\n \r\nOk."),
            target=write(tmp_path / "c.es", "Bueno.\r\n\r\nDos.\r\nSí.\r\nVale.\r\n"),
        )
    whole = everything(source)
    monkeypatch.setattr(mt.data.readers.streams, "BLOCK_BYTES", 3)
    assert everything(source, chunk_lines=2) == everything(source, chunk_lines=1) == whole
    assert whole[0]  # some pairs, some bad lines
    assert whole[2]


def test_bad_lines_keep_examples_but_count_everything(tmp_path: Path) -> None:
    lines = ["Good.\tBueno."] + ["no tab"] * (BAD_LINE_EXAMPLES + 200) + ["\tVacío."] * 5
    path = write(tmp_path / "c.tsv", "\n".join(lines) + "\n")
    chunks, report = stream(CorpusInput(path=path), chunk_lines=300)
    assert len(report.bad_lines) == BAD_LINE_EXAMPLES
    assert report.bad_count == BAD_LINE_EXAMPLES + 205
    assert report.dropped == {ONE_COLUMN: BAD_LINE_EXAMPLES + 200, EMPTY_ENGLISH: 5}
    assert report.lines == len(lines) and pairs_of(chunks) == [(1, "Good.", "Bueno.")]


def test_merge_adds_another_corpus(tmp_path: Path) -> None:
    first = read_corpus(write(tmp_path / "a.tsv", "A.\tUna.\nA.\tUna.\nno tab\n")).report
    second = read_corpus(write(tmp_path / "b.tsv", "B.\tBe.\n\t\n")).report
    first.merge(second)
    assert first.counts() | {"dropped": None} == {
        "lines": 5,
        "dropped": None,
        "nfc_changed": 0,
        "zero_width_removed": 0,
        "no_break_spaces_mapped": 0,
        "whitespace_collapsed": 0,
        "stripped": 0,
        "duplicates": 1,
        "filtered": {},
        "pairs": 2,
    }
    assert first.dropped == {ONE_COLUMN: 1, BLANK: 1} and first.bad_count == 2
    assert [bad.path for bad in first.bad_lines] == [
        str(tmp_path / "a.tsv"),
        str(tmp_path / "b.tsv"),
    ]


def test_cleaning_finds_every_character_clean_text_changes(tmp_path: Path) -> None:
    # Every BMP character (but the line and column separators) inside, before and after text,
    # and beside spaces: the fast scan must never let through a text that clean_text changes.
    skip = {0, ord("\t"), ord("\n"), ord("\r")} | set(range(0xD800, 0xE000))
    chars = [chr(c) for c in range(0x10000) if c not in skip] + ["\U0001f600", "e\u0301"]
    en = [f"x{c}y" for c in chars] + [f"{c} z" for c in chars]
    es = [f"{c}a" for c in chars] + [f"b  {c}" for c in chars]
    path = tmp_path / "all.tsv"
    path.write_text("".join(f"{a}\t{b}\n" for a, b in zip(en, es, strict=True)), encoding="utf-8")
    chunks, report = stream(CorpusInput(path=path), chunk_lines=50_000)
    assert [(a, b) for _, a, b in pairs_of(chunks)] == [
        (clean_text(a), clean_text(b)) for a, b in zip(en, es, strict=True)
    ]
    _, en_changes = clean_texts(en)
    _, es_changes = clean_texts(es)
    for name, changed in en_changes.items():
        assert getattr(report, name) == len(changed | es_changes[name]), name


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(alphabet=st.sampled_from("ab \t\r\n\u200b\u00a0é"), max_size=60))
def test_tiny_chunks_and_blocks_change_nothing(tmp_path: Path, text: str) -> None:
    path = tmp_path / "any.tsv"
    path.write_text(text, encoding="utf-8", newline="")
    source = CorpusInput(path=path)
    try:
        whole = everything(source)
    except MtError as error:
        with pytest.raises(MtError, match=str(error).replace("(", r"\(").replace(")", r"\)")):
            everything(source, chunk_lines=1)
        return
    original = mt.data.readers.streams.BLOCK_BYTES
    try:
        mt.data.readers.streams.BLOCK_BYTES = 2
        assert everything(source, chunk_lines=1) == whole
    finally:
        mt.data.readers.streams.BLOCK_BYTES = original
