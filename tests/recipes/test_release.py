"""mt.recipes.release and its command, mt.cli.release: `make model` as resumable steps.

Most tests run the recipe with FakeMt in place of the commands, which writes what each command
would (its own command line, so a changed option changes its output) and can die inside one;
two run the real chain on the invented corpus with a one-second budget."""

from __future__ import annotations

import json
import os
import shlex
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from mt.cli.release import app
from mt.errors import MtError
from mt.recipes.release import KINDS, ReleaseOptions, kind, release_steps, run_release
from mt.recipes.steps import Command, Decision, Step, run_command, run_steps
from tests.bench_support import write_general
from tests.conftest import write_corpus

ORDER = [
    "domains", "general", "tatoeba", "parts", "backtranslate-un-news", "prepare", "train",
    "evaluate", "demo",
]  # fmt: skip
SED = "sed s/a/A/g"  # the "Spanish→English" engine: every a made A


class FakeMt:
    """Stands for the recipe's commands: records each command line and writes its outputs."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.die_in = ""  # "train": killed after the run was set up; "setup": before
        self.kept: list[bool] = []  # for each back-translation: its output was there already

    def __call__(self, command: Command) -> None:
        line = command.shown()
        self.lines.append(line)
        words = shlex.split(line)
        flags = dict(zip(words, words[1:], strict=False))
        if words[:2] == ["mt", "train"]:
            self._train(Path(flags.get("--resume") or flags["--out"]), line)
        elif words[:2] == ["mt", "backtranslate"]:
            out = Path(flags["--out"])
            self.kept.append(out.exists())
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(line)
            out.with_name(out.name + ".backtranslate.json").write_text("{}")
        elif "--out" in flags:  # the splits, the held-out parts, mt prepare
            out = Path(flags["--out"])
            for name in ("selection.tsv", "test.tsv", "train/x.tsv", "dev/x.tsv"):
                (out / name).parent.mkdir(parents=True, exist_ok=True)
                (out / name).write_text(line)
        else:  # mt evaluate --json, mt translate --output
            Path(flags.get("--json") or flags["--output"]).write_text(line)

    def _train(self, run: Path, line: str) -> None:
        if self.die_in == "setup":
            run.mkdir(parents=True, exist_ok=True)
            raise MtError("interrupted", 130)
        if "--resume" not in line:
            run.mkdir(parents=True)  # mt train --force: the recipe removed the old run
            for name in ("model.json", "train.json"):
                (run / name).write_text(line)
        if self.die_in == "train":
            raise MtError("interrupted at step 7", 130)
        for name in ("source-tokenizer.json", "target-tokenizer.json", "best.safetensors"):
            (run / name).write_text(line)
        for name in ("last.safetensors", "metrics.csv"):
            (run / name).write_text(line)


class Lines:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def skipped(self, step: Step, decision: Decision) -> None:
        self.lines.append(f"{step.name}: {step.absent or 'skipped'}")

    def running(self, step: Step, decision: Decision) -> None:
        self.lines.append(f"{step.name}: {step.absent or decision.action.value}")

    def done(self, step: Step, seconds: float) -> None:
        self.lines.append(f"{step.name}: done")


@pytest.fixture
def options(tmp_path: Path) -> ReleaseOptions:
    domains = tmp_path / "domains"
    domains.mkdir()
    (domains / "pages.tsv").write_text("Hello.\tHola.\n")
    return ReleaseOptions(
        corpus=write_corpus(tmp_path / "corpus.tsv"),
        domains=domains,
        general=write_general(tmp_path / "general"),
        bt_engine=SED,
        budget="1s",
        runs=tmp_path / "runs",
    )


def recipe(options: ReleaseOptions, fake: FakeMt, **steps: str) -> dict[str, Decision]:
    fake.lines.clear()
    decisions = run_release(options, report=Lines(), runner=fake, **steps)
    return dict(decisions)


def redone(decisions: dict[str, Decision]) -> list[str]:
    return [name for name, decision in decisions.items() if decision.action.value != "skipped"]


def test_a_second_run_skips_every_step(options: ReleaseOptions) -> None:
    fake = FakeMt()
    first = recipe(options, fake)
    assert list(first) == ORDER and redone(first) == ORDER
    assert len(fake.lines) == len(ORDER)  # a command a step
    second = recipe(options, fake)
    assert redone(second) == [] and fake.lines == []
    assert {decision.why for decision in second.values()} == {"up to date"}


@pytest.mark.parametrize(
    ("change", "first", "why"),
    [
        ({"vocab": 100}, "prepare", "options changed: vocab"),
        ({"budget": "2s"}, "train", "options changed: budget"),
        ({"precision": "fp32"}, "train", "options changed: precision"),
        ({"bt_engine": "sed s/e/E/g"}, "backtranslate-un-news", "options changed: engine"),
    ],
)
def test_an_option_redoes_its_step_and_the_later_ones_not_the_earlier(
    options: ReleaseOptions, change: dict, first: str, why: str
) -> None:
    fake = FakeMt()
    recipe(options, fake)
    again = recipe(replace(options, **change), fake)
    assert redone(again) == ORDER[ORDER.index(first) :]
    assert again[first].why == why
    assert all(again[name].why.startswith("after ") for name in redone(again)[1:])


def test_a_changed_input_redoes_the_steps_that_read_it(options: ReleaseOptions) -> None:
    fake = FakeMt()
    recipe(options, fake)
    with options.corpus.open("a", encoding="utf-8") as corpus:
        corpus.write("One more.\tUno más.\n")
    again = recipe(options, fake)
    assert redone(again) == ["tatoeba", "parts", "prepare", "train", "evaluate", "demo"]
    assert again["tatoeba"].why == f"inputs changed: {options.corpus.as_posix()}"


def test_a_touched_but_unchanged_input_is_still_up_to_date(options: ReleaseOptions) -> None:
    fake = FakeMt()
    recipe(options, fake)
    os.utime(options.corpus, ns=(1, 1))
    assert redone(recipe(options, fake)) == []


@pytest.mark.parametrize(
    "damage", ["stamp deleted", "stamp garbled", "output gone", "output edited"]
)
def test_a_step_without_a_good_stamp_or_with_changed_outputs_is_redone(
    options: ReleaseOptions, damage: str
) -> None:
    fake = FakeMt()
    recipe(options, fake)
    stamp = options.runs / ".recipe" / "parts.json"
    output = options.runs / "model-parts" / "test.tsv"
    if damage == "stamp deleted":
        stamp.unlink()
    elif damage == "stamp garbled":
        stamp.write_text('{"format": 1, "step": "parts", "compl')
    elif damage == "output gone":
        output.unlink()
    else:
        output.write_text("something else")
    again = recipe(options, fake)
    assert redone(again) == ["parts", "prepare", "train", "evaluate", "demo"]
    assert again["parts"].why == (
        "no stamp" if damage.startswith("stamp") else f"outputs changed: {output.as_posix()}"
    )
    assert output.read_text().startswith("python -m mt.recipes.model_parts")


def test_an_interrupted_training_is_resumed_not_restarted(options: ReleaseOptions) -> None:
    fake = FakeMt()
    fake.die_in = "train"
    with pytest.raises(MtError, match=r"^train: interrupted at step 7$") as caught:
        recipe(options, fake)
    assert caught.value.exit_code == 130
    run = options.runs / "model"
    assert (run / "train.json").is_file() and not (run / "best.safetensors").exists()
    fake.die_in = ""
    again = recipe(options, fake)
    assert redone(again) == ["train", "evaluate", "demo"]
    assert again["train"].action.value == "resumed"
    assert fake.lines[0] == shlex.join(["mt", "train", "--resume", str(run)])
    assert not any("--force" in line for line in fake.lines if line.startswith("mt train"))
    assert redone(recipe(options, fake)) == []


def test_a_training_killed_before_it_was_set_up_starts_again(options: ReleaseOptions) -> None:
    fake = FakeMt()
    fake.die_in = "setup"
    with pytest.raises(MtError, match="^train: interrupted$"):
        recipe(options, fake)
    fake.die_in = ""
    again = recipe(options, fake)
    assert again["train"].action.value == "run" and "--force" in fake.lines[0]


def test_an_interrupted_run_of_other_options_is_not_resumed(options: ReleaseOptions) -> None:
    fake = FakeMt()
    fake.die_in = "train"
    with pytest.raises(MtError):
        recipe(options, fake)
    fake.die_in = ""
    again = recipe(replace(options, budget="2s"), fake)
    assert again["train"].action.value == "run" and again["train"].why == "options changed: budget"
    assert "--time-budget 2s" in fake.lines[0] and "--resume" not in fake.lines[0]


def test_absent_shared_data_is_left_out_with_a_clear_line(
    options: ReleaseOptions, tmp_path: Path
) -> None:
    stale = options.runs / "model-split" / "train" / "news.tsv"
    stale.parent.mkdir(parents=True)
    stale.write_text("from an earlier recipe\n")
    bare = replace(options, domains=tmp_path / "no", general=tmp_path / "nil")
    fake, report = FakeMt(), Lines()
    run_release(bare, report=report, runner=fake)
    assert f"domains: {tmp_path / 'no'} is absent: no domain data" in report.lines
    assert f"general: {tmp_path / 'nil'} is absent: no general data" in report.lines
    source = tmp_path / "nil" / "un-news.es.tsv.xz"
    assert f"backtranslate-un-news: {source} is absent: no back-translation" in report.lines
    assert [line.split()[:2] for line in fake.lines] == [
        ["mt", "prepare"], ["python", "-m"], ["mt", "prepare"], ["mt", "train"],
        ["mt", "evaluate"], ["mt", "translate"],
    ]  # fmt: skip
    assert "--synthetic " not in fake.lines[2] and not stale.exists()
    again = recipe(replace(bare, domains=options.domains), fake)
    assert redone(again) == ["domains", "parts", "prepare", "train", "evaluate", "demo"]


def test_back_translation_keeps_its_output_unless_the_engine_changed(
    options: ReleaseOptions,
) -> None:
    fake = FakeMt()
    recipe(options, fake)
    (options.runs / ".recipe" / "backtranslate-un-news.json").unlink()
    recipe(options, fake)  # mt backtranslate finds its finished file and keeps it
    recipe(replace(options, bt_engine="sed s/o/O/g"), fake)
    assert fake.kept == [False, True, False]


def test_a_missing_engine_is_one_clear_line_and_only_when_it_must_run(
    options: ReleaseOptions,
) -> None:
    fake = FakeMt()
    recipe(options, fake)
    missing = replace(options, bt_engine="no-such-engine -u spa-eng")
    with pytest.raises(MtError, match="^backtranslate-un-news: no-such-engine is missing: sudo"):
        recipe(missing, fake)
    (options.general / "un-news.es.tsv.xz").unlink()
    assert "backtranslate-un-news" in redone(recipe(missing, fake))  # absent: nothing to run


def test_from_step_redoes_it_and_what_follows_and_to_step_stops(
    options: ReleaseOptions,
) -> None:
    fake = FakeMt()
    assert list(recipe(options, fake, to_step="prepare")) == ORDER[: ORDER.index("prepare") + 1]
    assert not (options.runs / "model").exists()
    recipe(options, fake)
    again = recipe(options, fake, from_step="train")
    assert redone(again) == ["train", "evaluate", "demo"]
    assert {again[name].why for name in redone(again)} == {"--from-step"}
    with pytest.raises(MtError, match="--from-step model: not a step; the steps: domains, "):
        recipe(options, fake, from_step="model")


def test_a_failing_command_is_one_line_naming_its_step(tmp_path: Path) -> None:
    fails = Command((sys.executable, "-c", "raise SystemExit(3)"))
    step = Step("check", (fails,), outputs=(tmp_path / "out",))
    with pytest.raises(MtError, match=r"^check: `python -c 'raise SystemExit\(3\)'` failed") as e:
        run_steps([step], stamps=tmp_path / "stamps", runner=run_command, report=Lines())
    assert e.value.exit_code == 1
    stamp = json.loads((tmp_path / "stamps" / "check.json").read_text())
    assert stamp["complete"] is False  # redone next time


def release_cli(*args: str | Path, code: int = 0) -> Result:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def test_bad_choices_are_one_line_before_any_step_runs(options: ReleaseOptions) -> None:
    runs = ("--runs", options.runs)
    missing = release_cli("--corpus", options.runs / "none.tsv", *runs, code=2).output
    assert missing.strip().startswith("error: --corpus") and "make corpus" in missing
    for option, value in (("--from-step", "all"), ("--budget", "soon"), ("--precision", "fp8")):
        output = release_cli("--corpus", options.corpus, *runs, option, value, code=2).output
        assert output.strip().startswith("error:") and len(output.strip().splitlines()) == 1
    assert not options.runs.exists()


@pytest.fixture(scope="module")
def real_chain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    """The recipe up to training, for real, on the invented corpus: no domains, the tiny general
    sets, their monolingual set back-translated by sed, 200-label tokenizers, one second."""
    root = tmp_path_factory.mktemp("release")
    args = [
        "--corpus", str(write_corpus(root / "corpus.tsv")), "--domains", str(root / "none"),
        "--general", str(write_general(root / "general")), "--bt-engine", SED, "--vocab", "200",
        "--budget", "1s", "--precision", "fp32", "--runs", str(root / "runs"), "--to-step",
        "train",
    ]  # fmt: skip
    output = release_cli(*args).output
    assert [line.split(":")[0] for line in output.splitlines() if ": done in" in line] == (
        ORDER[1 : ORDER.index("train") + 1]
    )
    return root, args


@pytest.mark.slow
def test_the_real_chain_trains_then_skips_every_step(real_chain: tuple[Path, list[str]]) -> None:
    root, args = real_chain
    run = root / "runs" / "model"
    prepared = json.loads((run / "train.json").read_text())["prepared"]
    assert Path(prepared) == (root / "runs" / "model-data").resolve()
    synthetic = (root / "runs" / "bt" / "un-news.tsv").read_text(encoding="utf-8").splitlines()
    assert len(synthetic) == 40 and "El niño" in synthetic[0]
    lines = release_cli(*args).output.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == ORDER[: ORDER.index("train") + 1]
    assert all(line.endswith("(up to date)") for line in lines)


@pytest.mark.slow
def test_a_killed_training_resumes_for_real(real_chain: tuple[Path, list[str]]) -> None:
    """A stamp left as a kill leaves it (not complete) on a run with a checkpoint: `mt train
    --resume` goes on from its step, one more step past the spent budget."""
    root, args = real_chain
    stamp = root / "runs" / ".recipe" / "train.json"
    stamp.write_text(json.dumps({**json.loads(stamp.read_text()), "complete": False}))
    metrics = root / "runs" / "model" / "metrics.csv"
    steps = [int(line.split(",")[0]) for line in metrics.read_text().splitlines()[1:]]
    output = release_cli(*args).output
    assert "train: resuming (it stopped before the end)" in output
    after = [int(line.split(",")[0]) for line in metrics.read_text().splitlines()[1:]]
    assert after == [*steps, steps[-1] + 1]
    assert json.loads(stamp.read_text())["complete"] is True


def test_every_step_has_a_kind_that_from_step_names(options: ReleaseOptions) -> None:
    assert [kind(step) for step in release_steps(options)] == list(KINDS)
