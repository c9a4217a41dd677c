"""The `mt` command line: parse options, call one library function, print with rich.

No torch import at module level, so `mt --help` and `mt prepare` start fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Annotated, TypeVar

import typer
from rich.console import Console

from mt import __version__
from mt.errors import MtError

app = typer.Typer(
    name="mt",
    help="English-to-Spanish neural machine translation: download, prepare, train, translate, evaluate.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)
_state = {"debug": False}

T = TypeVar("T")


def run_or_exit(action: Callable[[], T]) -> T:
    """Run a library call; a user-facing problem becomes one red line and an exit code."""
    try:
        return action()
    except MtError as error:
        if _state["debug"]:
            raise
        console.print(f"[bold red]error:[/] {error}", highlight=False, soft_wrap=True)
        raise typer.Exit(error.exit_code) from None
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        raise typer.Exit(130) from None


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
    _state["debug"] = debug


def stdout_is_piped() -> bool:
    return not sys.stdout.isatty()
