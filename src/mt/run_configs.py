"""A run directory's configurations (model.json, train.json) written and read back, validated.

Core, not part of `model`: `mt prepare --tokenizers-from` reads a run's model settings, and the
data stage may not import the model stage (which brings torch).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from mt.config import ModelConfig, TrainConfig
from mt.direction import FORWARD, Direction, direction_of
from mt.errors import MtError
from mt.files import (
    MODEL_JSON,
    PREPARE_JSON,
    RUN_FORMAT,
    TRAIN_JSON,
    check_format,
    read_json,
    write_json,
)

ConfigT = TypeVar("ConfigT", ModelConfig, TrainConfig)


def write_configs(
    run_dir: Path,
    model: ModelConfig,
    train: TrainConfig,
    prepared: Path,
    lineage: dict[str, Any] | None = None,
) -> None:
    """model.json goes last, so a run directory that has it also has train.json. `lineage` is
    where a fine-tuned run came from (read_lineage). The prepared data's direction is copied, so
    the run (and its export, which copies train.json) knows it once the data is gone."""
    data = {"format_version": RUN_FORMAT, "prepared": str(prepared), "train": train.to_dict()}
    data.update(_prepared_direction(prepared).to_dict())
    if lineage:
        data["lineage"] = lineage
    write_json(run_dir / TRAIN_JSON, data)
    write_json(run_dir / MODEL_JSON, {"format_version": RUN_FORMAT, "model": model.to_dict()})


def read_model_config(run_dir: Path) -> ModelConfig:
    data = _read_versioned(run_dir / MODEL_JSON)
    return config_from(run_dir / MODEL_JSON, data, "model", ModelConfig)


def read_train_config(run_dir: Path) -> tuple[TrainConfig, Path]:
    data = _read_versioned(run_dir / TRAIN_JSON)
    config = config_from(run_dir / TRAIN_JSON, data, "train", TrainConfig)
    if not isinstance(data.get("prepared"), str):
        raise MtError(f"{run_dir / TRAIN_JSON}: no prepared directory recorded")
    return config, Path(data["prepared"])


def read_lineage(run_dir: Path) -> dict[str, Any]:
    """train.json's lineage: `init_from` (the base run, its weights file and their SHA-256) and
    `mix` (the rehearsed base data and its share), each present only when the run used it."""
    data = _read_versioned(run_dir / TRAIN_JSON)
    lineage = data.get("lineage", {})
    if not isinstance(lineage, dict):
        raise MtError(f"{run_dir / TRAIN_JSON}: lineage is not an object")
    return lineage


def read_direction(model_dir: Path) -> Direction:
    """Which way a run or export directory translates (mt.direction); FORWARD for one that
    records nothing (made before there was a reverse direction) or has no train.json."""
    try:
        data = read_json(model_dir / TRAIN_JSON)
    except MtError:
        return FORWARD
    return direction_of(data)


def _prepared_direction(prepared: Path) -> Direction:
    try:
        return direction_of(read_json(prepared / PREPARE_JSON))
    except MtError:
        return FORWARD


def _read_versioned(path: Path) -> dict[str, Any]:
    """Only today's format is read: an older directory is rewritten once by `mt upgrade`."""
    data = read_json(path)
    version = data.get("format_version") if isinstance(data, dict) else None
    older = isinstance(version, int) and not isinstance(version, bool) and version < RUN_FORMAT
    advice = f"run `mt upgrade {path.parent}`" if older else "use the mt version that wrote it"
    check_format(version, RUN_FORMAT, what=f"{path}: run", advice=advice)
    return data


def config_from(path: Path, data: dict[str, Any], key: str, kind: type[ConfigT]) -> ConfigT:
    """A stored config rebuilt and validated; whatever is wrong with it names the file."""
    if not isinstance(data.get(key), dict):
        raise MtError(f"{path}: no {key} configuration")
    try:
        return kind.from_dict(data[key])
    except MtError as error:
        raise MtError(f"{path}: {error}") from None
    except (TypeError, ValueError) as error:
        raise MtError(f"{path}: not a valid {key} configuration ({error})") from None
