"""What every `mt` command shares: the console it prints to and how a failure ends it."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import logging
import signal
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Annotated, Any, TypeVar, get_type_hints

import typer
from rich.console import Console
from rich.markup import escape
from typer.models import OptionInfo

from mt.errors import MtError
from mt.notes import LOGGER
from mt.runtime.interrupts import handling

Opt = typer.Option
console = Console(stderr=True)
state = {"debug": False}  # --debug: tracebacks instead of one line

T = TypeVar("T")
Command = TypeVar("Command", bound=Callable[..., None])


Help = str | OptionInfo
"""An option's help, or the whole option where its flags are not those of its name."""


def _option(name: str, kind: Any, default: Any, help: Help) -> inspect.Parameter:
    info = Opt(help=help) if isinstance(help, str) else help
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=Annotated[kind, info]
    )


def fields_as_options(config: type, helps: Mapping[str, Help]) -> list[inspect.Parameter]:
    """An option for each field of the dataclass `config` that `helps` names, in that order, of
    the field's type and default, with that help: a command's options spelled once, as the
    settings they fill."""
    hints = get_type_hints(config)
    defaults = {field.name: field.default for field in dataclasses.fields(config)}
    return [_option(name, hints[name], defaults[name], help) for name, help in helps.items()]


def unset_options(table: Mapping[str, tuple[Any, Help]]) -> list[inspect.Parameter]:
    """An option for each (type, help) of `table`, None unless given (a recipe fills it in)."""
    return [_option(name, kind | None, None, help) for name, (kind, help) in table.items()]


def takes(
    options: Sequence[inspect.Parameter], *, into: str, build: Callable[..., Any] = dict
) -> Callable[[Command], Command]:
    """The command takes `options` (declared elsewhere, once) where its parameter `into` stands,
    and gets their values there as one object, `build(**values)`."""

    def decorate(command: Command) -> Command:
        own = inspect.signature(command, eval_str=True)
        params = [
            new.replace(kind=inspect.Parameter.KEYWORD_ONLY)
            for param in own.parameters.values()
            for new in (options if param.name == into else [param])
        ]

        @functools.wraps(command)
        def with_options(**values: Any) -> None:
            taken = build(**{option.name: values.pop(option.name) for option in options})
            command(**values, **{into: taken})

        with_options.__signature__ = own.replace(parameters=params)  # type: ignore[attr-defined]
        return with_options  # type: ignore[return-value]

    return decorate


def say(text: str) -> None:
    """One line of a command's report as written: its markup ("[yellow]warning:[/]") shown, its
    numbers and paths not recoloured, a long path not broken across lines."""
    console.print(text, highlight=False, soft_wrap=True)


class _ConsoleLines(logging.Handler):
    """What mt's loggers say at WARNING and above, on the console: a note (mt.notes) as one
    `note:` line, anything else (the server's logged errors) as Python's last-resort handler
    would print it, which this handler replaces while a command runs."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        text = escape(self.format(record))
        say(f"[yellow]note:[/] {text}" if record.name == LOGGER.name else text)


@contextlib.contextmanager
def _showing_notes() -> Iterator[None]:
    """mt's log records shown through `say` inside the block (once, however deeply commands
    nest), and mt's logger as it was after it, so a library caller in the same process (a test)
    gets Python's handling back."""
    if any(isinstance(h, _ConsoleLines) for h in LOGGER.handlers):
        yield
        return
    handler = _ConsoleLines()
    LOGGER.addHandler(handler)
    try:
        yield
    finally:
        LOGGER.removeHandler(handler)


def run_or_exit(action: Callable[[], T]) -> T:
    """Run a library call; a user-facing problem becomes one red line and an exit code, and a
    note one `note:` line."""
    try:
        # SIGTERM (`kill`, a job scheduler, torchrun) stops a command the way Ctrl-C does, so
        # what it was writing is cleaned up (a half-prepared directory is removed; training
        # saves and stops) instead of being left behind.
        with handling(_interrupt, signal.SIGTERM), _showing_notes():
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
