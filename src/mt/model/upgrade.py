"""`mt upgrade DIR`: a run or export directory written by an older mt, rewritten once in today's
format (RUN_FORMAT in mt.storage.files), so that every other command reads one format and nothing
else.

What format 1 lacked, and what the upgrade writes for it:

- lexicon.tsv and words.tsv, the tables prepare counts from the training part (mt.text.lexicon,
  mt.text.wordstats): copied from the prepared directory its train.json names, else counted from
  that directory's training part, else written empty when the data is gone. These are the tables
  the older mt found for such a directory each time it opened it, so it translates as it did.
- words.tsv's table of word pairs: an empty one, as a file without it was read.
- model.json and train.json: every field written out (an older file leaves out those added since,
  which read as their defaults) under today's format version.

The weights and checkpoints stay as they are (WEIGHTS_FORMAT has not changed). The upgraded
directory is built beside the old one (the files it keeps hard-linked, so nothing large is
copied), read back with today's readers and renamed into place
(mt.storage.atomic.replace_directory): a failure leaves the old directory as it was. Each file it
replaces is kept in DIR/upgrade-backup-DATE/, which an export's checksums.sha256 does not list. A
directory already in today's format is left alone.
"""

from __future__ import annotations

import datetime
import functools
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mt.catalog.modelinfo import config_from, is_export, read_model_config, read_train_config
from mt.config import ModelConfig, TrainConfig
from mt.data.prepare.synthetic import is_synthetic
from mt.data.prepared_dir import PART_FILES
from mt.errors import MtError
from mt.storage.atomic import (
    atomic_write_bytes,
    atomic_write_text,
    building_beside,
    replace_directory,
)
from mt.storage.checksums import verify_checksums, write_checksums
from mt.storage.files import (
    CHECKSUMS,
    LEXICON,
    MODEL_JSON,
    RUN_FORMAT,
    TRAIN_JSON,
    WORD_STATS,
    read_json,
    write_json,
)
from mt.text.lexicon import NO_LEXICON, lexicon_of_part, read_lexicon, write_lexicon
from mt.text.wordstats import (
    NO_WORD_STATS,
    PAIR_HEADER,
    read_word_stats,
    word_stats_of_part,
    write_word_stats,
)

BACKUP_PREFIX = "upgrade-backup-"


@dataclass(frozen=True)
class Upgrade:
    """What `upgrade_directory` did: one line per file written (none when the directory was
    already in today's format) and where the files it replaced are kept."""

    directory: Path
    kind: str  # "run" or "export"
    changes: tuple[str, ...]
    backup: Path | None


@dataclass(frozen=True)
class _Step:
    name: str  # the file written, in the directory
    note: str  # what the report says of it
    write: Callable[[Path], None]  # writes `name` into the directory given


def upgrade_directory(directory: Path, *, today: datetime.date | None = None) -> Upgrade:
    """Rewrite `directory` in today's format, or say it already is; anything that is not a run or
    an export of an mt that this one knows is refused with one MtError, and left as it is."""
    kind = _kind(directory)
    steps = _steps(directory)
    if not steps:
        return Upgrade(directory, kind, (), None)
    if kind == "export":  # a damaged file must not be listed again as if it were sound
        verify_checksums(directory, what="export", remedy="export the run again")
    backup = _rebuild(directory, steps, day=today or datetime.date.today())
    return Upgrade(directory, kind, tuple(step.note for step in steps), directory / backup)


def give_tables(directory: Path, prepared: Path) -> None:
    """Write whichever of lexicon.tsv and words.tsv `directory` lacks as the upgrade would, from
    the prepared directory `prepared` (a new run trained on data prepared before the tables)."""
    for step in _table_steps(directory, prepared):
        step.write(directory)


def check_current(directory: Path) -> None:
    """Read `directory` with today's readers: configs, tables and an export's checksums."""
    read_model_config(directory)
    read_train_config(directory)
    read_lexicon(directory / LEXICON)
    read_word_stats(directory / WORD_STATS)
    if is_export(directory):
        verify_checksums(directory, what="export", remedy="export the run again")


def _kind(directory: Path) -> str:
    if not directory.is_dir():
        raise MtError(f"{directory}: no such directory")
    if not (directory / MODEL_JSON).is_file() or not (directory / TRAIN_JSON).is_file():
        raise MtError(
            f"{directory}: not a run or export directory (no {MODEL_JSON} and {TRAIN_JSON}); "
            "`mt upgrade` rewrites what `mt train` or `mt export` wrote"
        )
    return "export" if is_export(directory) else "run"


def _steps(directory: Path) -> list[_Step]:
    """What differs from today's format, in the order it is written: model.json last, since a
    directory whose model.json is current is taken for a current one."""
    model, train = _versioned(directory / MODEL_JSON), _versioned(directory / TRAIN_JSON)
    steps = _table_steps(directory, train.get("prepared"))
    for name, data, key, kind in (
        (TRAIN_JSON, train, "train", TrainConfig),
        (MODEL_JSON, model, "model", ModelConfig),
    ):
        if data["format_version"] < RUN_FORMAT:
            config = config_from(directory / name, data, key, kind).to_dict()
            current = {**data, "format_version": RUN_FORMAT, key: config}
            note = f"{name}: format version {data['format_version']} -> {RUN_FORMAT}"
            steps.append(_Step(name, note, functools.partial(_write_json, name, current)))
    return steps


def _versioned(path: Path) -> dict[str, Any]:
    data = read_json(path)
    version = data.get("format_version") if isinstance(data, dict) else None
    if not isinstance(version, int | str) or not str(version).isdigit():
        raise MtError(f"{path}: no format version; not a file `mt train` or `mt export` wrote")
    if int(version) > RUN_FORMAT:
        raise MtError(
            f"{path}: run format version {version} is newer than this mt's ({RUN_FORMAT}); use "
            "the mt version that wrote it"
        )
    return {**data, "format_version": int(version)}


def _table_steps(directory: Path, recorded: object) -> list[_Step]:
    """The tables `directory` lacks, from the prepared directory train.json `recorded`."""
    # As the older mt did, the prepared directory counts while its training part is there.
    named = Path(recorded) if isinstance(recorded, str | Path) else None
    prepared = named if named and (named / PART_FILES["train"]).is_file() else None
    gone = f"empty, the training data ({named or 'not recorded'}) is gone"
    steps = []
    if not (directory / LEXICON).is_file():
        steps.append(_table(LEXICON, prepared, lexicon_of_part, write_lexicon, (NO_LEXICON, gone)))
    words = directory / WORD_STATS
    if not words.is_file():
        empty = (NO_WORD_STATS, gone)
        count = functools.partial(word_stats_of_part, machine_made=is_synthetic)
        steps.append(_table(WORD_STATS, prepared, count, write_word_stats, empty))
    elif not _has_pairs(words.read_text(encoding="utf-8")):
        note = f"{WORD_STATS}: an empty table of word pairs added, as it was read"
        steps.append(_Step(WORD_STATS, note, functools.partial(_copy_table, words)))
    return steps


def _table(
    name: str,
    prepared: Path | None,
    count: Callable[[Path], Any],
    write: Callable[[Path, Any], None],
    empty: tuple[Any, str],
) -> _Step:
    """The prepared directory's copy of table `name`, else one counted from its training part,
    else the empty table `empty` (the table, what the report says)."""
    if prepared is not None and (prepared / name).is_file():
        note = f"{name}: copied from {prepared}"
        return _Step(name, note, functools.partial(_copy_table, prepared / name))
    if prepared is not None:
        part = prepared / PART_FILES["train"]
        note = f"{name}: counted from {part}"
        return _Step(name, note, lambda out: write(out / name, count(part)))
    return _Step(name, f"{name}: {empty[1]}", lambda out: write(out / name, empty[0]))


def _copy_table(source: Path, out: Path) -> None:
    """`source` copied into `out` under its name; words.tsv with its table of pairs."""
    text = source.read_text(encoding="utf-8")
    if source.name == WORD_STATS and not _has_pairs(text):
        text = text.rstrip("\n") + f"\n\n{PAIR_HEADER}\n"
    atomic_write_text(out / source.name, text)


def _has_pairs(text: str) -> bool:
    return PAIR_HEADER in text.split("\n")


def _write_json(name: str, data: dict[str, Any], out: Path) -> None:
    write_json(out / name, data)


def _rebuild(directory: Path, steps: list[_Step], *, day: datetime.date) -> str:
    """Build the upgraded directory beside `directory`, check it and rename it into place; the
    name of the backup folder inside it."""
    target = directory.resolve()
    with building_beside(target, doing="upgrading") as building:
        shutil.copytree(target, building, symlinks=True, copy_function=_link_or_copy)
        backup = _backup_folder(building, day)
        for step in steps:
            if (building / step.name).exists():
                atomic_write_bytes(backup / step.name, (building / step.name).read_bytes())
            step.write(building)  # a new file renamed into place: the old one's links stay
        if is_export(building):
            atomic_write_bytes(backup / CHECKSUMS, (building / CHECKSUMS).read_bytes())
            kept = tuple(path.name for path in building.glob(f"{BACKUP_PREFIX}*"))
            write_checksums(building, skip=kept)
        check_current(building)
        replace_directory(building, target)
    return backup.name


def _link_or_copy(source: str, destination: str) -> None:
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)


def _backup_folder(directory: Path, day: datetime.date) -> Path:
    """DIR/upgrade-backup-DATE, or DATE-2, -3 ... when an earlier upgrade that day took it."""
    name, number = f"{BACKUP_PREFIX}{day.isoformat()}", 1
    while (directory / name).exists():
        number += 1
        name = f"{BACKUP_PREFIX}{day.isoformat()}-{number}"
    (directory / name).mkdir()
    return directory / name
