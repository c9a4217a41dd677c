"""The release recipe (`make model`, docs/general.md) as resumable steps (mt.recipes.steps), each
run as the command a person would type (`python -m mt ...`). Every path is under RUNS (default
runs/), the stamps in RUNS/.recipe/; absent shared data is left out with what it feeds.

    python -m mt.cli.release --budget 95m        # what `make model` runs
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from mt.config import RECIPES, parse_duration
from mt.errors import MtError
from mt.recipes.steps import (
    Command,
    Decision,
    Glob,
    Report,
    Resume,
    Runner,
    Step,
    run_command,
    run_steps,
)
from mt.storage.files import (
    BEST_WEIGHTS,
    LAST_WEIGHTS,
    METRICS_CSV,
    MODEL_JSON,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    TRAIN_JSON,
)

KINDS = (
    "domains", "general", "tatoeba", "parts", "backtranslate", "prepare", "train", "evaluate",
    "demo",
)  # fmt: skip
"""The steps in order, as --from-step and --to-step name them (a back-translation step a set)."""
GENERAL_SETS = ("tico19.tsv", "xquad.tsv", "flores-dev.tsv")
EVAL_EVERY = 1000
MAX_LENGTH = 64
DEMO = ("Where is the train station?", "The committee approved the report on Tuesday.")
BT_ADVICE = "sudo apt-get install apertium-eng-spa (or give another --bt-engine)"


@dataclass(frozen=True)
class ReleaseOptions:
    """The recipe's choices; the defaults are `make model`'s (docs/general.md says why)."""

    corpus: Path = Path("data/spa-eng.tsv")
    domains: Path = Path("../shared/data/domains")
    general: Path = Path("../shared/data/general")
    synthetic: tuple[str, ...] = ("un-news",)  # GENERAL/SET.es.tsv.xz, back-translated
    synthetic_share: float = 0.5
    vocab: int = 8000
    budget: str = "95m"
    temperature: float = 2.0
    bt_engine: str = "apertium -u spa-eng"
    precision: str = "auto"  # of training, evaluation and the demo
    runs: Path = Path("runs")

    def check(self) -> None:
        """One clear error for a choice no step could run with, before any step runs."""
        if not self.corpus.is_file():
            raise MtError(f"--corpus {self.corpus} does not exist: run `make corpus` first")
        parse_duration(self.budget)
        dataclasses.replace(RECIPES["default"].train, precision=self.precision)  # checks it
        for name in self.synthetic:
            if not name or "/" in name or name.startswith("."):
                raise MtError(f"--synthetic {name!r}: give a set's name, e.g. un-news")
        if not shlex.split(self.bt_engine):
            raise MtError("--bt-engine is empty: give a command such as 'apertium -u spa-eng'")


@dataclass(frozen=True)
class Layout:
    """Where each step writes."""

    split: Path
    general: Path
    tatoeba: Path
    parts: Path
    bt: Path
    data: Path
    model: Path
    stamps: Path

    @classmethod
    def under(cls, runs: Path) -> Layout:
        return cls(
            split=runs / "model-split", general=runs / "model-general",
            tatoeba=runs / "tatoeba-split", parts=runs / "model-parts", bt=runs / "bt",
            data=runs / "model-data", model=runs / "model", stamps=runs / ".recipe",
        )  # fmt: skip


def mt(*args: str | Path | Glob) -> Command:
    return Command((sys.executable, "-m", "mt", *args))


def module(name: str, *args: str | Path) -> Command:
    return Command((sys.executable, "-m", name, *args))


def release_steps(options: ReleaseOptions) -> list[Step]:
    """The recipe's steps, in order."""
    where = Layout.under(options.runs)
    back_translations = _bt_steps(options, where)
    return [
        *_split_steps(options, where),
        *back_translations,
        _prepare_step(options, where, after=[step.name for step in back_translations]),
        *_model_steps(options, where),
    ]


def _split_steps(options: ReleaseOptions, where: Layout) -> list[Step]:
    domains, general = options.domains, options.general
    general_files = tuple(general / name for name in GENERAL_SETS)
    # Any one set will do: `mt download --recipe` can fetch XQuAD but not TICO-19 or FLORES.
    no_general = (
        "" if any(map(Path.is_file, general_files)) else f"{general} is absent: no general data"
    )
    return [
        Step(
            "domains",
            (module("mt.recipes.domain_split", "--domains", domains, "--out", where.split),),
            inputs=(domains,),
            outputs=(where.split,),
            absent="" if domains.is_dir() else f"{domains} is absent: no domain data",
        ),
        Step(
            "general",
            (module("mt.recipes.general_split", "--general", general, "--out", where.general),),
            inputs=general_files,
            outputs=(where.general,),
            absent=no_general,
        ),
        Step(
            "tatoeba",
            (mt("prepare", options.corpus, "--out", where.tatoeba, "--force"),),
            inputs=(options.corpus,),
            outputs=(where.tatoeba,),
        ),
        Step(
            "parts",
            (
                module(
                    "mt.recipes.model_parts",
                    "--tatoeba",
                    where.tatoeba,
                    "--split",
                    where.split,
                    "--general",
                    where.general,
                    "--out",
                    where.parts,
                ),
            ),  # fmt: skip
            inputs=(
                where.tatoeba / "selection.tsv",
                where.tatoeba / "test.tsv",
                where.split / "dev",
                where.split / "test",
                where.general / "dev",
                where.general / "test",
            ),  # fmt: skip
            outputs=(where.parts,),
            after=("domains", "general", "tatoeba"),
        ),
    ]


def _bt_steps(options: ReleaseOptions, where: Layout) -> list[Step]:
    """One a monolingual set; `mt backtranslate` goes on from its own sidecar, so a killed step
    resumes where it stopped and its output is kept unless the file or the engine changed."""
    steps = []
    for name in options.synthetic:
        source, out = options.general / f"{name}.es.tsv.xz", where.bt / f"{name}.tsv"
        steps.append(
            Step(
                f"backtranslate-{name}",
                (mt("backtranslate", source, "--engine", options.bt_engine, "--out", out),),
                inputs=(source,),
                options={"engine": options.bt_engine},
                outputs=(out, out.with_name(out.name + ".backtranslate.json")),
                keeps_outputs=True,
                absent="" if source.is_file() else f"{source} is absent: no back-translation",
                tools=((shlex.split(options.bt_engine)[0], BT_ADVICE),),
            )
        )
    return steps


def _prepare_step(options: ReleaseOptions, where: Layout, *, after: list[str]) -> Step:
    synthetic = [
        where.bt / f"{name}.tsv"
        for name in options.synthetic
        if (options.general / f"{name}.es.tsv.xz").is_file()
    ]
    settings = {
        "synthetic_share": options.synthetic_share,
        "vocab": options.vocab,
        "temperature": options.temperature,
        "paragraphs": "all",
        "max_length": MAX_LENGTH,
    }
    command = mt(
        "prepare", options.corpus, Glob(where.split / "train", "*.tsv"),
        Glob(where.general / "train", "*.tsv"), *[w for p in synthetic for w in ("--synthetic", p)],
        "--synthetic-share", str(options.synthetic_share),
        "--selection", where.parts / "selection.tsv", "--test", where.parts / "test.tsv",
        "--src-vocab", str(options.vocab), "--tgt-vocab", str(options.vocab),
        "--paragraphs", "all", "--max-length", str(MAX_LENGTH),
        "--sampling-temperature", str(options.temperature), "--out", where.data, "--force",
    )  # fmt: skip
    return Step(
        "prepare",
        (command,),
        inputs=(
            options.corpus,
            where.split / "train",
            where.general / "train",
            *synthetic,
            where.parts / "selection.tsv",
            where.parts / "test.tsv",
        ),  # fmt: skip
        options=settings,
        outputs=(where.data,),
        after=("domains", "general", "parts", *after),
    )


def _model_steps(options: ReleaseOptions, where: Layout) -> list[Step]:
    """Training resumes a run this recipe started from the same data and options (`mt train
    --resume`); evaluation and the demo write their files beside the weights."""
    run = where.model
    weights = tuple(
        run / name
        for name in (MODEL_JSON, TRAIN_JSON, SOURCE_TOKENIZER, TARGET_TOKENIZER, BEST_WEIGHTS)
    )
    precision = ("--precision", options.precision)
    precise = {"precision": options.precision}
    train = mt(
        "train", where.data, "--out", run, "--force", "--time-budget", options.budget,
        "--eval-every", str(EVAL_EVERY), *precision,
    )  # fmt: skip
    return [
        Step(
            "train",
            (train,),
            inputs=(where.data,),
            options={"budget": options.budget, "eval_every": EVAL_EVERY, **precise},
            outputs=(*weights, run / LAST_WEIGHTS, run / METRICS_CSV),
            clears=(run,),  # all of it: its listed files alone would leave what --force refuses
            after=("prepare",),
            resume=Resume((mt("train", "--resume", run),), needs=weights[:2]),
        ),
        Step(
            "evaluate",
            (mt("evaluate", run, "--json", run / "test.json", *precision),),
            inputs=(*weights, where.data / "test.tsv"),
            options=precise,
            outputs=(run / "test.json",),
            after=("train",),
        ),
        Step(
            "demo",
            (mt("translate", "--model", run, *DEMO, "--output", run / "demo.txt", *precision),),
            inputs=weights,
            options={"sentences": list(DEMO), **precise},
            outputs=(run / "demo.txt",),
            after=("train",),
        ),
    ]


def kind(step: Step) -> str:
    return step.name.split("-")[0]


def chosen(steps: Sequence[Step], from_step: str | None, to_step: str | None) -> list[Step]:
    """The steps up to `to_step` (a kind of KINDS)."""
    for option, value in (("--from-step", from_step), ("--to-step", to_step)):
        if value is not None and value not in KINDS:
            raise MtError(f"{option} {value}: not a step; the steps: {', '.join(KINDS)}")
    last = KINDS.index(to_step) if to_step else len(KINDS)
    return [step for step in steps if KINDS.index(kind(step)) <= last]


def run_release(
    options: ReleaseOptions,
    *,
    report: Report,
    runner: Runner = run_command,
    from_step: str | None = None,
    to_step: str | None = None,
) -> list[tuple[str, Decision]]:
    """Run the recipe: what is up to date skipped, what a kill stopped resumed; `from_step` and
    every step after it run again whatever their stamps. The decisions, step by step."""
    options.check()
    steps = chosen(release_steps(options), from_step, to_step)
    first = KINDS.index(from_step) if from_step else len(KINDS)
    forced = [step.name for step in steps if KINDS.index(kind(step)) >= first]
    return run_steps(
        steps, stamps=Layout.under(options.runs).stamps, runner=runner, report=report, forced=forced
    )
