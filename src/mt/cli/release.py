"""`python -m mt.cli.release`: the release recipe (mt.recipes.release), what `make model` runs,
a line a step: skipped (up to date), running and why, done and how long it took.

    python -m mt.cli.release --budget 95m
    python -m mt.cli.release --from-step train      # train again, then what follows
    python -m mt.cli.release --to-step prepare      # the data only
"""

from __future__ import annotations

from typing import Annotated

import typer

from mt.cli.common import Opt, console, fields_as_options, run_or_exit, say, takes
from mt.recipes.release import KINDS, ReleaseOptions, run_release
from mt.recipes.steps import Action, Decision, Step

app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
DEFAULTS = ReleaseOptions()
STEPS = ", ".join(KINDS)


INPUTS = {  # each option's help, by the ReleaseOptions field it fills
    "corpus": "The Tatoeba corpus (make corpus).",
    "domains": "The shared domain data; absent: no domain data.",
    "general": "The shared general sets and monolingual Spanish; absent: none of them.",
}
CHOICES = {
    "synthetic_share": "Share of the training pairs the back-translations may take at most.",
    "vocab": "Labels of each tokenizer.",
    "budget": "Training time, e.g. 95m.",
    "temperature": "Sampling temperature that repeats the smaller real corpora.",
    "bt_engine": "The Spanish→English command of the back-translation.",
    "precision": "Of training, evaluation and the demo: auto, fp32, bf16, fp16.",
    "runs": "Where every step writes; its stamps in RUNS/.recipe.",
}


@app.command()
@takes(fields_as_options(ReleaseOptions, INPUTS), into="inputs")
@takes(fields_as_options(ReleaseOptions, CHOICES), into="choices")
def release(
    *,
    inputs: dict,
    synthetic: Annotated[
        list[str] | None,
        Opt(
            help="GENERAL/SET.es.tsv.xz to back-translate and train on; repeat for more.",
            show_default="un-news",
        ),
    ] = None,
    no_synthetic: Annotated[bool, Opt("--no-synthetic", help="Back-translate nothing.")] = False,
    choices: dict,
    from_step: Annotated[
        str | None, Opt(help=f"Run this step and all after it again, up to date or not: {STEPS}.")
    ] = None,
    to_step: Annotated[str | None, Opt(help="Stop after this step.")] = None,
) -> None:
    """Train the release model: each step skipped when its inputs, options and outputs are those
    of its last complete run, resumed when a kill stopped it, else run again with what follows."""
    named = () if no_synthetic else tuple(synthetic or DEFAULTS.synthetic)
    options = ReleaseOptions(**inputs, **choices, synthetic=named)
    run_or_exit(lambda: run_release(options, report=Lines(), from_step=from_step, to_step=to_step))
    demo = options.runs / "model" / "demo.txt"
    if demo.is_file() and to_step in (None, "demo"):
        say(f"[bold]{demo}:[/]")
        console.print(demo.read_text(encoding="utf-8").rstrip("\n"), highlight=False, markup=False)


class Lines:
    """mt.recipes.steps.Report as a line a step on the console."""

    def skipped(self, step: Step, decision: Decision) -> None:
        say(f"[dim]{step.name}: {step.absent or 'skipped'} ({decision.why})[/]")

    def running(self, step: Step, decision: Decision) -> None:
        doing = "resuming" if decision.action is Action.RESUME else "running"
        say(f"[bold]{step.name}:[/] {step.absent or doing} ({decision.why})")

    def done(self, step: Step, seconds: float) -> None:
        if not step.absent:
            say(f"[bold]{step.name}:[/] [green]done[/] in {duration(seconds)}")


def duration(seconds: float) -> str:
    """3.2 s, 6 min 30 s, 1 h 35 min."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    return f"{minutes // 60} h {minutes % 60} min"


if __name__ == "__main__":
    app()
