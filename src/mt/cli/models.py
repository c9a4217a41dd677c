"""`mt models`: the models a command can use, a line each: the shipped ones with their card's
summary, then the runs and exports found under a folder (./runs by default)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from rich.console import Console
from rich.table import Table

from mt.cli.common import Opt, run_or_exit


def models(
    under: Annotated[
        Path, Opt("--under", help="Also list the runs and exports in this folder.")
    ] = Path("runs"),
) -> None:
    """List the models to translate with: the shipped ones, then the runs under --under.

    Any of them is what --model (translate) or MODEL (evaluate, serve, calibrate, export) takes.

    Example: mt models
    """

    def action() -> None:
        from mt.api import models as listed

        table = Table(box=None, pad_edge=False, show_edge=False)
        for column in ("model", "kind", "direction", "summary"):
            table.add_column(column, overflow="fold")
        for entry in listed(under):
            default = " (default)" if entry.default else ""
            table.add_row(entry.name + default, entry.kind, entry.direction, entry.summary)
        Console().print(table)  # the listing is the output: stdout, so `mt models | grep` works

    run_or_exit(action)
