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
        from mt.modelinfo import DEFAULT_MODEL, local_models, resolve, shipped_names

        table = Table(box=None, pad_edge=False, show_edge=False)
        for column in ("model", "kind", "direction", "summary"):
            table.add_column(column, overflow="fold")
        for name in shipped_names():
            info = resolve(name)
            default = " (default)" if name == DEFAULT_MODEL else ""
            table.add_row(
                name + default, "shipped", info.direction.label, info.card.get("summary", "")
            )
        for info in local_models(under):
            shape = info.config
            summary = f"{shape.arch}, d {shape.d_model}, {shape.layers} layers"
            if info.lineage.get("init_from"):
                summary += f", fine-tuned from {info.lineage['init_from'].get('run')}"
            table.add_row(str(info.directory), info.kind, info.direction.label, summary)
        Console().print(table)  # the listing is the output: stdout, so `mt models | grep` works

    run_or_exit(action)
