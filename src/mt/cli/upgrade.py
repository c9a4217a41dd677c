"""`mt upgrade DIR`: a run or export written by an older mt, rewritten once in today's format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mt.cli.common import run_or_exit, say


def upgrade(
    directory: Annotated[
        Path, typer.Argument(help="Run or export directory written by an older mt.")
    ],
) -> None:
    """Rewrite an older run or export directory in today's format, once; the files it replaces
    are kept in DIR/upgrade-backup-DATE/.

    Example: mt upgrade runs/base
    """

    def action() -> None:
        from mt.model.upgrade import upgrade_directory

        done = upgrade_directory(directory)
        if not done.changes:
            say(f"{directory}: already up to date")
            return
        for change in done.changes:
            say(f"  {change}")
        say(
            f"[green]{directory}: {done.kind} upgraded[/]; the files it replaced are in "
            f"{done.backup}"
        )

    run_or_exit(action)
