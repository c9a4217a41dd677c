"""Glossary matching, the file's errors, stand-ins and the fallback's joining."""

from __future__ import annotations

from pathlib import Path

import pytest

from mt.decode.glossary import (
    NAME_STAND_INS,
    Glossary,
    Term,
    glossary_from_pairs,
    holds_all,
    inner,
    join_around,
    place,
    read_glossary,
    restore,
    split_at_terms,
    with_terms,
)
from mt.errors import MtError


def _glossary(*pairs: tuple[str, str]) -> Glossary:
    return Glossary([Term(en, es) for en, es in pairs])


def _found(glossary: Glossary, text: str) -> list[str]:
    return [match.group() for match, _ in glossary.find(text)]


def test_longest_term_wins_over_a_shorter_one_inside_it() -> None:
    terms = _glossary(("Tools", "Herramientas"), ("Tools - Options", "Herramientas ▸ Opciones"))
    assert _found(terms, "Choose Tools - Options, then Tools.") == ["Tools - Options", "Tools"]


def test_matching_ignores_case_and_any_run_of_white_space() -> None:
    terms = _glossary(("cell style", "estilo de celda"))
    assert _found(terms, "A CELL  style and a Cell\tStyle.") == ["CELL  style", "Cell\tStyle"]


def test_only_whole_words_match() -> None:
    terms = _glossary(("cell", "celda"), ("C++", "C++"))
    assert _found(terms, "cells, excellent, cell-based, a cell. C++ and C++11") == [
        "cell",
        "cell",
        "C++",
    ]


def test_spanish_takes_the_case_the_source_gives_beyond_the_entry() -> None:
    terms = _glossary(("cell style", "estilo de celda"), ("OK", "Aceptar"))
    text, slots, unplaced = place("Cell style is set. Press OK, not ok.", terms, NAME_STAND_INS)
    # "ok" in lower case: the entry's capitals are its own, so the Spanish stays as given.
    assert text == "Tom is set. Press Mary, not Mary." and unplaced == 0
    assert dict(slots) == {"Tom": "Estilo de celda", "Mary": "Aceptar"}
    text, slots, _ = place("CELL STYLE and cell style", terms, NAME_STAND_INS)
    assert dict(slots) == {"Tom": "ESTILO DE CELDA", "Mary": "estilo de celda"}


def test_one_term_twice_takes_one_stand_in_and_a_taken_stand_in_is_skipped() -> None:
    terms = _glossary(("printer", "impresora"), ("scanner", "escáner"))
    text, slots, unplaced = place(
        "Tom's printer, the printer and the scanner.", terms, ("Tom", "Mary")
    )
    assert text == "Tom's Mary, the Mary and the scanner."
    assert slots == (("Mary", "impresora"),) and unplaced == 1


def test_restore_puts_the_term_back_capitalised_at_a_sentence_start_and_counts_losses() -> None:
    slots = (("Tom", "impresora"), ("Mary", "escáner"))
    assert restore("Tom funciona. Usa Tom.", slots) == ("Impresora funciona. Usa impresora.", 1)
    assert holds_all("Tom y Mary", slots) and not holds_all("Tomás y Mary", slots)
    assert restore("｟1｠ y ｟2｠", (("｟1｠", "a"), ("｟2｠", "b"))) == ("A y b", 0)


def test_restore_makes_the_article_before_a_term_agree_where_its_ending_tells() -> None:
    slots = (("Tom", "velocidad"), ("Mary", "organismos"))
    text = "El Tom del Tom y la Mary, con Tom."
    assert restore(text, slots) == (
        "La velocidad de la velocidad y los organismos, con velocidad.",
        0,
    )
    assert restore("el Tom", (("Tom", "impresora"),)) == ("el impresora", 0)  # -a tells nothing


def test_translating_around_the_terms_keeps_spacing_case_and_stops() -> None:
    terms = _glossary(("Tools - Options", "Herramientas ▸ Opciones"), ("OK", "Aceptar"))
    stretches, spanish = split_at_terms("Choose Tools - Options and click OK.", terms)
    assert stretches == ["Choose ", " and click ", "."]
    assert spanish == ["Herramientas ▸ Opciones", "Aceptar"]
    assert [inner(s) for s in stretches] == ["Choose", "and click", ""]
    joined = join_around(stretches, ["Elija.", "Y pulse. "], spanish)
    assert joined == "Elija Herramientas ▸ Opciones y pulse Aceptar."
    stretches, spanish = split_at_terms("OK, then OK (twice).", terms)
    assert inner(stretches[1]) == "then" and inner(stretches[2]) == "twice"
    assert join_around(stretches, ["Luego.", "Dos veces."], spanish) == (
        "Aceptar, luego Aceptar (dos veces)."
    )


def _file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "terms.tsv"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_reads_terms_skipping_blank_and_comment_lines(tmp_path: Path) -> None:
    path = _file(tmp_path, "# UI labels\nOK\tAceptar\n\n Cell style \testilo de celda\n")
    glossary = read_glossary(path)
    assert len(glossary) == 2 and glossary.name == str(path)
    assert _found(glossary, "ok, cell style") == ["ok", "cell style"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("OK\tAceptar\nCancel Cancelar\n", ":2: expected english<TAB>spanish, found no tab"),
        ("OK\tAceptar\tyes\n", ":1: expected english<TAB>spanish, found 3 fields"),
        ("\tAceptar\n", ":1: the English term is empty"),
        ("OK\t \n", ":1: the Spanish term for 'OK' is empty"),
        ("OK\tAceptar\nok\tVale\n", ":2: 'ok' is given twice, as 'Aceptar' and 'Vale'"),
        ("# nothing\n", "no terms"),
    ],
)
def test_a_bad_file_is_one_line_naming_file_line_and_problem(
    tmp_path: Path, text: str, says: str
) -> None:
    path = _file(tmp_path, text)
    with pytest.raises(MtError) as error:
        read_glossary(path)
    assert str(path) in str(error.value) and says in str(error.value)
    assert "\n" not in str(error.value)


def test_unreadable_files_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "latin1.tsv").write_bytes("caf\xe9\tcafé\n".encode("latin-1"))
    for path, says in [
        (tmp_path / "absent.tsv", "no such file"),
        (tmp_path, "is a directory"),
        (tmp_path / "latin1.tsv", "not UTF-8"),
    ]:
        with pytest.raises(MtError, match=says):
            read_glossary(path)


def test_pairs_name_the_bad_pair() -> None:
    assert len(glossary_from_pairs([("OK", "Aceptar"), ("ok", "Aceptar")], "request")) == 1
    with pytest.raises(MtError, match="request: pair 2: the Spanish term for 'Cancel' is empty"):
        glossary_from_pairs([("OK", "Aceptar"), ("Cancel", "")], "request")
    with pytest.raises(MtError, match="pair 1: each side must be text"):
        glossary_from_pairs([("OK", 3)], "request")  # type: ignore[list-item]


def test_a_translation_that_has_the_terms_keeps_them_as_the_glossary_writes_them() -> None:
    glossary = Glossary([Term("View - Styles", "Ver\u00a0▸ Estilos"), Term("OK", "Aceptar")])
    source = "Choose View - Styles and click OK."
    # Any case, any spacing: kept, each term written as the glossary writes it.
    assert (
        with_terms(source, "Vaya a ver ▸  Estilos y pulse aceptar.", glossary)
        == "Vaya a Ver\u00a0▸ Estilos y pulse Aceptar."
    )
    assert with_terms(source, "Vaya a Ver ▸ Estilos y pulse Bien.", glossary) is None  # one missing
    assert with_terms("No terms here.", "Nada.", glossary) is None
    assert with_terms(source, "Vaya a Ver ▸ Estilosa y pulse Aceptar.", glossary) is None
