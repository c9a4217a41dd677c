"""Every model reference resolved in one place into one `ModelInfo`, and the run configurations
(model.json, train.json) written and read back: no other module reads those two files. Core, not
`model`: the data stage resolves models too and may not import torch.

A reference is a shipped model's name, else an existing directory (a run or an export); anything
else is refused with the known names. `None` is the default shipped model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal, TypeVar

from mt.catalog.direction import FORWARD, Direction, direction_of
from mt.config import ModelConfig, TrainConfig
from mt.errors import MtError
from mt.storage.checksums import verify_checksums
from mt.storage.files import (
    CALIBRATION_JSON,
    CHECKSUMS,
    DECODE_JSON,
    EXPORT_FORMAT,
    MODEL_JSON,
    PREPARE_JSON,
    RUN_FORMAT,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    TRAIN_JSON,
    check_format,
    read_json,
    write_json,
)

DEFAULT_MODEL = "en-es-general-13"
"""The model every command uses when none is given: the release model installed with mt."""
SHIPPED = "shipped"
"""The package folder of the release models, one folder a model, named as the model."""
CARD_JSON = "card.json"  # a shipped model's card: name, summary, data, scores (from benchmarks)
CARD_MD = "README.md"  # the same card for people, beside the weights
DECODE_SWITCHES = ("cognates", "first_words", "titles")
"""decode.json's on/off steps, each a TranslateOptions field of that name (None: the model's)."""

Kind = Literal["run", "export"]


@dataclass(frozen=True)
class ModelInfo:
    """What one model is, read once: every loader (PyTorch, CTranslate2), the server, evaluation,
    calibration, export, back-translation and fine-tuning take this, never the directory."""

    directory: Path
    kind: Kind
    name: str | None  # a shipped model's name; None for a run or export given by its path
    config: ModelConfig
    train: TrainConfig
    prepared: Path  # the data it was trained on (for a shipped one, not on a user's machine)
    direction: Direction
    lineage: dict[str, Any] = field(default_factory=dict)
    card: dict[str, Any] = field(default_factory=dict)  # a shipped model's card.json
    engine: dict[str, Any] = field(default_factory=dict)  # an export's CTranslate2 facts
    decoding: dict[str, Any] = field(default_factory=dict)  # its decode.json, where it has one

    @property
    def label(self) -> str:
        """How messages name it: the shipped name, else the directory."""
        return self.name or str(self.directory)

    @property
    def source_tokenizer(self) -> Path:
        return self.directory / SOURCE_TOKENIZER

    @property
    def target_tokenizer(self) -> Path:
        return self.directory / TARGET_TOKENIZER

    @property
    def max_src_len(self) -> int:
        """The source length the model was trained on: pieces are cut to fit it."""
        return self.train.max_src_len

    @property
    def length_penalty(self) -> float:
        """The α it decodes with unless told: its decode.json's, chosen on its dev part, else 0."""
        return float(self.decoding.get("length_penalty", 0.0))

    def switch(self, name: str) -> bool:
        """Whether the decoding step `name` (one of DECODE_SWITCHES) is on unless told: its
        decode.json's, chosen on its dev part, else off."""
        if name not in DECODE_SWITCHES:
            raise ValueError(f"{name!r} is not a decode.json switch")
        return bool(self.decoding.get(name, False))

    @property
    def read_only(self) -> bool:
        """A shipped model is never written into (calibration): it is checked by its
        checksums, and a pip install may live where the user cannot write."""
        return self.name is not None

    @property
    def writable_directory(self) -> Path:
        """Where mt writes what it learns of this model (calibration.json): the directory
        itself, or for a shipped model a folder of the user's (MT_HOME, else
        $XDG_DATA_HOME/mt, else ~/.local/share/mt)."""
        if not self.read_only:
            return self.directory
        return user_home() / "models" / str(self.name)

    @property
    def calibration_directory(self) -> Path:
        """Where calibration.json is read from: the user's own for a shipped model when they
        calibrated it (`mt calibrate --data ...`), else the model's."""
        own = self.writable_directory
        return own if (own / CALIBRATION_JSON).is_file() else self.directory

    def weights(self, checkpoint: str = "best") -> Path:
        """A run's weights file: `checkpoint` is best or last."""
        if checkpoint not in ("best", "last"):
            raise MtError(f"--checkpoint must be best or last, got {checkpoint!r}")
        path = self.directory / f"{checkpoint}.safetensors"
        if not path.is_file():
            raise MtError(f"{self.label}: the model is incomplete: missing {path.name}")
        return path


ModelRef = str | Path | None
"""What a user names a model by: a shipped name, a directory, or None for the default. Only the
doors (each command, `mt.load`) resolve one; everything below them takes the ModelInfo."""


class OpenedModel:
    """What a model opened for some use (a PyTorch run, an export, a base for new data) keeps:
    its description, whose directory and settings it is asked for most."""

    info: ModelInfo

    @property
    def directory(self) -> Path:
        return self.info.directory

    @property
    def config(self) -> ModelConfig:
        return self.info.config


def user_home() -> Path:
    """The user's mt folder: MT_HOME, else $XDG_DATA_HOME/mt, else ~/.local/share/mt."""
    if os.environ.get("MT_HOME"):
        return Path(os.environ["MT_HOME"]).expanduser()
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base).expanduser() / "mt"


def shipped_root() -> Path:
    return Path(str(resources.files("mt") / SHIPPED))


def shipped_names() -> list[str]:
    """The release models installed with mt, by name."""
    root = shipped_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if (p / MODEL_JSON).is_file())


def resolve(reference: ModelRef = None, *, option: str = "model") -> ModelInfo:
    """The one way a model reference becomes a model: a ModelInfo, or one MtError that names
    the problem (unknown name, missing file, older format, checksum) and how to fix it. A
    ModelInfo is refused: whoever holds one passes it down instead of resolving it again."""
    if isinstance(reference, ModelInfo):
        raise TypeError(f"{reference.label} is resolved already: pass its ModelInfo down")
    if reference is None or str(reference) == "":
        return _shipped(DEFAULT_MODEL, option=option)
    text = str(reference)
    if text == DEFAULT_MODEL or text in shipped_names():
        return _shipped(text, option=option)
    path = Path(text).expanduser()
    if path.is_dir():
        return describe(path, option=option)
    known = ", ".join(shipped_names()) or "none installed"
    if path.exists():
        raise MtError(
            f"{option} {text}: is a file, not a model (a name, a run or an export directory)"
        )
    raise MtError(
        f"{option} {text}: no such model: not a model name (known: {known}) and no such "
        "directory (a run of `mt train` or an `mt export`)"
    )


def describe(directory: Path, *, option: str = "model", name: str | None = None) -> ModelInfo:
    """A run or export directory read once: its kind, configs, direction and lineage."""
    model_path = directory / MODEL_JSON
    if not model_path.is_file():
        raise MtError(
            f"{option} {directory}: not a model directory (no {MODEL_JSON}); give a run of "
            "`mt train`, an `mt export` or a model name (`mt models` lists them)"
        )
    model_data = _read_versioned(model_path)
    kind: Kind = "export" if model_data.get("format") == EXPORT_FORMAT else "run"
    if kind == "export":
        verify_checksums(directory, what="export", remedy="export the run again")
    config = config_from(model_path, model_data, "model", ModelConfig)
    train_data = _read_versioned(directory / TRAIN_JSON)
    train = config_from(directory / TRAIN_JSON, train_data, "train", TrainConfig)
    if not isinstance(train_data.get("prepared"), str):
        raise MtError(f"{directory / TRAIN_JSON}: no prepared directory recorded")
    lineage = train_data.get("lineage", {})
    if not isinstance(lineage, dict):
        raise MtError(f"{directory / TRAIN_JSON}: lineage is not an object")
    return ModelInfo(
        directory=directory,
        kind=kind,
        name=name,
        config=config,
        train=train,
        prepared=Path(train_data["prepared"]),
        direction=direction_of(train_data),
        lineage=lineage,
        card=_read_card(directory) if name else {},
        engine=_dict_at(model_data, "ctranslate2") if kind == "export" else {},
        decoding=_read_decoding(directory),
    )


def local_models(folder: Path) -> list[ModelInfo]:
    """The runs and exports directly inside `folder` that open (others are left out: an
    unfinished or older run is for `mt train --resume` to say)."""
    found = []
    for directory in sorted(folder.iterdir()) if folder.is_dir() else []:
        if (directory / MODEL_JSON).is_file():
            try:
                found.append(describe(directory))
            except MtError:
                continue
    return found


def is_export(directory: Path) -> bool:
    """Whether `directory` holds an `mt export` (its model.json names the format)."""
    path = directory / MODEL_JSON
    if not path.is_file():
        return False
    data = read_json(path)
    return isinstance(data, dict) and data.get("format") == EXPORT_FORMAT


def _shipped(name: str, *, option: str) -> ModelInfo:
    directory = shipped_root() / name
    restore = (
        "reinstall mt (`pip install --force-reinstall .`, or `git checkout -- src/mt/shipped` "
        "in a clone)"
    )
    if not directory.is_dir():
        known = ", ".join(shipped_names()) or "none installed"
        raise MtError(f"{option} {name}: the shipped model is missing (known: {known}); {restore}")
    if not (directory / CHECKSUMS).is_file():
        raise MtError(f"{name}: the shipped model is incomplete: missing {CHECKSUMS}; {restore}")
    verify_checksums(directory, what=f"the shipped model {name}", remedy=restore)
    return describe(directory, option=option, name=name)


def _dict_at(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _read_decoding(directory: Path) -> dict[str, Any]:
    """decode.json's settings ({} without one); a length penalty that is not a number >= 0, or a
    switch (DECODE_SWITCHES) that is not true or false, is one MtError naming the file."""
    path = directory / DECODE_JSON
    if not path.is_file():
        return {}
    data = read_json(path)
    alpha = data.get("length_penalty", 0.0) if isinstance(data, dict) else None
    if isinstance(alpha, bool) or not isinstance(alpha, int | float) or alpha < 0:
        raise MtError(f"{path}: length_penalty must be a number >= 0, got {alpha!r}")
    for switch in DECODE_SWITCHES:
        if not isinstance(value := data.get(switch, False), bool):
            raise MtError(f"{path}: {switch} must be true or false, got {value!r}")
    return data


def _read_card(directory: Path) -> dict[str, Any]:
    """card.json, checked with the rest of the shipped folder; {} where it has none yet."""
    path = directory / CARD_JSON
    data = read_json(path) if path.is_file() else {}
    return data if isinstance(data, dict) else {}


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
    _write(run_dir, model, train, prepared, _prepared_direction(prepared), lineage or {})


def ship_configs(folder: Path, info: ModelInfo) -> None:
    """model.json and train.json of a shipped copy of the run `info`: the same settings,
    direction and lineage, and the prepared data it was trained on named for the record."""
    _write(folder, info.config, info.train, info.prepared, info.direction, info.lineage)


def _write(
    folder: Path,
    model: ModelConfig,
    train: TrainConfig,
    prepared: Path,
    direction: Direction,
    lineage: dict[str, Any],
) -> None:
    data = {"format_version": RUN_FORMAT, "prepared": str(prepared), "train": train.to_dict()}
    data.update(direction.to_dict())
    if lineage:
        data["lineage"] = lineage
    write_json(folder / TRAIN_JSON, data)
    write_json(folder / MODEL_JSON, {"format_version": RUN_FORMAT, "model": model.to_dict()})


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


def _prepared_direction(prepared: Path) -> Direction:
    try:
        return direction_of(read_json(prepared / PREPARE_JSON))
    except MtError:
        return FORWARD


def _read_versioned(path: Path) -> dict[str, Any]:
    """Only today's format is read."""
    data = read_json(path)
    version = data.get("format_version") if isinstance(data, dict) else None
    advice = "use the mt version that wrote it"
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
