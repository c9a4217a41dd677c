"""What `GET /model` says about the served model, read from its directory once at start.

Everything is optional and read tolerantly: a run directory has model.json, train.json and
metrics.csv; an exported directory may have only a config JSON (with a `format` field) and no
training history; evaluation JSON files (`mt evaluate --json`) are found by their content.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from mt.config import DecodeConfig

KNOWN_FILES = {"model.json", "train.json", "source-tokenizer.json", "target-tokenizer.json"}
ARCHITECTURE_KEYS = ("arch", "d_model", "ff", "heads", "layers", "pre_norm", "tie_embeddings")
TRAINING_KEYS = ("lr", "warmup", "batch_size", "batch_tokens", "label_smoothing", "time_budget")
EVALUATION_KEYS = ("pairs", "bleu", "chrf", "ter", "accuracy", "cross_entropy", "decode")


def model_info(model_dir: Path, translator: Any, decode: DecodeConfig) -> dict[str, Any]:
    model_json = _read_json(model_dir / "model.json") or {}
    config = model_json.get("model") if isinstance(model_json.get("model"), dict) else {}
    info: dict[str, Any] = {
        "name": model_dir.resolve().name,
        "format": model_json.get("format", "mt run"),
        "architecture": {key: config[key] for key in ARCHITECTURE_KEYS if key in config},
        "parameters": _parameters(translator, model_json),
        "vocabulary": {"source": config.get("src_vocab"), "target": config.get("tgt_vocab")},
        "decoding": {"beam_size": decode.beam_size, "length_penalty": decode.length_penalty},
        "training": _training(model_dir),
        "evaluation": _evaluation(model_dir),
    }
    return info


def _parameters(translator: Any, model_json: dict[str, Any]) -> int | None:
    model = getattr(getattr(translator, "run", None), "model", None)
    if model is not None and hasattr(model, "parameters"):
        return sum(p.numel() for p in model.parameters())
    stored = model_json.get("parameters")
    return stored if isinstance(stored, int) else None


def _training(model_dir: Path) -> dict[str, Any] | None:
    train_json = _read_json(model_dir / "train.json") or {}
    settings = train_json.get("train") if isinstance(train_json.get("train"), dict) else {}
    summary: dict[str, Any] = {key: settings[key] for key in TRAINING_KEYS if key in settings}
    rows = _metrics_rows(model_dir / "metrics.csv")
    if rows:
        last = rows[-1]
        summary.update(
            steps=_number(last.get("step")),
            epochs=_number(last.get("epoch")),
            seconds=_number(last.get("elapsed")),
        )
        scored = [row for row in rows if _number(row.get("selection_loss")) is not None]
        if scored:
            best = min(scored, key=lambda row: _number(row["selection_loss"]))
            summary["best_selection_loss"] = _number(best["selection_loss"])
            summary["best_selection_accuracy"] = _number(best.get("selection_accuracy"))
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


def _metrics_rows(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(encoding="utf-8", newline="") as stream:
            return list(csv.DictReader(stream))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _number(text: str | None) -> float | None:
    try:
        value = float(text) if text not in (None, "") else None
    except ValueError:
        return None
    return int(value) if value is not None and value.is_integer() else value
