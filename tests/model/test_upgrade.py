"""`mt upgrade`: an older run or export gets the tables the older mt found for it each time it was
opened, today's format version and every config field; what it replaces is kept; a second upgrade
changes nothing; what is not a run, is newer, or is damaged is refused and left as it was."""

from __future__ import annotations

import dataclasses
import datetime
import json
import shutil
from pathlib import Path

import pytest

from conftest import LEGACY, legacy_copy, legacy_models
from mt.catalog.modelinfo import read_model_config, read_train_config
from mt.config import ModelConfig, TrainConfig
from mt.errors import MtError
from mt.model import upgrade
from mt.model.upgrade import give_tables, upgrade_directory
from mt.storage.checksums import verify_checksums
from mt.text.lexicon import (
    NO_LEXICON,
    Lexicon,
    WordCounts,
    lexicon_of_part,
    read_lexicon,
    write_lexicon,
)
from mt.text.wordstats import (
    NO_WORD_STATS,
    build_word_stats,
    read_word_stats,
    word_stats_of_part,
    write_word_stats,
)

DAY = datetime.date(2026, 11, 26)
TRAIN = LEGACY / "data" / "train.tsv"


def files(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def test_an_old_run_gets_tables_counted_from_its_training_part(tmp_path: Path) -> None:
    run = legacy_copy(tmp_path, prepared=LEGACY / "data")
    done = upgrade_directory(run, today=DAY)
    assert done.kind == "run"
    assert done.changes == (
        f"lexicon.tsv: counted from {TRAIN}",
        f"words.tsv: counted from {TRAIN}",
        "train.json: format version 1 -> 2",
        "model.json: format version 1 -> 2",
    )
    assert read_lexicon(run / "lexicon.tsv") == lexicon_of_part(TRAIN)
    assert read_word_stats(run / "words.tsv") == word_stats_of_part(TRAIN)


def test_an_old_run_gets_the_copies_its_prepared_directory_has(tmp_path: Path) -> None:
    data = Path(shutil.copytree(LEGACY / "data", tmp_path / "data"))
    lexicon = Lexicon(words={"Ilse": WordCounts(capitalised=9, copied=9, lower=0)}, pairs=9)
    write_lexicon(data / "lexicon.tsv", lexicon)
    stats = build_word_stats(["It's late.", "It's late.", "I think it's late."])
    write_word_stats(data / "words.tsv", stats)
    text = (data / "words.tsv").read_text(encoding="utf-8")
    (data / "words.tsv").write_text(text[: text.index("\npair\tcount\n")] + "\n")  # older
    run = legacy_copy(tmp_path, prepared=data)
    assert upgrade_directory(run).changes[:2] == (
        f"lexicon.tsv: copied from {data}",
        f"words.tsv: copied from {data}",
    )
    assert (run / "lexicon.tsv").read_bytes() == (data / "lexicon.tsv").read_bytes()
    assert read_word_stats(run / "words.tsv") == dataclasses.replace(stats, pairs={})
    assert stats.pairs, "the pairs were there to lose"


def test_an_old_run_whose_data_is_gone_gets_empty_tables(tmp_path: Path) -> None:
    run = legacy_copy(tmp_path, prepared=tmp_path / "gone")
    note = f"empty, the training data ({tmp_path / 'gone'}) is gone"
    assert upgrade_directory(run).changes[:2] == (f"lexicon.tsv: {note}", f"words.tsv: {note}")
    assert read_lexicon(run / "lexicon.tsv") == NO_LEXICON
    assert read_word_stats(run / "words.tsv") == NO_WORD_STATS


def test_what_it_replaces_is_kept_and_a_second_upgrade_changes_nothing(tmp_path: Path) -> None:
    run = legacy_copy(tmp_path, prepared=tmp_path / "gone")
    before = files(run)
    done = upgrade_directory(run, today=DAY)
    assert done.backup == run / "upgrade-backup-2026-11-26"
    assert files(done.backup) == {name: before[name] for name in ("model.json", "train.json")}
    after = files(run)
    kept = {name for name in before if name not in ("model.json", "train.json")}
    assert {name: after[name] for name in kept} == {name: before[name] for name in kept}
    again = upgrade_directory(run, today=DAY)
    assert again.changes == () and again.backup is None
    assert files(run) == after


def test_the_configs_keep_every_setting_and_gain_the_fields_left_out(tmp_path: Path) -> None:
    run = legacy_copy(tmp_path, prepared=tmp_path / "gone")
    old_model = json.loads((run / "model.json").read_text())
    old_train = json.loads((run / "train.json").read_text())
    upgrade_directory(run)
    assert read_model_config(run) == ModelConfig.from_dict(old_model["model"])
    train, prepared = read_train_config(run)
    assert train == TrainConfig.from_dict(old_train["train"]) and prepared == tmp_path / "gone"
    stored = json.loads((run / "train.json").read_text())["train"]
    assert set(stored) == set(TrainConfig(**stored).to_dict()) > set(old_train["train"])


def test_a_run_of_format_1_that_has_its_tables_keeps_them(tmp_path: Path) -> None:
    """A run written between lexicons and format 2: only the versions change."""
    run = Path(shutil.copytree(legacy_models() / "run", tmp_path / "run"))
    shutil.rmtree(next(run.glob("upgrade-backup-*")))
    for name in ("model.json", "train.json"):
        data = json.loads((run / name).read_text())
        (run / name).write_text(json.dumps({**data, "format_version": 1}))
    tables = {name: (run / name).read_bytes() for name in ("lexicon.tsv", "words.tsv")}
    assert upgrade_directory(run).changes == (
        "train.json: format version 1 -> 2",
        "model.json: format version 1 -> 2",
    )
    assert {name: (run / name).read_bytes() for name in tables} == tables


def test_an_upgraded_export_lists_its_files_but_not_the_backup(tmp_path: Path) -> None:
    export = legacy_copy(tmp_path, "export", prepared=tmp_path / "gone")
    old_listing = (export / "checksums.sha256").read_bytes()
    done = upgrade_directory(export, today=DAY)
    assert done.kind == "export" and done.backup is not None
    listing = (export / "checksums.sha256").read_text()
    assert "  lexicon.tsv\n" in listing and "  words.tsv\n" in listing
    assert "upgrade-backup" not in listing
    assert (done.backup / "checksums.sha256").read_bytes() == old_listing
    shutil.rmtree(done.backup)  # the backup may go: the export stays whole
    verify_checksums(export, what="export", remedy="export the run again")
    assert json.loads((export / "model.json").read_text())["format"] == "mt-ctranslate2"


def test_a_damaged_export_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    export = legacy_copy(tmp_path, "export", prepared=tmp_path / "gone")
    model = export / "ctranslate2" / "model.bin"
    data = model.read_bytes()
    model.write_bytes(data[:-1] + bytes([data[-1] ^ 1]))
    before = files(export)
    with pytest.raises(MtError, match=r"model\.bin: checksum mismatch"):
        upgrade_directory(export)
    assert files(export) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda d: None, "no such directory"),
        (lambda d: d.mkdir(), "not a run or export directory"),
        (lambda d: shutil.copytree(LEGACY / "data", d), "not a run or export directory"),
        (lambda d: _run_with(d, model="{"), r"model\.json: not a readable JSON file"),
        (lambda d: _run_with(d, model='{"model": {}}'), r"model\.json: no format version"),
        (
            lambda d: _run_with(d, model='{"format_version": 3, "model": {}}'),
            r"model\.json: run format version 3 is newer than this mt's \(2\); use the mt",
        ),
        (
            lambda d: _run_with(d, model='{"format_version": 1, "model": {"heads": "x"}}'),
            r"model\.json: not a valid model configuration",
        ),
    ],
)
def test_what_is_not_an_older_run_is_refused_and_left_alone(
    tmp_path: Path, make, message: str
) -> None:
    directory = tmp_path / "dir"
    make(directory)
    before = files(directory) if directory.exists() else None
    with pytest.raises(MtError, match=message):
        upgrade_directory(directory)
    assert (files(directory) if directory.exists() else None) == before
    assert [p.name for p in tmp_path.iterdir()] == (["dir"] if before is not None else [])


def _run_with(directory: Path, *, model: str) -> None:
    shutil.copytree(LEGACY / "run", directory)
    (directory / "model.json").write_text(model)


def test_a_failure_while_building_leaves_the_old_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = legacy_copy(tmp_path, prepared=LEGACY / "data")
    before = files(run)

    def fail(directory: Path) -> None:
        raise MtError("disk trouble")

    monkeypatch.setattr(upgrade, "check_current", fail)
    with pytest.raises(MtError, match="disk trouble"):
        upgrade_directory(run)
    assert files(run) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def test_a_new_run_on_data_prepared_before_the_tables_gets_them_counted(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    give_tables(run, LEGACY / "data")
    assert read_lexicon(run / "lexicon.tsv") == lexicon_of_part(TRAIN)
    assert read_word_stats(run / "words.tsv") == word_stats_of_part(TRAIN)
