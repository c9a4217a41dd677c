"""Start or resume a training run: check the inputs, lay out the run directory, train, summarise."""

from __future__ import annotations

import dataclasses
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import torch

from mt.config import RECIPES, RNN_CLIP_NORM, ModelConfig, ModelShape, TrainConfig
from mt.distributed import Distributed, resolve_device, setup_distributed
from mt.errors import MtError
from mt.model import count_parameters, make_model
from mt.plots import plot_curves
from mt.prepare import load_prepared
from mt.progress import Reporter, SilentReporter
from mt.rundir import (
    CHECKPOINTS,
    MODEL_JSON,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    TRAIN_JSON,
    has_checkpoint,
    read_model_config,
    read_train_config,
    remove_leftovers,
    write_configs,
)
from mt.selection import average_snapshots
from mt.train import Trainer, encode_parts, train_loop

RUN_MARKERS = (MODEL_JSON, TRAIN_JSON, CHECKPOINTS)
"""What only `mt train` writes (a prepared directory has tokenizers too): `--force` replaces a
directory only if it holds one of these."""


@dataclass(frozen=True)
class SizeFlags:
    """Explicit size flags from the command line; None means "not given"."""

    d_model: int | None = None
    ff: int | None = None
    heads: int | None = None
    layers: int | None = None
    dropout: float | None = None
    pre_norm: bool | None = None
    tie_embeddings: bool | None = None
    arch: str | None = None
    cell: str | None = None
    attention: str | None = None


def choose_recipe(name: str | None) -> tuple[ModelShape, TrainConfig]:
    recipe_name = name or "default"
    if recipe_name not in RECIPES:
        known = ", ".join(sorted(RECIPES))
        raise MtError(f"--preset: unknown preset {recipe_name!r} (known: {known})")
    recipe = RECIPES[recipe_name]
    return recipe.shape, recipe.train


def model_config_for(
    shape: ModelShape, flags: SizeFlags, src_vocab: int, tgt_vocab: int
) -> ModelConfig:
    values = dataclasses.asdict(shape)
    values.update({k: v for k, v in dataclasses.asdict(flags).items() if v is not None})
    return ModelConfig(src_vocab=src_vocab, tgt_vocab=tgt_vocab, **values)


@dataclass(frozen=True)
class TrainSummary:
    run_dir: Path
    parameters: int
    steps: int
    epochs: float
    stop_reason: str
    best_selection_loss: float
    elapsed: float
    padding_share: float
    notes: tuple[str, ...]
    is_main: bool = True  # only the main process of a torchrun job reports


def dry_run(prepared_dir: Path, preset: str | None, flags: SizeFlags) -> tuple[ModelConfig, int]:
    prepared = load_prepared(prepared_dir)
    shape, _ = choose_recipe(preset)
    config = model_config_for(shape, flags, prepared.source.vocab_size, prepared.target.vocab_size)
    return config, count_parameters(make_model(config))


def start_training(
    *,
    prepared_dir: Path,
    run_dir: Path,
    preset: str | None,
    flags: SizeFlags,
    overrides: dict[str, object],
    device_name: str,
    threads: int | None,
    force: bool,
    reporter: Reporter,
) -> TrainSummary:
    """A new run: model from preset/flags, training settings from the recipe plus overrides."""
    dist, device_name = setup_distributed(device_name)
    prepared = load_prepared(prepared_dir)
    shape, recipe_train = choose_recipe(preset)
    model_config = model_config_for(
        shape, flags, prepared.source.vocab_size, prepared.target.vocab_size
    )
    if model_config.arch == "rnn" and not recipe_train.clip_norm:  # a Transformer recipe
        recipe_train = dataclasses.replace(recipe_train, clip_norm=RNN_CLIP_NORM)
    train_config = TrainConfig.from_dict({**recipe_train.to_dict(), **overrides})
    resolve_device(device_name)  # a bad --device must not leave a new run directory behind
    if dist.is_main:
        _claim_run_dir(run_dir, force)
        # model.json last: a run directory that has it has everything `--resume` needs.
        prepared.source.save(run_dir / SOURCE_TOKENIZER)
        prepared.target.save(run_dir / TARGET_TOKENIZER)
        write_configs(run_dir, model_config, train_config, prepared_dir.resolve())
    dist.barrier()
    return _run(
        prepared,
        run_dir,
        model_config,
        train_config,
        device_name,
        threads,
        dist,
        reporter,
        resume=False,
    )


RESUME_OVERRIDES = frozenset(
    {
        "max_epochs",
        "max_steps",
        "time_budget",
        "patience",
        "accuracy_goal",
        "eval_every",
        "skip_nonfinite",
    }
)
"""What a resumed run may change: when it stops, how often it evaluates, what it skips. Anything
else would make the continued run differ from the one that was started."""


def check_resume_overrides(given: set[str]) -> None:
    fixed = sorted(given - RESUME_OVERRIDES)
    if fixed:
        named = ", ".join("--" + name.replace("_", "-") for name in fixed)
        raise MtError(
            "--resume continues a run as configured; only stopping limits may be given, "
            f"not {named}"
        )


def resume_training(
    *,
    run_dir: Path,
    overrides: dict[str, object],
    device_name: str,
    threads: int | None,
    reporter: Reporter,
) -> TrainSummary:
    """Continue a run where its newest good checkpoint stopped; only stopping limits may change."""
    check_resume_overrides(set(overrides))
    dist, device_name = setup_distributed(device_name)
    if not run_dir.is_dir():
        raise MtError(f"--resume {run_dir}: no such run directory")
    if not (run_dir / MODEL_JSON).exists():
        raise MtError(
            f"--resume {run_dir}: no {MODEL_JSON}, the run stopped before it was set up; start "
            f"it again with `mt train PREPARED --out {run_dir} --force`"
        )
    model_config = read_model_config(run_dir)
    train_config, prepared_dir = read_train_config(run_dir)
    train_config = TrainConfig.from_dict({**train_config.to_dict(), **overrides})
    prepared = load_prepared(prepared_dir)
    sizes = (prepared.source.vocab_size, prepared.target.vocab_size)
    if sizes != (model_config.src_vocab, model_config.tgt_vocab):
        raise MtError(
            f"--resume {run_dir}: prepared data {prepared_dir} has vocabularies "
            f"{sizes[0]}/{sizes[1]},"
            f" the run was trained with {model_config.src_vocab}/{model_config.tgt_vocab}"
        )
    return _run(
        prepared,
        run_dir,
        model_config,
        train_config,
        device_name,
        threads,
        dist,
        reporter,
        resume=True,
    )


def _restore(trainer: Trainer, run_dir: Path, reporter: Reporter) -> None:
    """Newest good checkpoint; a run stopped before its first checkpoint starts again at step 0."""
    remove_leftovers(run_dir)
    if not has_checkpoint(run_dir):
        reporter.message(f"{run_dir} has no checkpoint yet: starting it again from step 0")
        return
    for warning in trainer.restore():
        reporter.message(f"warning: {warning}")
    reporter.message(f"resuming {run_dir} at step {trainer.progress.step}")


def _claim_run_dir(run_dir: Path, force: bool) -> None:
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


def _run(
    prepared,
    run_dir: Path,
    model_config: ModelConfig,
    train_config: TrainConfig,
    device_name: str,
    threads: int | None,
    dist: Distributed,
    reporter: Reporter,
    *,
    resume: bool,
) -> TrainSummary:
    if threads:
        torch.set_num_threads(threads)
    device = resolve_device(device_name)
    if not dist.is_main:
        reporter = SilentReporter()
    data = encode_parts(
        prepared.read_part("train"),
        prepared.read_part("selection"),
        prepared.source,
        prepared.target,
        train_config,
    )
    trainer = Trainer(
        model_config=model_config,
        config=train_config,
        data=data,
        run_dir=run_dir,
        device=device,
        reporter=reporter,
        dist=dist,
    )
    notes = []
    if resume:
        _restore(trainer, run_dir, reporter)
    reporter.message(
        f"parameters: {trainer.parameters:,}  device: {device}  threads: {torch.get_num_threads()}"
        f"  world size: {dist.world_size}  training pairs: {len(data.train):,}"
    )
    started = time.monotonic()
    try:
        reason = train_loop(trainer, train_config.max_epochs)
        note = average_snapshots(trainer)
        if note:
            notes.append(note)
    finally:
        reporter.close()
        dist.close()
    if dist.is_main:
        plot_curves(trainer.progress.history, run_dir / "curves.png")
    progress = trainer.progress
    return TrainSummary(
        run_dir=run_dir,
        parameters=trainer.parameters,
        steps=progress.step,
        epochs=progress.epoch + progress.batch_in_epoch / max(trainer.steps_in_epoch, 1),
        stop_reason=reason,
        best_selection_loss=progress.best_loss,
        elapsed=time.monotonic() - started,
        padding_share=1 - trainer.target_positions[0] / max(trainer.target_positions[1], 1),
        notes=tuple(notes),
        is_main=dist.is_main,
    )
