"""`mt evaluate` on test files: every line scored as given, and the same figures as sacrebleu."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sacrebleu.metrics import BLEU, CHRF, TER

from conftest import cli_output, invented_pairs, legacy_models

# Sentences the tiny run was trained on, so its output shares words with the references.
PAIRS = invented_pairs()[::37]


def lines(path: Path, rows: list[str]) -> Path:
    path.write_text("".join(f"{row}\n" for row in rows), encoding="utf-8")
    return path


def evaluate(run: Path, tmp_path: Path, *args: str | Path) -> tuple[dict, list[str], str]:
    """The JSON report, the --hyps lines and what `mt evaluate` printed."""
    report, hyps = tmp_path / "report.json", tmp_path / "hyps.txt"
    output = cli_output(
        "evaluate", run, *args, "--beam-size", "2", "--json", report, "--hyps", hyps
    )
    written = hyps.read_text(encoding="utf-8").split("\n")
    assert written.pop() == ""  # one line per hypothesis, each ended by a newline
    return json.loads(report.read_text(encoding="utf-8")), written, output


def test_a_file_with_duplicate_lines_is_scored_line_by_line(
    trained_run: Path, tmp_path: Path
) -> None:
    # 11 distinct pairs, then 4 of them again: `mt prepare` would keep 11, a test set keeps 15.
    rows = [f"{en}\t{es}" for en, es in PAIRS + PAIRS[:3] + PAIRS[5:6]]
    report, hyps, output = evaluate(trained_run, tmp_path, "--tsv", lines(tmp_path / "t.tsv", rows))
    assert len(PAIRS) == 11
    assert report["segments"] == report["pairs"] == len(hyps) == 15
    assert report["references"] == 1 and report["skipped"] == 0
    assert hyps[11:] == hyps[:3] + hyps[5:6]  # a repeated sentence gets the same translation
    assert "15 segments" in output
    references = [es for _, es in PAIRS + PAIRS[:3] + PAIRS[5:6]]
    assert report["bleu"] == BLEU().corpus_score(hyps, [references]).score


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"One.\tUno.\nno tab here\n", "line 2: no tab between English and Spanish"),
        (b"One.\tUno.\nTwo.\t\n", "line 2: empty Spanish side"),
        (b"One.\tUno.\nCaf\xe9.\tCaf\xe9.\n", "line 2: not valid UTF-8"),
    ],
)
def test_a_bad_line_is_one_error_naming_it(
    trained_run: Path, tmp_path: Path, data: bytes, message: str
) -> None:
    path = tmp_path / "bad.tsv"
    path.write_bytes(data)
    output = cli_output("evaluate", trained_run, "--tsv", path, code=2)
    assert f"error: {path} {message}" in " ".join(output.split())


def test_skip_bad_scores_the_rest_and_says_how_many_were_left_out(
    trained_run: Path, tmp_path: Path
) -> None:
    rows = [f"{en}\t{es}" for en, es in PAIRS[:4]] + ["no tab", "\tsolo", "Five.\t "]
    path = lines(tmp_path / "t.tsv", rows)
    report, hyps, output = evaluate(trained_run, tmp_path, "--tsv", path, "--skip-bad")
    assert report["segments"] == len(hyps) == 4 and report["skipped"] == 3
    assert f"left out 3 bad lines (first: {path} line 5: no tab" in " ".join(output.split())


def write_two_references(tmp_path: Path) -> tuple[Path, Path, Path]:
    second = {"Where is": "¿Dónde queda", "likes": "adora", "Thank you": "Muchas gracias"}
    other = []
    for _, es in PAIRS:
        for old, new in second.items():
            es = es.replace(old, new)
        other.append(es.replace("le gusta", "le encanta").replace("está", "se encuentra"))
    return (
        lines(tmp_path / "src.en", [en for en, _ in PAIRS]),
        lines(tmp_path / "ref1.es", [es for _, es in PAIRS]),
        lines(tmp_path / "ref2.es", other),
    )


def test_two_reference_files_score_like_sacrebleu_with_two_references(
    trained_run: Path, tmp_path: Path
) -> None:
    src, ref1, ref2 = write_two_references(tmp_path)
    args = ("--src", src, "--ref", ref1, "--ref", ref2)
    report, hyps, output = evaluate(trained_run, tmp_path, *args)
    streams = [ref1.read_text("utf-8").splitlines(), ref2.read_text("utf-8").splitlines()]
    assert report["segments"] == len(hyps) == len(PAIRS) and report["references"] == 2
    assert report["pairs"] == 2 * len(PAIRS)  # teacher-forced against every reference
    bleu, chrf, ter = BLEU(), CHRF(), TER()
    assert report["bleu"] == bleu.corpus_score(hyps, streams).score
    assert report["chrf"] == chrf.corpus_score(hyps, streams).score
    assert report["ter"] == ter.corpus_score(hyps, streams).score
    assert report["signatures"]["bleu"] == str(bleu.get_signature())
    assert report["signatures"]["bleu"].startswith("nrefs:2|")
    second_only = evaluate(trained_run, tmp_path, "--src", src, "--ref", ref2)[0]
    assert second_only["bleu"] < report["bleu"]  # the first reference counts too
    assert "2 references" in output


def test_src_and_ref_files_of_different_lengths(trained_run: Path, tmp_path: Path) -> None:
    src = lines(tmp_path / "src.en", ["One.", "Two.", "Three."])
    ref = lines(tmp_path / "ref.es", ["Uno.", "Dos."])
    output = cli_output("evaluate", trained_run, "--src", src, "--ref", ref, code=2)
    assert "line counts differ" in output and f"{ref} 2" in " ".join(output.split())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--src", "x.en"], "--src needs at least one --ref file"),
        (["--ref", "x.es"], "--ref needs --src"),
        (["--tsv", "x.tsv", "--src", "x.en", "--ref", "x.es"], "either --tsv or --src/--ref"),
    ],
)
def test_test_file_options_that_do_not_fit(
    trained_run: Path, args: list[str], message: str
) -> None:
    assert message in cli_output("evaluate", trained_run, *args, code=2)


def sacrebleu_command_line(hyps: Path, references: list[Path]) -> dict[str, dict]:
    """The `sacrebleu` tool of this environment on the files, 10 decimals, by metric name."""
    tool = Path(sys.executable).with_name("sacrebleu")
    assert tool.exists(), f"{tool} is missing: sacrebleu is a dependency of mt"
    command = [tool, *references, "-i", hyps, "-m", "bleu", "chrf", "ter", "-w", "10", "-f", "json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return {score["name"]: score for score in json.loads(done.stdout)}


@pytest.mark.parametrize("form", ["tsv", "two references"])
def test_hyps_score_the_same_with_the_sacrebleu_command_line(
    trained_run: Path, tmp_path: Path, form: str
) -> None:
    if form == "tsv":
        rows = [f"{en}\t{es}" for en, es in PAIRS + PAIRS[:2]]
        references = [lines(tmp_path / "ref.es", [es for _, es in PAIRS + PAIRS[:2]])]
        args: tuple[str | Path, ...] = ("--tsv", lines(tmp_path / "t.tsv", rows))
    else:
        src, ref1, ref2 = write_two_references(tmp_path)
        references = [ref1, ref2]
        args = ("--src", src, "--ref", ref1, "--ref", ref2)
    report, _, _ = evaluate(trained_run, tmp_path, *args)
    tool = sacrebleu_command_line(tmp_path / "hyps.txt", references)
    assert report["bleu"] > 0  # a real comparison, not two zeros
    for name, key in (("BLEU", "bleu"), ("chrF2", "chrf"), ("TER", "ter")):
        assert f"{report[key]:.10f}" == f"{tool[name]['score']:.10f}", name
        assert report["signatures"][key] == tool[name]["signature"], name


def test_evaluate_scores_what_translate_outputs_for_a_line_longer_than_training(
    tmp_path: Path,
) -> None:
    """One way to open a model: a comma-joined line of 16 clauses, longer than any training
    sentence, is cut into the same pieces by `mt evaluate` as by `mt translate`."""
    clauses = [f"{en.rstrip('.?!')}" for en, _ in invented_pairs()[:16]]
    line = ", ".join(clauses) + "."
    source, hyps = tmp_path / "long.en", tmp_path / "hyps.es"
    source.write_text(line + "\n", encoding="utf-8")
    run = legacy_models() / "run"
    translated = cli_output("translate", "--model", run, "--device", "cpu", "-i", source)
    cli_output(
        "evaluate", run, "--src", source, "--ref", source, "--device", "cpu",
        "--hyps", hyps,
    )  # fmt: skip
    assert hyps.read_text(encoding="utf-8") == translated
    # Cut at the trained length, every clause is translated (18 words); cut only at the model's
    # positions, as evaluate once did, this model gave 5.
    assert len(translated.split()) > 10
