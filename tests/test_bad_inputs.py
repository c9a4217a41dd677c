"""Bad input to `train`, `translate` and `evaluate`: one clear line, or handled and reported.

The corpus and `prepare` side is covered in test_corpus.py and test_prepare.py; docs/bad-inputs.md
lists every case with the test that backs it. Nothing here may print a traceback, and a command
that fails must not leave half-written output behind.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import Result

from conftest import prepare_tiny, write_corpus
from conftest import run_cli as invoke
from mt.train.launch import start_training
from mt.train.reporting import SilentReporter


@pytest.fixture(scope="module")
def prepared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bad-inputs")
    out = prepare_tiny(root)
    return out


@pytest.fixture(scope="module")
def run(prepared: Path) -> Path:
    run_dir = prepared.parent / "run"
    start_training(
        prepared_dir=prepared,
        run_dir=run_dir,
        preset="thesis-small",
        changes={"max_steps": 3, "batch_size": 16, "lr": 0.5, "warmup": 20},
        device_name="cpu",
        threads=None,
        force=False,
        reporter=SilentReporter(),
    )
    return run_dir


def one_error_line(result: Result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


# ----- translate ----------------------------------------------------------------------------------


def test_odd_lines_each_get_one_output_line(run: Path) -> None:
    lines = [
        "Hello, Ilse.",
        "",
        "   ",
        "I like 🍕 and 🎉!",
        "bell\a tab\t escape\x1b[31m nul\x00 delete\x7f",
        "مرحبا بالعالم",
        "שלום, Bruno",
        "\u200bzero\u200dwidth\ufeff",
        "Ｆｕｌｌｗｉｄｔｈ and e\u0301 combining",
    ]
    stdin = ("\ufeff" + "\r\n".join(lines) + "\r\n").encode("utf-8")
    result = invoke("translate", "--model", run, "--device", "cpu", "-b", "2", stdin=stdin)
    output = result.stdout.split("\n")
    assert len(output) == len(lines) + 1 and output[-1] == "", result.stdout
    assert output[1] == "" and output[2] == ""  # empty in, empty out, order kept


def test_a_five_thousand_word_line_is_translated_in_pieces_on_one_line(run: Path) -> None:
    stdin = (" ".join(["Ilse"] * 5000) + "\nThank you!\n").encode("utf-8")
    result = invoke("translate", "--model", run, "--device", "cpu", "-b", "1", stdin=stdin)
    assert "warning" not in result.stderr  # nothing is cut off any more (mt.decode.segment)
    assert len(result.stdout.splitlines()) == 2, result.stdout


def test_undecodable_stdin_names_the_line_and_writes_no_output_file(
    run: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out" / "es.txt"
    stdin = "Hello.\nCafé.\n".encode("latin-1")
    result = invoke("translate", "--model", run, "--device", "cpu", "-o", out, code=2, stdin=stdin)
    assert "<stdin>:2: not valid UTF-8 (byte 4)" in one_error_line(result)
    assert list(out.parent.iterdir()) == []


def test_output_path_that_is_a_directory_is_one_line(run: Path, tmp_path: Path) -> None:
    result = invoke(
        "translate", "--model", run, "Hello.", "--device", "cpu", "-o", tmp_path, code=2
    )
    assert f"--output {tmp_path} is a directory" in one_error_line(result)
    assert [p.name for p in tmp_path.iterdir()] == []


BAD_EVERYWHERE = [
    (["--batch-size", "0"], "--batch-size must be positive, got 0"),
    (["--device", "tpu"], "--device must be auto, cpu or cuda, got 'tpu'"),
]
"""Options train, translate and evaluate all take, refused alike."""

BAD_DECODING = [
    (["-b", "-1"], "--beam-size must be positive, got -1"),
    (["-b", "0"], "--beam-size must be positive, got 0"),
    (["--length-penalty", "-1"], "--length-penalty must be >= 0"),
    (["--max-len-b", "0"], "--max-len-b must be >= 1"),
]
"""Decoding options translate and evaluate both take, refused alike."""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        *BAD_EVERYWHERE,
        *BAD_DECODING,
        (["-b", "3", "--n-best", "4"], "--n-best must be between 1 and --beam-size (3), got 4"),
        (["--checkpoint", "middle"], "--checkpoint must be best or last, got 'middle'"),
        (["--input", "missing.txt"], "--input missing.txt: no such file"),
        (["--input", "."], "--input .: no such file"),
        (["--input", "x.txt", "Hello."], "give sentences as arguments or --input FILE, not both"),
        (["--attention", "a.png"], "--attention needs exactly one sentence"),
    ],
)
def test_bad_translate_options_are_one_line(run: Path, args: list[str], message: str) -> None:
    assert message in one_error_line(invoke("translate", "--model", run, *args, code=2))


def test_missing_run_directory(tmp_path: Path) -> None:
    result = invoke("translate", "--model", tmp_path / "nothing", "Hi.", code=2)
    assert "no such model: not a model name (known: " in one_error_line(result)


def test_run_directory_from_another_version(run: Path, tmp_path: Path) -> None:
    other = Path(shutil.copytree(run, tmp_path / "other"))
    model = json.loads((other / "model.json").read_text(encoding="utf-8"))
    (other / "model.json").write_text(json.dumps({**model, "format_version": 3}))
    for command in (("translate", "--model"), ("evaluate",)):
        line = one_error_line(invoke(*command, other, code=2))
        assert "model.json: run format version 3, this mt reads version 2" in line


# ----- train --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        *BAD_EVERYWHERE,
        (["--time-budget", "soon"], "cannot read duration 'soon'"),
        (["--time-budget", "-5m"], "cannot read duration '-5m'"),
        (["--d-model", "30", "--heads", "4"], "--d-model 30 is not divisible by --heads 4"),
        (["--heads", "0"], "--heads must be positive, got 0"),
        (["--dropout", "1.5"], "--dropout must be in [0, 1), got 1.5"),
        (["--preset", "huge"], "--preset: unknown preset 'huge'"),
        (["--max-steps", "-1"], "--max-steps must be >= 0, got -1"),
        (["--lr", "0"], "--lr must be positive, got 0.0"),
        (["--precision", "fp8"], "unknown --precision 'fp8'"),
        (["--arch", "lstm"], "unknown architecture 'lstm'"),
        (["--tie-embeddings"], "tied embeddings need a shared vocabulary"),
        (["--layers", "3", "--encoder-layers", "6"], "--layers 3 sets both stacks and"),
        (["--decoder-layers", "0"], "--decoder-layers must be positive, got 0"),
        (["--arch", "rnn", "--encoder-layers", "3"], "--arch rnn has one depth for both"),
    ],
)
def test_bad_train_options_are_one_line_and_create_nothing(
    prepared: Path, tmp_path: Path, args: list[str], message: str
) -> None:
    out = tmp_path / "run"
    line = one_error_line(invoke("train", prepared, "--out", out, *args, code=2))
    assert message in line
    assert not out.exists()


def test_train_usage_errors(prepared: Path, run: Path, tmp_path: Path) -> None:
    cases = [
        (["train", prepared], "give the prepared directory and --out RUN"),
        (["train", tmp_path / "none", "--out", tmp_path / "r"], "does not exist; run `mt prepare"),
        (["train", prepared, "--out", run], "directory exists; use --resume"),
        (["train", "--resume", tmp_path / "none"], "no such run directory"),
        (["train", "--resume", run, "--lr", "0.1"], "only stopping limits may be given, not --lr"),
        (["train", "--resume", run, "--layers", "3"], "give no model size, preset or prepared"),
        (["train", prepared, "--resume", run], "give no model size, preset or prepared"),
        (["train", "--dry-run"], "--dry-run needs the prepared directory"),
    ]
    for args, message in cases:
        assert message in one_error_line(invoke(*args, code=2)), args
    assert not (tmp_path / "r").exists()


def test_force_never_replaces_what_mt_train_did_not_write(prepared: Path, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me", encoding="utf-8")
    before = sorted(p.name for p in prepared.iterdir())
    for out in (mine, prepared):
        line = one_error_line(invoke("train", prepared, "--out", out, "--force", code=2))
        assert f"--out {out}: not a run directory (no model.json)" in line
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "keep me"
    assert sorted(p.name for p in prepared.iterdir()) == before
    line = one_error_line(invoke("train", prepared, "--out", mine / "notes.txt", code=2))
    assert "is a file, not a run directory" in line


def test_resume_of_a_run_stopped_before_it_was_set_up(tmp_path: Path) -> None:
    (tmp_path / "source-tokenizer.json").write_text("{}", encoding="utf-8")
    line = one_error_line(invoke("train", "--resume", tmp_path, code=2))
    assert "no model.json, the run stopped before it was set up" in line and "--force" in line


def test_resume_with_the_prepared_data_gone(prepared: Path, run: Path, tmp_path: Path) -> None:
    moved = Path(shutil.copytree(run, tmp_path / "run"))
    train = json.loads((moved / "train.json").read_text(encoding="utf-8"))
    train["prepared"] = str(tmp_path / "gone")
    (moved / "train.json").write_text(json.dumps(train))
    for args in (["train", "--resume", moved], ["evaluate", moved]):
        assert "does not exist; run `mt prepare" in one_error_line(invoke(*args, code=2))


# ----- evaluate -----------------------------------------------------------------------------------


def test_bad_evaluate_inputs(run: Path, tmp_path: Path) -> None:
    binary = tmp_path / "binary.tsv"
    binary.write_bytes(b"\x00\x01\x02")
    cases = [
        *BAD_EVERYWHERE,
        *BAD_DECODING,
        (["--limit", "0"], "--limit must be positive, got 0"),
        (["--split", "train"], "--split must be test or selection, got 'train'"),
        (["--tsv", tmp_path / "none.tsv"], "does not exist"),
        (["--tsv", binary], "looks like a binary file"),
    ]
    for args, message in cases:
        assert message in one_error_line(invoke("evaluate", run, *args, code=2)), args


# ----- prepare: what test_corpus.py / test_prepare.py do not cover --------------------------------


def test_corpus_of_one_pair_repeated_is_too_small_to_split(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "same.tsv", [("Hello.", "Hola.")] * 300)
    result = invoke("prepare", corpus, "--out", tmp_path / "prep", code=2)
    assert "too small to split" in one_error_line(result)
    assert not (tmp_path / "prep").exists()


def test_vocabulary_larger_than_the_corpus_allows_is_a_note(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.tsv")
    args = ["--src-vocab", "50000", "--tgt-vocab", "50000"]
    result = invoke("prepare", corpus, "--out", tmp_path / "prep", *args)
    assert "note: the source vocabulary has" in result.stderr
    assert "fewer than the 50,000 asked for" in result.stderr


def test_every_row_of_the_bad_input_table_names_tests_that_exist() -> None:
    tests = Path(__file__).parent
    rows = [
        line.split(" | ")
        for line in (tests.parent / "docs" / "bad-inputs.md").read_text().splitlines()
        if line.startswith("| ") and not line.startswith(("| input", "| ---"))
    ]
    assert len(rows) > 80
    for row in rows:
        cited = re.findall(r"((?:\w+/)?test_\w+\.py)::(test_\w+)", row[-1])
        assert cited or row[-1].startswith(("same", "`...")), row
        for module, name in cited:
            source = (tests / module).read_text(encoding="utf-8")
            assert f"def {name}(" in source, f"{module}::{name} is cited but does not exist"
