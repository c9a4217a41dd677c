"""A glossary through `mt translate` and `mt evaluate` on the tiny trained run."""

from __future__ import annotations

from pathlib import Path

from conftest import cli_output, legacy_models, run_cli
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.tokenization import PLACEHOLDERS
from mt.decode.glossary import NAME_STAND_INS, Glossary, Term
from mt.decode.options import TranslateOptions
from mt.decode.results import total
from mt.decode.translator import open_translator


def _terms(tmp_path: Path) -> Path:
    path = tmp_path / "terms.tsv"
    path.write_text("museum\tpinacoteca\nred hat\tboina roja\n", encoding="utf-8")
    return path


def test_translate_puts_every_term_in_the_output(trained_run: Path, tmp_path: Path) -> None:
    sentences = ["Where is the museum, Bruno?", "Museum tickets.", "Nadia has a red hat."]
    plain = run_cli("translate", "--model", trained_run, *sentences).stdout.splitlines()
    assert not any("pinacoteca" in line.lower() for line in plain)  # the model's own words
    out = run_cli("translate", "--model", trained_run, *sentences, "--glossary", _terms(tmp_path))
    lines = out.stdout.splitlines()
    # Where the model puts a term depends on the model; that every term is there does not.
    assert "pinacoteca" in lines[0] and "pinacoteca" in lines[1].lower()
    assert "boina roja" in lines[2].lower()  # capitalised where it begins the output


def test_each_line_keeps_its_own_glossary(trained_run: Path) -> None:
    translator = open_translator(
        resolve(trained_run), TranslateOptions(decode=DecodeConfig(beam_size=2)), device="cpu"
    )
    museum = Glossary([Term("museum", "pinacoteca")])
    station = Glossary([Term("station", "apeadero")])
    lines = ["Where is the museum?", "Where is the station?", "Where is the museum?"]
    translations = translator.translate_each(lines, [museum, station, None])
    out = [t.text for t in translations]
    assert "pinacoteca" in out[0] and "apeadero" in out[1] and "pinacoteca" not in out[2]
    assert total(translations).terms.found == 2


def test_evaluate_reads_the_glossary_and_a_bad_file_is_one_line(
    trained_run: Path, tmp_path: Path
) -> None:
    report = cli_output("evaluate", trained_run, "--limit", "20", "--glossary", _terms(tmp_path))
    assert "glossary" in report and "BLEU" in report
    bad = tmp_path / "bad.tsv"
    bad.write_text("museum\tpinacoteca\nstation\n", encoding="utf-8")
    said = cli_output("translate", "--model", trained_run, "Hello.", "--glossary", bad, code=2)
    assert f"{bad}:2: expected english<TAB>spanish, found no tab" in " ".join(said.split())


def test_placeholders_are_used_only_when_both_vocabularies_hold_them(trained_run: Path) -> None:
    options = TranslateOptions(decode=DecodeConfig(beam_size=1))
    assert (
        open_translator(resolve(trained_run), options, device="cpu").model.term_stand_ins
        == PLACEHOLDERS
    )
    legacy = legacy_models() / "run"  # made before the tokens
    assert (
        open_translator(resolve(legacy), options, device="cpu").model.term_stand_ins
        == NAME_STAND_INS
    )
