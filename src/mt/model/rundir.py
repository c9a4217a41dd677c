"""The run directory (layout in mt.storage.files): configs, weights, checkpoints and metrics of one
run.

Everything here reads a run without executing code and names the file when something is wrong.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from mt.catalog.modelinfo import ModelInfo, OpenedModel
from mt.config import ModelConfig
from mt.data.tokenization import WordPieceCodec
from mt.errors import MtError
from mt.model.checkpoint import load_tensors, save_tensors
from mt.model.transformer import make_model
from mt.storage.atomic import atomic_write_text
from mt.storage.files import (
    CHECKPOINTS,
    METRICS_CSV,
    MODEL_JSON,
    RUN_MARKERS,
    SNAPSHOTS,
    WEIGHTS_FORMAT,
    check_format,
    read_json,
    write_json,
)

KEEP_CHECKPOINTS = 2
METRICS_FIELDS = (
    "step", "epoch", "lr", "train_loss", "train_accuracy", "selection_loss", "selection_accuracy",
    "selection_pairs",
    "tokens_per_second",  # target tokens/s of the progress bar's last window (10 steps)
    "elapsed", "eval_seconds",
    # mt.train.throughput's (older files lack them; readers take rows as dicts): real tokens so
    # far, then rates over the training seconds since the row before
    "source_tokens", "target_tokens", "source_target_tokens_per_second",
    "target_tokens_per_second", "model_tflop_per_second",
    "mfu",  # blank where the device's peak is not known
)  # fmt: skip


def claim_run_dir(run_dir: Path, *, force: bool) -> None:
    """An empty directory for a new run; ``force`` replaces an earlier run, never anything else."""
    if run_dir.exists() and not run_dir.is_dir():
        raise MtError(f"--out {run_dir}: is a file, not a run directory")
    if run_dir.exists() and any(run_dir.iterdir()):
        if not force:
            raise MtError(
                f"--out {run_dir}: directory exists; use --resume {run_dir} to continue it or "
                "--force to start over"
            )
        if not any((run_dir / name).exists() for name in RUN_MARKERS):
            raise MtError(
                f"--out {run_dir}: not a run directory (no {MODEL_JSON}); --force replaces only "
                "what `mt train` wrote"
            )
        shutil.rmtree(run_dir)
    run_dir.mkdir(parents=True, exist_ok=True)


def save_weights(path: Path, model: nn.Module) -> None:
    save_tensors(path, model.state_dict(), metadata={"format_version": str(WEIGHTS_FORMAT)})


def load_weights_into(model: nn.Module, path: Path) -> None:
    tensors, metadata = load_tensors(path)
    check_format(metadata.get("format_version"), WEIGHTS_FORMAT, what=f"{path}: weights of run")
    check_fits(path, tensors, model.state_dict())
    model.load_state_dict(tensors)


def check_fits(path: Path, tensors: dict[str, Tensor], expected: dict[str, Tensor]) -> None:
    """Same names and shapes as the model that model.json describes, else an MtError."""
    missing = sorted(set(expected) - set(tensors))
    if missing:
        raise MtError(f"{path}: weights do not match model.json: missing {missing[0]}")
    for name, value in tensors.items():
        if name not in expected:
            raise MtError(f"{path}: weights do not match model.json: unexpected tensor {name}")
        if tuple(value.shape) != tuple(expected[name].shape):
            raise MtError(
                f"{path}: weights do not match model.json: {name} has shape "
                f"{tuple(value.shape)}, the config needs {tuple(expected[name].shape)}"
            )


@dataclass
class LoadedRun(OpenedModel):
    """A trained model ready for search, with its tokenizers and what it is (`info`)."""

    info: ModelInfo
    model: nn.Module
    source: WordPieceCodec
    target: WordPieceCodec


def check_vocabularies(
    run_dir: Path, config: ModelConfig, source: WordPieceCodec, target: WordPieceCodec
) -> None:
    """The tokenizers beside model.json are the ones it was built for."""
    for codec, size, side in (
        (source, config.src_vocab, "source"),
        (target, config.tgt_vocab, "target"),
    ):
        if codec.vocab_size != size:
            raise MtError(
                f"{run_dir}: {side} tokenizer has {codec.vocab_size} labels, model.json says {size}"
            )


def load_run(
    info: ModelInfo, checkpoint: str = "best", device: torch.device | None = None
) -> LoadedRun:
    """Rebuild a model from its run directory alone (a shipped model is one); a missing or
    mismatched part is an MtError."""
    if info.kind != "run":
        raise MtError(
            f"{info.label}: this is an `mt export` directory (a CTranslate2 model), not a run"
        )
    weights = info.weights(checkpoint)
    source = WordPieceCodec.load(info.source_tokenizer)
    target = WordPieceCodec.load(info.target_tokenizer)
    check_vocabularies(info.directory, info.config, source, target)
    model = make_model(info.config)
    load_weights_into(model, weights)
    model.eval()
    if device is not None:
        model.to(device)
    return LoadedRun(info, model, source, target)


# ----- resumable checkpoints -------------------------------------------------------------------

MODEL_PREFIX = "model."
"""Checkpoint tensors of the model carry this prefix; optimizer and random state have their own."""


def model_tensors(tensors: dict[str, Tensor]) -> dict[str, Tensor]:
    """The model's own weights among a checkpoint's tensors, under their state_dict names."""
    return {
        name.removeprefix(MODEL_PREFIX): tensor
        for name, tensor in tensors.items()
        if name.startswith(MODEL_PREFIX)
    }


def save_checkpoint(
    run_dir: Path, step: int, tensors: dict[str, Tensor], state: dict[str, Any]
) -> None:
    """Write the tensor file, then the JSON that names it, then drop all but the newest few."""
    folder = run_dir / CHECKPOINTS
    save_tensors(step_file(folder, step, ".safetensors"), tensors)
    write_json(step_file(folder, step), {"format_version": WEIGHTS_FORMAT, **state})
    for old in step_files(folder)[:-KEEP_CHECKPOINTS]:
        step_file(folder, old).unlink(missing_ok=True)
        step_file(folder, old, ".safetensors").unlink(missing_ok=True)


def step_file(folder: Path, step: int, suffix: str = ".json") -> Path:
    return folder / f"step-{step:08d}{suffix}"


def step_files(folder: Path, suffix: str = ".json") -> list[int]:
    """The N of each file step-N`suffix` in `folder` (a checkpoint's JSON by default), in order."""
    found = (re.fullmatch(r"step-(\d+)" + re.escape(suffix), p.name) for p in folder.glob("step-*"))
    return sorted(int(m.group(1)) for m in found if m)


def has_checkpoint(run_dir: Path) -> bool:
    return bool(step_files(run_dir / CHECKPOINTS))


def load_latest_checkpoint(
    run_dir: Path, model_state: dict[str, Tensor] | None = None
) -> tuple[dict[str, Tensor], dict[str, Any], list[str]]:
    """Newest checkpoint that loads, verifies and (given `model_state`) fits the model; the
    warnings name any newer one that did not."""
    folder = run_dir / CHECKPOINTS
    warnings: list[str] = []
    for step in reversed(step_files(folder)):
        try:
            state = _read_checkpoint_state(step_file(folder, step))
            path = step_file(folder, step, ".safetensors")
            tensors, _ = load_tensors(path)
            if model_state is not None:
                check_fits(path, model_tensors(tensors), model_state)
            return tensors, state, warnings
        except MtError as error:
            warnings.append(f"skipping damaged checkpoint: {error}")
    detail = f" ({warnings[-1]})" if warnings else ""
    raise MtError(
        f"{run_dir}: no resumable checkpoint found{detail}; start the run again with "
        f"`mt train PREPARED --out {run_dir} --force`"
    )


def latest_checkpoint_state(run_dir: Path) -> dict[str, Any] | None:
    """The JSON state of the newest checkpoint, without its tensors; None where there is none
    or it can't be read (resuming then finds the checkpoint to use and says why)."""
    steps = step_files(run_dir / CHECKPOINTS)
    if not steps:
        return None
    try:
        return _read_checkpoint_state(step_file(run_dir / CHECKPOINTS, max(steps)))
    except MtError:
        return None


def _read_checkpoint_state(path: Path) -> dict[str, Any]:
    state = read_json(path)
    version = state.get("format_version") if isinstance(state, dict) else None
    check_format(version, WEIGHTS_FORMAT, what=f"{path}: checkpoint of run")
    missing = [key for key in ("progress", "optimizer") if key not in state]
    if missing:
        raise MtError(f"{path}: checkpoint state is missing {missing[0]!r}")
    return state


def remove_leftovers(run_dir: Path) -> list[Path]:
    """Temporary files of writes a crash cut short, and tensor files whose JSON never came.

    Only safe while nothing else writes to the run, as when a run is resumed.
    """
    folder = run_dir / CHECKPOINTS
    leftovers = [*run_dir.glob(".*.tmp*"), *folder.glob(".*.tmp*")]
    leftovers += (run_dir / SNAPSHOTS).glob(".*.tmp*")
    leftovers += [
        path for path in folder.glob("step-*.safetensors") if not path.with_suffix(".json").exists()
    ]
    for path in leftovers:
        path.unlink(missing_ok=True)
    return leftovers


# ----- metrics -----------------------------------------------------------------------------------


def write_metrics(run_dir: Path, rows: list[dict[str, float]]) -> None:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=METRICS_FIELDS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: row.get(key, "") for key in METRICS_FIELDS})
    atomic_write_text(run_dir / METRICS_CSV, buffer.getvalue())
