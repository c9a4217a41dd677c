"""The `mt` command line: the Typer app and its commands, one module a stage, each parsing its
options, calling one library function and printing with rich. No torch import at module level,
so `mt --help` and `mt prepare` start fast.
"""

from __future__ import annotations

import copy
import sys
from typing import Annotated, Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption

from mt._version import __version__
from mt.cli.backtranslate import backtranslate
from mt.cli.calibrate import calibrate
from mt.cli.common import state
from mt.cli.data import download, prepare
from mt.cli.decode import evaluate, translate
from mt.cli.models import models
from mt.cli.service import export, serve
from mt.cli.train import train
from mt.runtime.native_memory import bound_native_caches
from mt.train.run_config import recipe_values

bound_native_caches()  # before any command does matrix work

PIPELINE = (
    "download", "prepare", "train", "translate", "evaluate", "calibrate", "export", "serve"
)  # fmt: skip


class _PipelineOrder(TyperGroup):
    """`mt --help` lists the commands in the order they are used, wherever they are defined;
    `mt train --help` shows the default recipe's value of each option it leaves unset."""

    def list_commands(self, ctx: typer.Context) -> list[str]:
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: PIPELINE.index(n) if n in PIPELINE else len(PIPELINE))

    def get_command(self, ctx: typer.Context, cmd_name: str) -> TyperCommand | None:
        command = super().get_command(ctx, cmd_name)
        if cmd_name == "train" and isinstance(command, TyperCommand):
            values = recipe_values(None)
            for param in command.params:
                if param.name in values and isinstance(param, TyperOption):
                    param.show_default = f"recipe: {values[param.name]}"
        return command


class _OnlyTheCommandRun(typer.Typer):
    """Typer reads the signature of every command each time `mt` starts (0.08 s of `mt translate
    --help` on 2 cores); a run of one command builds the app with that command alone. Help, the
    version, or a word that names no command get the whole app, so its listing and "did you
    mean" hold."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        words = kwargs.get("args", args[0] if args else None)
        words = list(sys.argv[1:] if words is None else words)
        at = next((i for i, word in enumerate(words) if word[:1] != "-"), len(words))
        name = words[at] if at < len(words) else None
        chosen = [c for c in self.registered_commands if _name_of(c) == name]
        if not chosen or set(words[:at]) - {"--debug"}:  # `mt --help train`: the whole app's help
            return super().__call__(*args, **kwargs)
        narrow = copy.copy(self)
        narrow.registered_commands = chosen
        return typer.Typer.__call__(narrow, *args, **kwargs)


def _name_of(command: typer.models.CommandInfo) -> str:
    return command.name or typer.main.get_command_name(command.callback.__name__)


app = _OnlyTheCommandRun(
    name="mt",
    cls=_PipelineOrder,
    help="English-to-Spanish neural machine translation: "
    "download, prepare, train, translate, evaluate; then export, serve.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        print(f"mt {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
) -> None:
    """English-to-Spanish neural machine translation."""
    state["debug"] = debug


# The commands, in the order of the pipeline (PIPELINE orders `mt --help` the same way).
for command in (download, prepare, train, translate, evaluate, calibrate, export, serve):
    app.command()(command)
app.command()(models)  # not a step of the pipeline: listed after it
app.command()(backtranslate)  # monolingual Spanish into synthetic pairs
