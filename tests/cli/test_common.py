"""Options declared once (mt.cli.common): a dataclass's fields or a (type, help) table become a
command's options where one of its parameters stands, handed over as one object; and the decode
options the commands share read the same in each."""

from __future__ import annotations

from dataclasses import dataclass

import typer
from typer.testing import CliRunner

from mt.cli.app import app as mt_app
from mt.cli.common import Opt, fields_as_options, takes, unset_options
from mt.cli.decode_options import DecodeFlags

runner = CliRunner()


@dataclass(frozen=True)
class Settings:
    size: int = 3
    name: str = "a"
    loud: bool = False


def command_app() -> typer.Typer:
    app = typer.Typer(add_completion=False)
    helps = {"size": "How many.", "loud": Opt("--loud", help="Shout.")}

    @app.command()
    @takes(fields_as_options(Settings, helps), into="settings", build=Settings)
    @takes(unset_options({"colour": (str, "A colour.")}), into="given")
    def show(*, word: str = "x", settings: Settings, given: dict, after: int = 0) -> None:
        print(word, settings, given, after)

    return app


def test_fields_become_options_of_their_type_and_default_handed_over_as_one_object() -> None:
    result = runner.invoke(command_app(), ["--size", "5", "--loud", "--after", "2"])
    assert result.exit_code == 0, result.output
    assert result.stdout == "x Settings(size=5, name='a', loud=True) {'colour': None} 2\n"
    result = runner.invoke(command_app(), ["--word", "y", "--colour", "red"])
    assert result.stdout == "y Settings(size=3, name='a', loud=False) {'colour': 'red'} 0\n"


def test_the_options_stand_where_their_parameter_stands_with_the_table_s_help() -> None:
    command = typer.main.get_command(command_app())
    assert [param.name for param in command.params] == ["word", "size", "loud", "colour", "after"]
    helps = {param.name: param.help for param in command.params}
    assert helps["size"] == "How many." and helps["loud"] == "Shout."
    assert runner.invoke(command_app(), ["--size", "many"]).exit_code == 2  # typed: refused


def test_the_decode_options_the_commands_share_read_the_same_in_each() -> None:
    group = typer.main.get_command(mt_app)
    shared = {field for field in DecodeFlags.__dataclass_fields__}
    own = {"serve": {"threads", "glossary"}}  # serve's own: all cores but one; named glossaries
    seen: dict[str, tuple] = {}
    for name in ("translate", "evaluate", "serve", "calibrate"):
        for param in group.commands[name].params:  # type: ignore[attr-defined]
            if param.name in shared - own.get(name, set()):
                described = (param.opts, param.secondary_opts, param.help, param.default)
                assert seen.setdefault(param.name, described) == described, (name, param.name)
    assert "beam_size" in seen and "device" in seen and "titles" in seen
    translate = {param.name for param in group.commands["translate"].params}  # type: ignore[attr-defined]
    assert shared <= translate and not {"end_marks", "stutters"} & translate
