"""`python -m mt.cli.ship RUN --name NAME`: a trained run made into a shipped model, for the
people who make mt's releases (`make release`); users get the model with the package."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mt.cli.common import run_or_exit, say


def ship(
    run: Annotated[Path, typer.Argument(help="The run to ship (its best weights).")],
    name: Annotated[str, typer.Option(help="The shipped model's name, with its version.")],
) -> None:
    """Write RUN as the shipped model NAME in src/mt/shipped/ (mt.model.ship)."""

    def action() -> None:
        from mt.model.ship import ship_run

        folder = ship_run(run, name)
        size = sum(p.stat().st_size for p in folder.iterdir())
        say(f"shipped {run} as {name}: {folder} ({size / 1e6:.1f} MB)")

    run_or_exit(action)


if __name__ == "__main__":
    typer.run(ship)
