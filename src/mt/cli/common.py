"""What every `mt` command shares: the console it prints to and how a failure ends it."""

from __future__ import annotations

import signal
from collections.abc import Callable
from typing import TypeVar

import typer
from rich.console import Console

from mt.errors import MtError
from mt.interrupts import handling

Opt = typer.Option
console = Console(stderr=True)
state = {"debug": False}  # --debug: tracebacks instead of one line

T = TypeVar("T")


def say(text: str) -> None:
    """One line of a command's report as written: its markup ("[yellow]warning:[/]") shown, its
    numbers and paths not recoloured, a long path not broken across lines."""
    console.print(text, highlight=False, soft_wrap=True)


def run_or_exit(action: Callable[[], T]) -> T:
    """Run a library call; a user-facing problem becomes one red line and an exit code."""
    try:
        # SIGTERM (`kill`, a job scheduler, torchrun) stops a command the way Ctrl-C does, so
        # what it was writing is cleaned up (a half-prepared directory is removed; training
        # saves and stops) instead of being left behind.
        with handling(_interrupt, signal.SIGTERM):
            return action()
    except MtError as error:
        if state["debug"]:
            raise
        say(f"[bold red]error:[/] {error}")
        raise typer.Exit(error.exit_code) from None
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        raise typer.Exit(130) from None
    except OSError as error:  # a full disk or a refused permission, wherever it strikes
        if state["debug"]:
            raise
        where = f"{error.filename}: " if error.filename else ""
        say(f"[bold red]error:[/] {where}{error.strerror or error}")
        raise typer.Exit(1) from None


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt
