"""Paragraph pairs cut into sentence pairs only where both sides agree, never inside markup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mt.config import PrepareConfig
from mt.data.prepare.paragraphs import Outcome, open_markup, split_pair
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.readers.corpus import CorpusInput, CorpusReport, read_corpus, stream_corpus
from mt.runtime import parallel


def test_same_number_of_sentences_gives_sentence_pairs_with_markup_verbatim() -> None:
    split = split_pair(
        'Open <span class="emph">File</span>. Choose ``Save``. It is done!',
        'Abre <span class="emph">Archivo</span>. Elige ``Guardar``. ¡Ya está!',
    )
    assert split.outcome is Outcome.SPLIT
    assert split.pairs == [
        ('Open <span class="emph">File</span>.', 'Abre <span class="emph">Archivo</span>.'),
        ("Choose ``Save``.", "Elige ``Guardar``."),
        ("It is done!", "¡Ya está!"),
    ]


def test_different_numbers_of_sentences_keep_the_pair_whole() -> None:
    en, es = "Save the file. Then close it.", "Guarda el archivo y ciérralo."
    assert split_pair(en, es).outcome is Outcome.WHOLE
    assert split_pair(en, es).pairs == [(en, es)]
    assert split_pair("One sentence.", "Una frase.").outcome is Outcome.SENTENCE


def test_no_cut_inside_an_element_a_tag_or_a_role() -> None:
    en = '<span class="avis">Note. Read this.</span> Then go on.'
    es = '<span class="avis">Nota. Lee esto.</span> Luego sigue.'
    assert split_pair(en, es).pairs == [
        ('<span class="avis">Note. Read this.</span>', '<span class="avis">Nota. Lee esto.</span>'),
        ("Then go on.", "Luego sigue."),
    ]
    role = split_pair("See :ref:`Intro. Part`. Next one.", "Ver :ref:`Intro. Parte`. Otra.")
    assert role.pairs[0] == ("See :ref:`Intro. Part`.", "Ver :ref:`Intro. Parte`.")


@pytest.mark.parametrize(
    ("prefix", "inside"),
    [
        ("plain text.", False),
        ('<a href="x.html">Link.', True),
        ('<a href="x.html">Link.</a>', False),
        ("Line<br>Break.", False),  # a void element needs no end tag
        ('<img src="a.png"/> Icon.', False),
        ("Use ``x.", True),
        ("Use ``x``.", False),
        ('<a href="x', True),
    ],
)
def test_open_markup(prefix: str, inside: bool) -> None:
    assert open_markup(prefix) is inside


PARAGRAPHS = [
    ("Open the menu. Choose an entry.", "Abre el menú. Elige una entrada."),
    ("Save it. Then close the window now.", "Guárdalo y cierra la ventana ya."),
]


def po_file(path: Path, pairs: list[tuple[str, str]]) -> Path:
    path.write_text(
        "".join(f'msgid "{en}"\nmsgstr "{es}"\n\n' for en, es in pairs), encoding="utf-8"
    )
    return path


def test_translator_files_are_split_and_counted(tmp_path: Path) -> None:
    source = CorpusInput(path=po_file(tmp_path / "doc.po", PARAGRAPHS))
    corpus = read_corpus(source)  # read_corpus reads held-out files: no splitting there
    assert len(corpus.pairs) == 2
    filler = [(f"Word {i} here.", f"Palabra {i} aquí.") for i in range(120)]
    po_file(tmp_path / "doc.po", PARAGRAPHS + filler)
    info = prepare_corpus(
        source, out=tmp_path / "prep", config=PrepareConfig(src_vocab=100, tgt_vocab=100)
    ).info
    counts = info["corpora"][0]
    assert counts["paragraphs"] == {"split": 1, "sentence_pairs": 2, "kept_whole": 1}
    assert counts["pairs"] == 2 + 1 + 120
    written = "".join(
        (tmp_path / "prep" / f"{part}.tsv").read_text() for part in ("train", "selection", "test")
    )
    assert "Open the menu.\tAbre el menú.\n" in written
    assert "Save it. Then close the window now.\tGuárdalo y cierra la ventana ya.\n" in written


def test_paragraphs_option_chooses_the_corpora(tmp_path: Path) -> None:
    rows = PARAGRAPHS + [(f"Word {i} here.", f"Palabra {i} aquí.") for i in range(120)]
    tsv = tmp_path / "docs.tsv"
    tsv.write_text("".join(f"{en}\t{es}\n" for en, es in rows), encoding="utf-8")
    for mode, pairs in (("auto", 122), ("all", 123)):
        out = tmp_path / mode
        config = PrepareConfig(src_vocab=100, tgt_vocab=100, paragraphs=mode)
        prepare_corpus(tsv, out=out, config=config)
        info = json.loads((out / "prepare.json").read_text())
        assert info["counts"]["pairs"] == pairs
        assert info["filters"]["paragraphs"] == mode


def test_a_paragraph_kept_whole_leaves_with_max_length(tmp_path: Path) -> None:
    long_en = "Save it. " + " ".join(["and then the next word"] * 12) + "."
    long_es = "Guárdalo " + " ".join(["y luego la palabra"] * 12) + "."
    one_sentence = ("one " * 30 + "word.", "una " * 30 + "palabra.")  # too long, no paragraph
    rows = [(long_en, long_es), one_sentence]
    rows += [(f"Word {i} here.", f"Palabra {i} aquí.") for i in range(120)]
    source = CorpusInput(path=po_file(tmp_path / "doc.po", rows))
    config = PrepareConfig(src_vocab=100, tgt_vocab=100, max_length=20)
    info = prepare_corpus(source, out=tmp_path / "prep", config=config).info
    assert info["corpora"][0]["paragraphs"] == {"kept_whole": 1, "left_out_too_long": 1}
    assert info["counts"]["paragraphs"] == {"kept_whole": 1, "left_out_too_long": 1}
    assert info["counts"]["filtered"] == {"more than 20 labels": 2}
    assert info["counts"]["pairs"] == 120


def test_a_long_file_is_split_over_workers_as_one_process_splits_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        (f"Open menu {i}. Choose entry {i}, e.g. the first.", f"Abre el menú {i}. Elige la {i}.")
        if i % 3
        else (f'He said "stop." Then {i} left.', f"Dijo «para». Luego se fueron {i}.")
        for i in range(300)
    ]
    tsv = tmp_path / "docs.tsv"
    tsv.write_text("".join(f"{en}\t{es}\n" for en, es in rows), encoding="utf-8")

    def streamed() -> tuple[list[tuple[str, str]], dict[str, int]]:
        report = CorpusReport(path=tsv.name)
        pairs = [
            pair
            for chunk in stream_corpus(
                CorpusInput(path=tsv), report, paragraphs=True, chunk_lines=50
            )
            for pair in zip(chunk.en, chunk.es, strict=True)
        ]
        return pairs, dict(report.paragraphs)

    monkeypatch.setattr(parallel, "workers_for", lambda rows: 1)
    alone = streamed()
    monkeypatch.setattr(parallel, "workers_for", lambda rows: 2 if rows >= 100 else 1)
    started = []
    monkeypatch.setattr(parallel.StreamWorkers, "close", _noting(started))
    assert streamed() == alone and alone[1]["split"] > 0
    assert started == [True]  # the workers started once the stream had brought 100 rows


def _noting(started: list[bool]):
    close = parallel.StreamWorkers.close

    def noted(self: parallel.StreamWorkers) -> None:
        started.append(self.pool is not None)
        close(self)

    return noted
