"""`mt upgrade DIR` on the command line: what it wrote, once, and one line for what it refuses."""

from __future__ import annotations

from pathlib import Path

from conftest import LEGACY, cli_output, legacy_copy, run_cli


def test_upgrade_says_what_it_wrote_and_then_that_it_is_up_to_date(tmp_path: Path) -> None:
    run = legacy_copy(tmp_path, prepared=LEGACY / "data")
    output = cli_output("upgrade", run)
    train = LEGACY / "data" / "train.tsv"
    assert f"lexicon.tsv: counted from {train}" in output
    assert "model.json: format version 1 -> 2" in output
    assert f"{run}: run upgraded; the files it replaced are in {run}/upgrade-backup-" in output
    assert cli_output("upgrade", run).strip() == f"{run}: already up to date"
    assert cli_output("translate", "--model", run, "--device", "cpu", "Ilse likes bread.").strip()


def test_upgrade_refuses_what_is_not_a_run_in_one_line(tmp_path: Path) -> None:
    for directory, message in (
        (tmp_path / "nothing", "no such directory"),
        (LEGACY / "data", "not a run or export directory (no model.json and train.json)"),
    ):
        lines = run_cli("upgrade", directory, code=2).output.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], lines
    assert "upgrade" in cli_output("--help")
