"""The command line end to end on a tiny corpus: every stage, its exit code and its output."""

import json
from pathlib import Path

from typer.testing import CliRunner

from mt.catalog.modelinfo import resolve
from mt.cli.app import app
from mt.decode.loaded import LoadedModel
from mt.model.rundir import load_run
from mt.text.first_words import capitalised_first

runner = CliRunner()


def invoke(*args: str):
    return runner.invoke(app, list(args))


def test_help_lists_every_stage() -> None:
    result = invoke("--help")
    assert result.exit_code == 0, result.output
    for command in ("download", "prepare", "train", "translate", "evaluate"):
        assert command in result.output


def test_help_lists_commands_in_pipeline_order_each_with_an_example() -> None:
    from mt.cli.app import PIPELINE

    listed = [name for name in app_commands() if name in PIPELINE]
    assert listed == [name for name in PIPELINE if name in listed]
    assert listed[:5] == ["download", "prepare", "train", "translate", "evaluate"]
    for name in app_commands():
        result = invoke(name, "--help")
        assert result.exit_code == 0, result.output
        assert f"Example: mt {name} " in result.output, name


def app_commands() -> list[str]:
    """Command names in the order `mt --help` shows them."""
    import typer.main

    group = typer.main.get_command(app)
    return group.list_commands(None)


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and result.output.startswith("mt ")


def test_a_run_of_one_command_builds_that_command_alone(monkeypatch, capsys, tmp_path) -> None:
    """How `mt` starts: app() with the words typed. Building every command's options is a tenth
    of a second that `mt translate` should not pay; help and unknown words see the whole app."""
    import typer.main

    built: list[str] = []
    build = typer.main.get_command_from_info

    def counted(**kwargs):
        built.append(kwargs["command_info"].callback.__name__)
        return build(**kwargs)

    monkeypatch.setattr(typer.main, "get_command_from_info", counted)
    monkeypatch.chdir(tmp_path)  # `mt models` lists the runs of the folder it is in
    app(["--debug", "models"], prog_name="mt", standalone_mode=False)
    assert built == ["models"]
    assert "(default)" in capsys.readouterr().out
    for words in (["--help"], ["--help", "models"]):
        built.clear()
        app(words, prog_name="mt", standalone_mode=False)
        assert len(built) == len(app.registered_commands), words
    built.clear()
    result = invoke("tranlate", "Hello")
    assert result.exit_code == 2 and "Did you mean 'translate'" in result.output
    assert len(built) == len(app.registered_commands)


def test_train_writes_a_complete_run_directory(trained_run: Path) -> None:
    names = {p.name for p in trained_run.iterdir()}
    expected = {
        "model.json",
        "train.json",
        "source-tokenizer.json",
        "target-tokenizer.json",
        "best.safetensors",
        "last.safetensors",
        "metrics.csv",
        "curves.png",
        "checkpoints",
    }
    assert expected <= names
    rows = (trained_run / "metrics.csv").read_text().splitlines()
    assert rows[0].startswith("step,epoch,lr,train_loss,train_accuracy,selection_loss")
    assert len(rows) >= 4  # header + evaluations at steps 20, 40, 60
    model = json.loads((trained_run / "model.json").read_text())
    assert model["model"]["d_model"] == 64 and model["model"]["arch"] == "transformer"


def test_dry_run_prints_the_parameter_count(trained_run: Path) -> None:
    prepared = trained_run.parent / "data"
    result = invoke("train", str(prepared), "--preset", "thesis-small", "--dry-run")
    assert result.exit_code == 0, result.output
    # thesis-small with 150/180 labels: embeddings, 1+1 layers, output projection with bias
    expected = 150 * 64 + 180 * 64 + 33_472 + 50_240 + 64 * 180 + 180
    assert result.output.strip() == f"parameters: {expected:,}"


def test_existing_run_directory_needs_force_or_resume(trained_run: Path) -> None:
    prepared = trained_run.parent / "data"
    result = invoke("train", str(prepared), "--out", str(trained_run), "--max-steps", "1")
    assert result.exit_code == 2, result.output
    assert "--resume" in result.output and "Traceback" not in result.output


def test_translate_keeps_order_and_empty_lines(trained_run: Path, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("I am here.\n\nWe are tired.\n", encoding="utf-8")
    out = tmp_path / "out.txt"
    result = invoke(
        "translate",
        "--model",
        str(trained_run),
        "-i",
        str(source),
        "-o",
        str(out),
        "--beam-size",
        "2",
    )
    assert result.exit_code == 0, result.output
    lines = out.read_text(encoding="utf-8").split("\n")
    assert len(lines) == 4 and lines[1] == "" and lines[3] == ""


def test_translate_arguments_and_n_best(trained_run: Path) -> None:
    result = invoke(
        "translate", "--model", str(trained_run), "I am here.", "--beam-size", "3", "--n-best", "3"
    )
    assert result.exit_code == 0, result.output
    rows = [line.split("\t") for line in result.stdout.strip().split("\n")]
    assert len(rows) == 3 and all(row[0] == "0" for row in rows)
    scores = [float(row[1]) for row in rows]
    assert scores == sorted(scores, reverse=True)


def test_translate_cognates_flag_places_a_never_seen_noun_s_cognate(trained_run: Path) -> None:
    line = "Where is the velocity?"
    plain = invoke("translate", "--model", str(trained_run), line)
    helped = invoke("translate", "--model", str(trained_run), "--cognates", line)
    assert plain.exit_code == 0 and helped.exit_code == 0, helped.output
    assert "velocidad" not in plain.stdout and "velocidad" in helped.stdout.lower()


def test_translate_first_words_flag_searches_the_first_word_in_lower_case(
    trained_run: Path,
) -> None:
    words = LoadedModel(load_run(resolve(trained_run)), "cpu").first_words
    lowered = sorted(w for w in words.candidates if words.lowered(w.capitalize()) is not None)
    line = f"{lowered[0].capitalize()} is near the station."
    as_lower = invoke("translate", "--model", str(trained_run), "--no-normalize", line.lower())
    helped = invoke("translate", "--model", str(trained_run), "--first-words", line)
    assert as_lower.exit_code == 0 and helped.exit_code == 0, helped.output
    assert helped.stdout == capitalised_first(as_lower.stdout)


def test_translate_json_and_scores_carry_confidence_and_flags(trained_run: Path) -> None:
    sentences = ["I am here.", "Ich möchte heute Abend ins Kino gehen."]
    result = invoke("translate", "--model", str(trained_run), *sentences, "--json")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.strip().split("\n")]
    assert [r["source"] for r in records] == sentences
    assert all(0.0 <= r["confidence"] <= 1.0 for r in records)
    assert "not_english" in records[1]["flags"]
    assert records[0]["hypotheses"][0]["translation"] == records[0]["translation"]
    assert "no calibration.json" in result.stderr  # the tiny run is not calibrated
    scored = invoke("translate", "--model", str(trained_run), *sentences, "--scores")
    # only the final newline goes: an untrained model's translation may start with a space
    rows = [line.split("\t") for line in scored.stdout.rstrip("\n").split("\n")]
    assert [row[0] for row in rows] == [r["translation"] for r in records]
    for row, record in zip(rows, records, strict=True):
        assert abs(float(row[1]) - record["confidence"]) <= 0.001
    assert rows[1][2] == ",".join(records[1]["flags"])
    both = invoke("translate", "--model", str(trained_run), "Hi.", "--json", "--scores")
    assert both.exit_code != 0 and "--scores or --json" in both.output


def test_calibrate_writes_a_calibration_that_translate_uses(
    trained_run: Path, tmp_path: Path
) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    result = invoke("calibrate", str(run), "--sentences", "60", "--beam-size", "1")
    assert result.exit_code == 0, result.output
    data = json.loads((run / "calibration.json").read_text())
    assert data["fitted"]["sentences"] > 20
    assert data["fitted"]["target"].startswith("P(sentence chrF >= 50)")
    good = data["fitted"]["good_sentences"]
    assert abs(good / data["fitted"]["sentences"] - data["fitted"]["good_share"]) <= 1e-4
    few = min(good, data["fitted"]["sentences"] - good) < 20
    assert ("the confidence rests on few examples" in result.stderr) == few
    scored = invoke("translate", "--model", str(run), "I am here.", "--json")
    assert "no calibration.json" not in scored.stderr
    (run / "calibration.json").write_text('{"format_version": 1, "features": []}')
    broken = invoke("translate", "--model", str(run), "I am here.", "--json")
    assert broken.exit_code != 0 and "calibration.json: features" in broken.output
    assert "Traceback" not in broken.output


def test_translate_attention_heatmap(trained_run: Path, tmp_path: Path) -> None:
    image = tmp_path / "attention.png"
    result = invoke(
        "translate", "--model", str(trained_run), "We are tired.", "--attention", str(image)
    )
    assert result.exit_code == 0, result.output
    assert image.read_bytes().startswith(b"\x89PNG")


def test_evaluate_reports_and_writes_json(trained_run: Path, tmp_path: Path) -> None:
    report_file, hyps = tmp_path / "report.json", tmp_path / "hyps.txt"
    result = invoke(
        "evaluate",
        str(trained_run),
        "--limit",
        "30",
        "--beam-size",
        "2",
        "--multi-ref",
        "--json",
        str(report_file),
        "--hyps",
        str(hyps),
    )
    assert result.exit_code == 0, result.output
    report = json.loads(report_file.read_text())
    assert report["pairs"] == 30
    assert 0 <= report["accuracy"] <= 1 and report["cross_entropy"] > 0
    assert report["signatures"]["bleu"].startswith("nrefs:1|")
    assert report["multi_ref"]["sentences"] <= 30
    assert len(hyps.read_text(encoding="utf-8").splitlines()) == 30


def test_resume_continues_a_stopped_run(trained_run: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "run"
    shutil.copytree(trained_run, copy)
    result = invoke("train", "--resume", str(copy), "--max-steps", "70", "--peak-tflops", "0.1")
    assert result.exit_code == 0, result.output
    assert "resuming" in result.output and "reached --max-steps 70" in result.output
    assert "target tokens/s" in result.output and "of 0.1 TFLOP/s (--peak-tflops)" in result.output
