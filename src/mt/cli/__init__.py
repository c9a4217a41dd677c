"""The `mt` command line: the only place with Typer and rich consoles."""

from mt.cli.app import app

__all__ = ["app"]
