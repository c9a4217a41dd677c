"""Test sets are read exactly as given: every line, in order, duplicates kept; bad lines named."""

from __future__ import annotations

from pathlib import Path

import pytest

from mt.errors import MtError
from mt.evaluate.testsets import EvaluationSet, read_aligned_set, read_tsv_set


def write(path: Path, data: bytes | str) -> Path:
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def test_every_line_is_a_segment_in_order_duplicates_kept(tmp_path: Path) -> None:
    rows = ["Hi.\tHola.", "Yes.\tSí.", "Hi.\tHola.", "Hi.\tHola.", "No.\tNo.", "Yes.\tSí."]
    test_set = read_tsv_set(write(tmp_path / "t.tsv", "\n".join(rows) + "\n"))
    assert len(test_set) == 6
    assert test_set.sources == ["Hi.", "Yes.", "Hi.", "Hi.", "No.", "Yes."]
    assert test_set.references == [["Hola."], ["Sí."], ["Hola."], ["Hola."], ["No."], ["Sí."]]
    assert test_set.skipped == ()


def test_text_is_kept_as_given(tmp_path: Path) -> None:
    # A byte order mark and CRLF endings are not text; a third column (attribution) is ignored;
    # nothing is normalized (two spaces, decomposed accent) or cleaned.
    data = "\ufeffTwo  spaces.\tDos  espacios.\r\nCafe\u0301.\tCafe\u0301.\tCC-BY\r\nLast\tÚltimo"
    test_set = read_tsv_set(write(tmp_path / "t.tsv", data))
    assert test_set.sources == ["Two  spaces.", "Cafe\u0301.", "Last"]
    assert test_set.references == [["Dos  espacios."], ["Cafe\u0301."], ["Último"]]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"One.\tUno.\nno tab here\n", "line 2: no tab between English and Spanish"),
        (b"One.\tUno.\nTwo.\t  \n", "line 2: empty Spanish side"),
        (b"\tUno.\n", "line 1: empty English side"),
        (b"One.\tUno.\n\nThree.\tTres.\n", "line 2: empty line"),
        (b"One.\tUno.\nTwo.\tDos.\nCaf\xe9.\tCaf\xe9.\n", "line 3: not valid UTF-8"),
    ],
)
def test_a_bad_line_is_an_error_naming_file_and_line(
    tmp_path: Path, data: bytes, message: str
) -> None:
    path = write(tmp_path / "bad.tsv", data)
    with pytest.raises(MtError) as error:
        read_tsv_set(path)
    assert str(error.value).startswith(f"{path} {message}")
    assert "--skip-bad" in str(error.value)


def test_skip_bad_leaves_bad_lines_out_and_counts_them(tmp_path: Path) -> None:
    data = b"One.\tUno.\nno tab\nTwo.\tDos.\nCaf\xe9.\tx\nThree.\t\nFour.\tCuatro.\n"
    path = write(tmp_path / "bad.tsv", data)
    with pytest.raises(MtError, match=r"line 2: no tab .* and 2 more bad lines"):
        read_tsv_set(path)
    test_set = read_tsv_set(path, skip_bad=True)
    assert test_set.sources == ["One.", "Two.", "Four."]
    assert [(bad.line, bad.reason) for bad in test_set.skipped] == [
        (2, "no tab between English and Spanish"),
        (4, "not valid UTF-8"),
        (5, "empty Spanish side"),
    ]


def test_nothing_left_to_score_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(MtError, match="no line to score"):
        read_tsv_set(write(tmp_path / "bad.tsv", "a\nb\n"), skip_bad=True)


@pytest.mark.parametrize(
    ("data", "message"),
    [(b"", "is empty"), (b"One.\tUno.\n\x00\x01", "line 2: NUL byte, this looks like a binary")],
)
def test_unreadable_files(tmp_path: Path, data: bytes, message: str) -> None:
    with pytest.raises(MtError, match=message):
        read_tsv_set(write(tmp_path / "x.tsv", data))
    with pytest.raises(MtError, match="does not exist"):
        read_tsv_set(tmp_path / "missing.tsv")


def test_aligned_files_with_two_references(tmp_path: Path) -> None:
    src = write(tmp_path / "src.en", "Hi.\nThanks!\nHi.\n")
    ref_a = write(tmp_path / "ref.a", "Hola.\n¡Gracias!\nHola.\n")
    ref_b = write(tmp_path / "ref.b", "Buenas.\n¡Muchas gracias!\nHola, ¿qué tal?\n")
    test_set = read_aligned_set(src, [ref_a, ref_b])
    assert test_set.sources == ["Hi.", "Thanks!", "Hi."]
    assert test_set.references == [
        ["Hola.", "Buenas."],
        ["¡Gracias!", "¡Muchas gracias!"],
        ["Hola.", "Hola, ¿qué tal?"],
    ]
    assert test_set.reference_count() == 2
    assert len(test_set.pairs()) == 6
    assert test_set.grouped() == {
        "Hi.": ["Hola.", "Buenas.", "Hola.", "Hola, ¿qué tal?"],
        "Thanks!": ["¡Gracias!", "¡Muchas gracias!"],
    }


def test_aligned_files_whose_line_counts_differ(tmp_path: Path) -> None:
    src = write(tmp_path / "src.en", "One.\nTwo.\nThree.\n")
    ref = write(tmp_path / "ref.es", "Uno.\nDos.\n")
    with pytest.raises(MtError) as error:
        read_aligned_set(src, [ref])
    assert str(error.value) == (
        f"line counts differ ({src} 3, {ref} 2); the files must be line-aligned"
    )


def test_aligned_files_bad_line_names_the_file(tmp_path: Path) -> None:
    src = write(tmp_path / "src.en", "One.\nTwo.\nThree.\n")
    ref_a = write(tmp_path / "ref.a", "Uno.\nDos.\nTres.\n")
    ref_b = write(tmp_path / "ref.b", b"Uno.\n\nTr\xe9s.\n")
    with pytest.raises(MtError, match=rf"^{ref_b} line 2: empty line and 1 more bad lines"):
        read_aligned_set(src, [ref_a, ref_b])
    test_set = read_aligned_set(src, [ref_a, ref_b], skip_bad=True)
    assert test_set.sources == ["One."]
    assert [str(bad) for bad in test_set.skipped] == [
        f"{ref_b} line 2: empty line",
        f"{ref_b} line 3: not valid UTF-8",
    ]


def test_from_pairs_and_head() -> None:
    test_set = EvaluationSet.from_pairs("test", [("a", "A"), ("a", "B"), ("c", "C")])
    assert test_set.references == [["A"], ["B"], ["C"]]
    assert test_set.head(2).sources == ["a", "a"] and test_set.head(None) is test_set
