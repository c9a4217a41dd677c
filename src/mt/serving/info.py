"""What `GET /model` says about the served model: its description, its parameters, and its
directory's optional training and evaluation files (read tolerantly: an export has no metrics.csv).
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from mt.catalog.modelinfo import CARD_JSON, DECODE_SWITCHES, ModelInfo
from mt.config import DecodeConfig, ModelConfig
from mt.decode.ct2_engine import ExportedRun
from mt.errors import MtError
from mt.storage.files import (
    BEST_WEIGHTS,
    CHECKPOINTS,
    EXPORT_FORMAT,
    MODEL_JSON,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    TRAIN_JSON,
    read_json,
    read_metrics,
)

KNOWN_FILES = {MODEL_JSON, TRAIN_JSON, CARD_JSON, SOURCE_TOKENIZER, TARGET_TOKENIZER}
ARCHITECTURE_KEYS = ("arch", "d_model", "ff", "heads", "layers", "pre_norm", "tie_embeddings")
TRAINING_KEYS = ("lr", "warmup", "batch_size", "batch_tokens", "label_smoothing", "time_budget")
EVALUATION_KEYS = ("pairs", "bleu", "chrf", "ter", "accuracy", "cross_entropy", "decode")


def model_info(model: ModelInfo | None, translator: Any, decode: DecodeConfig) -> dict[str, Any]:
    """`model` is None for a translator that has no model directory (a scripted one in tests)."""
    config = model.config.to_dict() if model else {}
    decode = getattr(translator, "config", decode)  # what it searches with: the model's α filled in
    options = getattr(translator, "options", None)  # a scripted translator has none
    info: dict[str, Any] = {
        "name": (model.name or model.directory.resolve().name) if model else None,
        "version": model.card.get("version") if model and model.card else None,
        "summary": model.card.get("summary") if model and model.card else None,
        "format": (EXPORT_FORMAT if model.kind == "export" else "mt run") if model else None,
        "engine": _engine(model, translator) if model else None,
        **(model.direction.to_dict() if model else {}),  # source_language, target_language
        "architecture": _architecture(model.config) if model else {},
        "parameters": _parameters(translator),
        "disk_bytes": _disk_bytes(model.directory) if model else 0,
        "vocabulary": {"source": config.get("src_vocab"), "target": config.get("tgt_vocab")},
        "decoding": {
            "beam_size": decode.beam_size,
            "length_penalty": decode.length_penalty,
            "precision": getattr(translator, "precision_reason", None),
            **{name: getattr(options, name, None) for name in DECODE_SWITCHES},
            "dictionary_nouns": _dictionary_nouns(options),
        },
        "training": _training(model) if model else None,
        "evaluation": _evaluation(model.directory) if model else None,
    }
    return info


def _dictionary_nouns(options: Any) -> int | None:
    """How many nouns `mt serve --dictionary` gave the never-seen words; None without one."""
    dictionary = getattr(options, "dictionary", None)
    return None if dictionary is None else len(dictionary)


def _architecture(config: ModelConfig) -> dict[str, Any]:
    """The shape, each stack's depth spelt out (model.json names them only where they differ
    from `layers`)."""
    shape = {key: value for key, value in config.to_dict().items() if key in ARCHITECTURE_KEYS}
    return {**shape, "encoder_layers": config.encoder_depth, "decoder_layers": config.decoder_depth}


def _engine(model: ModelInfo, translator: Any) -> dict[str, Any] | str:
    """An export's CTranslate2 facts (which and how), "ctranslate2 int8" for a shipped model
    searched by its int8 copy (mt.export.int8_copy), else "pytorch"."""
    if model.engine:
        return model.engine
    if isinstance(getattr(translator, "run", None), ExportedRun):
        return "ctranslate2 int8"
    return "pytorch"


def _parameters(translator: Any) -> int | None:
    """Counted on the loaded PyTorch model; for a CTranslate2 engine (which has none) from the
    shapes in the run's weights file when it has one (a shipped model searched by its int8
    copy: the server starts without torch), else on a model built on the meta device from the
    config (an export)."""
    run = getattr(translator, "run", None)
    if isinstance(run, ExportedRun):
        if (run.info.directory / BEST_WEIGHTS).is_file():
            return _stored_parameters(run.info.directory / BEST_WEIGHTS)
    else:  # a PyTorch run (torch is loaded already) or a scripted translator
        from mt.model.rundir import LoadedRun

        if isinstance(run, LoadedRun):
            return _count(run.model)
    config = getattr(run, "config", None)
    if not isinstance(config, ModelConfig):
        return None
    import torch

    from mt.model.transformer import make_model

    with torch.device("meta"):
        return _count(make_model(config))


def _count(model: Any) -> int:
    from mt.model.transformer import count_parameters

    return count_parameters(model)


def _stored_parameters(weights: Path) -> int:
    """Elements of every tensor in a safetensors file, read from its header (the checkpoint
    holds the trainable parameters, tied ones once: the count count_parameters gives)."""
    from safetensors import safe_open

    with safe_open(str(weights), framework="numpy") as stored:
        return sum(math.prod(stored.get_slice(name).get_shape()) for name in stored.keys())  # noqa: SIM118


def _disk_bytes(model_dir: Path) -> int:
    """What the model takes on disk, resumable checkpoints aside."""
    return sum(
        path.stat().st_size
        for path in model_dir.rglob("*")
        if path.is_file() and CHECKPOINTS not in path.relative_to(model_dir).parts
    )


def _training(model: ModelInfo) -> dict[str, Any] | None:
    settings = model.train.to_dict()
    summary: dict[str, Any] = {key: settings[key] for key in TRAINING_KEYS if key in settings}
    rows = _metrics(model.directory)
    if rows:
        last = rows[-1]
        summary.update(
            steps=_plain(last.get("step")),
            epochs=_plain(last.get("epoch")),
            seconds=_plain(last.get("elapsed")),
        )
        scored = [row for row in rows if "selection_loss" in row]
        if scored:
            best = min(scored, key=lambda row: row["selection_loss"])
            summary["best_selection_loss"] = _plain(best["selection_loss"])
            summary["best_selection_accuracy"] = _plain(best.get("selection_accuracy"))
    return summary or None


def _evaluation(model_dir: Path) -> dict[str, Any] | None:
    """The newest JSON in the directory (or its evaluations/ folder) that holds a BLEU score."""
    found: list[tuple[float, Path, dict[str, Any]]] = []
    for folder in (model_dir, model_dir / "evaluations"):
        if not folder.is_dir():
            continue
        for path in folder.glob("*.json"):
            if path.name in KNOWN_FILES:
                continue
            data = _read_json(path)
            if isinstance(data, dict) and isinstance(data.get("bleu"), int | float):
                found.append((path.stat().st_mtime, path, data))
    if not found:
        return None
    _, path, data = max(found, key=lambda item: item[0])
    return {"file": path.name, **{key: data[key] for key in EVALUATION_KEYS if key in data}}


def _metrics(model_dir: Path) -> list[dict[str, float]]:
    """metrics.csv's rows; none where it is missing or damaged (/model still answers)."""
    try:
        return read_metrics(model_dir)
    except (OSError, UnicodeDecodeError, ValueError, csv.Error):
        return []


def _read_json(path: Path) -> Any:
    """A JSON file's content, or None where it is missing or damaged."""
    try:
        return read_json(path)
    except MtError:
        return None


def _plain(value: float | None) -> float | int | None:
    """Counts read back as floats print as integers (777, not 777.0)."""
    return int(value) if value is not None and value.is_integer() else value
