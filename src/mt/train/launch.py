"""Start or resume a training run: the steps in order, each done by the module that owns it.

`train_run` is what `mt train` calls and what a library user calls, with option changes by config
field name: ``train_run(prepared=Path("data/prepared"), out=Path("runs/a"), changes={"max_steps":
100})``. A fine-tuned run is set up by mt.train.finetune, then trains like any other.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import torch

from mt.catalog.direction import direction_of
from mt.catalog.modelinfo import read_lineage, read_model_config, read_train_config, write_configs
from mt.config import ModelConfig, TrainConfig
from mt.data.feed.augment import placeholder_rate
from mt.data.feed.batching import TrainData, with_augmentation
from mt.data.feed.rehearsal import Mix
from mt.data.prepared_dir import Prepared, load_prepared
from mt.errors import MtError
from mt.model.devices import resolve_device
from mt.model.precision import ProbeResult, machine_id, resolve_precision
from mt.model.probes import probe_training
from mt.model.rundir import (
    claim_run_dir,
    has_checkpoint,
    latest_checkpoint_state,
    remove_leftovers,
)
from mt.model.transformer import count_parameters, make_model
from mt.storage.files import (
    CURVES_PNG,
    DECODE_JSON,
    MODEL_JSON,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    write_json,
)
from mt.train.distributed import Distributed, setup_distributed
from mt.train.finetune import Rehearsal, fine_tuning, rehearsal, stored_mix
from mt.train.plots import plot_curves
from mt.train.reporting import Reporter, SilentReporter
from mt.train.run_config import check_resumable, new_run_config, resumed_train_config
from mt.train.run_tables import copy_tables
from mt.train.throughput import Throughput
from mt.train.trainer import Trainer


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
    precision: str = ""  # what training computed in, and why (--precision auto probes)
    throughput: Throughput | None = None  # of this command's training, to its last metrics row


def train_run(
    *,
    prepared: Path | None = None,
    out: Path | None = None,
    resume: Path | None = None,
    preset: str | None = None,
    changes: Mapping[str, object] | None = None,
    device: str = "auto",
    threads: int | None = None,
    force: bool = False,
    reporter: Reporter | None = None,
    init_from: str | Path | None = None,
    mix: Mix | None = None,
    peak_tflops: float | None = None,
) -> TrainSummary:
    """A new run (``prepared`` and ``out``; fine-tuned from the run ``init_from``, rehearsing
    ``mix``) or a resumed one (``resume``); ``peak_tflops``: the device's peak for MFU where
    mt.train.peaks does not know it."""
    reporter = reporter or SilentReporter()
    if peak_tflops is not None and not peak_tflops > 0:
        raise MtError(f"--peak-tflops must be a positive number, got {peak_tflops}")
    if resume is not None:
        if preset or prepared or init_from or mix:
            raise MtError(
                "--resume continues a run as configured; give no model size, preset or "
                "prepared directory, nor --init-from or --mix"
            )
        return resume_training(
            run_dir=resume,
            changes=changes,
            device_name=device,
            threads=threads,
            reporter=reporter,
            peak_tflops=peak_tflops,
        )
    if prepared is None or out is None:
        raise MtError("give the prepared directory and --out RUN (or --resume RUN)")
    return start_training(
        prepared_dir=prepared,
        run_dir=out,
        preset=preset,
        changes=changes,
        device_name=device,
        threads=threads,
        force=force,
        reporter=reporter,
        init_from=init_from,
        mix=mix,
        peak_tflops=peak_tflops,
    )


def dry_run(
    prepared_dir: Path | None, preset: str | None, changes: Mapping[str, object] | None = None
) -> tuple[ModelConfig, int]:
    """The model a run would train, and its parameter count, without training it."""
    if prepared_dir is None:
        raise MtError("--dry-run needs the prepared directory")
    prepared = load_prepared(prepared_dir)
    config = _new_config(prepared, preset, changes).model
    return config, count_parameters(make_model(config))


def start_training(
    *,
    prepared_dir: Path,
    run_dir: Path,
    preset: str | None = None,
    changes: Mapping[str, object] | None = None,
    device_name: str = "auto",
    threads: int | None = None,
    force: bool = False,
    reporter: Reporter,
    init_from: str | Path | None = None,
    mix: Mix | None = None,
    peak_tflops: float | None = None,
) -> TrainSummary:
    """A new run: the recipe ``preset`` with ``changes`` (option name -> value), or the run
    ``init_from``'s model and settings with them; ``mix`` rehearses base data."""
    dist, device_name = setup_distributed(device_name)
    prepared = load_prepared(prepared_dir)
    start = None
    if init_from is not None:
        start = fine_tuning(prepared, init_from=init_from, preset=preset, changes=changes or {})
    config = start.config if start else _new_config(prepared, preset, changes)
    # train.json records the rate decided from the tokenizers, not "auto"
    rate = placeholder_rate(config.train, (prepared.source, prepared.target), prepared_dir)
    config = dataclasses.replace(config, train=dataclasses.replace(config.train, placeholders=rate))
    lineage = dict(start.lineage) if start else {}
    rehearse = None
    if mix is not None:
        rehearse = rehearsal(prepared, mix, config.train)
        lineage["mix"] = mix.to_dict()
    resolve_device(device_name)  # a bad --device must not leave a new run directory behind
    if dist.is_main:
        claim_run_dir(run_dir, force=force)
        # model.json last: a run directory that has it has everything `--resume` needs.
        prepared.source.save(run_dir / SOURCE_TOKENIZER)
        prepared.target.save(run_dir / TARGET_TOKENIZER)
        copy_tables(prepared_dir, run_dir)
        if start and start.decoding:  # the base's search setting, until its own dev part says
            write_json(run_dir / DECODE_JSON, start.decoding)
        write_configs(run_dir, config.model, config.train, prepared_dir.resolve(), lineage)
    dist.barrier()
    return _run(
        prepared=prepared,
        run_dir=run_dir,
        model_config=config.model,
        train_config=config.train,
        device_name=device_name,
        threads=threads,
        dist=dist,
        reporter=reporter,
        resume=False,
        weights=start.weights if start else None,
        rehearse=rehearse,
        peak_tflops=peak_tflops,
    )


def resume_training(
    *,
    run_dir: Path,
    changes: Mapping[str, object] | None = None,
    device_name: str = "auto",
    threads: int | None = None,
    reporter: Reporter,
    peak_tflops: float | None = None,
) -> TrainSummary:
    """Continue a run where its newest good checkpoint stopped; only stopping limits may change."""
    check_resumable(changes or {})  # before any work
    dist, device_name = setup_distributed(device_name)
    if not run_dir.is_dir():
        raise MtError(f"--resume {run_dir}: no such run directory")
    if not (run_dir / MODEL_JSON).exists():
        raise MtError(
            f"--resume {run_dir}: no {MODEL_JSON}, the run stopped before it was set up; start "
            f"it again with `mt train PREPARED --out {run_dir} --force`"
        )
    model_config = read_model_config(run_dir)
    stored, prepared_dir = read_train_config(run_dir)
    train_config = resumed_train_config(stored, changes or {})
    prepared = load_prepared(prepared_dir)
    sizes = (prepared.source.vocab_size, prepared.target.vocab_size)
    if sizes != (model_config.src_vocab, model_config.tgt_vocab):
        raise MtError(
            f"--resume {run_dir}: prepared data {prepared_dir} has vocabularies "
            f"{sizes[0]}/{sizes[1]},"
            f" the run was trained with {model_config.src_vocab}/{model_config.tgt_vocab}"
        )
    mix = stored_mix(read_lineage(run_dir))
    return _run(
        prepared=prepared,
        run_dir=run_dir,
        model_config=model_config,
        train_config=train_config,
        device_name=device_name,
        threads=threads,
        dist=dist,
        reporter=reporter,
        resume=True,
        rehearse=rehearsal(prepared, mix, train_config) if mix else None,
        peak_tflops=peak_tflops,
    )


def _new_config(prepared: Prepared, preset: str | None, changes: Mapping[str, object] | None):
    return new_run_config(
        src_vocab=prepared.source.vocab_size,
        tgt_vocab=prepared.target.vocab_size,
        preset=preset,
        changes=changes,
    )


def _probe_training(model_config: ModelConfig, device: torch.device) -> ProbeResult:
    """A throwaway copy of the model, built (without touching the run's random state) only when
    no cached verdict answers."""
    return probe_training(model_config, device, lambda: make_model(model_config).to(device))


def _run(
    *,
    prepared: Prepared,
    run_dir: Path,
    model_config: ModelConfig,
    train_config: TrainConfig,
    device_name: str,
    threads: int | None,
    dist: Distributed,
    reporter: Reporter,
    resume: bool,
    weights: dict[str, torch.Tensor] | None = None,
    rehearse: Rehearsal | None = None,
    peak_tflops: float | None = None,
) -> TrainSummary:
    """Train a set-up run: from ``weights`` (a base run's) if given, else from its seed, or from
    its checkpoint when resumed."""
    if threads:
        torch.set_num_threads(threads)
    device = resolve_device(device_name)
    precision, precision_reason = _training_precision(
        run_dir, model_config, train_config.precision, device, resume=resume
    )
    train_config = dataclasses.replace(train_config, precision=precision)
    if not dist.is_main:
        reporter = SilentReporter()
    data = train_data(prepared, train_config, rehearse, ahead=device.type == "cuda")
    trainer = Trainer(
        model_config=model_config,
        config=train_config,
        data=data,
        run_dir=run_dir,
        device=device,
        reporter=reporter,
        dist=dist,
        peak_tflops=peak_tflops,
    )
    if weights is not None:
        trainer.model.load_state_dict(weights)
    if resume:
        _restore(trainer, run_dir, reporter)
    reporter.message(
        f"parameters: {trainer.parameters:,}  device: {device}  threads: {torch.get_num_threads()}"
        f"  precision: {precision_reason}"
        f"  world size: {dist.world_size}  training pairs: {len(data.train):,}{_rehearsed(data)}"
    )
    started = time.monotonic()
    try:
        reason = trainer.train()
    finally:
        reporter.close()
        dist.close()
    if dist.is_main:
        plot_curves(trainer.progress.history, run_dir / CURVES_PNG)
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
        notes=tuple(trainer.notes),
        is_main=dist.is_main,
        precision=precision_reason,
        throughput=trainer.meter.summary(),
    )


def _training_precision(
    run_dir: Path, model_config: ModelConfig, asked: str, device: torch.device, *, resume: bool
) -> tuple[str, str]:
    """What training computes in, and why. train.json keeps "auto", so a resumed run decides
    again on another machine; on the same one it keeps what its checkpoint was trained in."""
    kept = _kept_precision(run_dir, device) if resume and asked == "auto" else ""
    if kept:
        return kept, f"{kept} (kept from this run's checkpoint)"
    return resolve_precision(
        asked, device, probe=lambda: _probe_training(model_config, device), what="training"
    )


def _rehearsed(data: TrainData) -> str:
    if data.rehearsal is None:
        return ""
    return f" + {len(data.rehearsal(data.train, 0)) - len(data.train):,} base pairs an epoch"


def train_data(
    prepared: Prepared,
    config: TrainConfig,
    rehearse: Rehearsal | None = None,
    *,
    ahead: bool = False,
) -> TrainData:
    """The prepared token arrays, read from their files; with --placeholders or --source-noise
    the texts too (both rewrite text, so they need it in memory); with --mix the base pairs.
    `ahead`: each epoch's placeholders and noise made in full before its steps (a GPU)."""
    limits = {"max_src_len": config.max_src_len, "max_tgt_len": config.max_tgt_len}
    train = prepared.encoded("train", **limits)
    codecs = (prepared.source, prepared.target)
    # a run from before --placeholders has none stored: decided as a new run would
    config = dataclasses.replace(config, placeholders=placeholder_rate(config, codecs, "the run"))
    augmented = None
    if config.placeholders or config.source_noise:
        english = direction_of(prepared.info).english_source
        augmented = with_augmentation(
            train,
            prepared.read_part("train"),
            codecs,
            config,
            english_source=english,
            ahead=ahead,
        )
    selection = prepared.encoded("selection", **limits)
    return TrainData(train=train, selection=selection, augmented=augmented, rehearsal=rehearse)


def _kept_precision(run_dir: Path, device: torch.device) -> str:
    """The precision the newest checkpoint was trained in, where it was trained on a CPU like this
    one with the same torch and threads; "" where it must be decided again."""
    state = latest_checkpoint_state(run_dir) or {}
    recorded = state.get("precision")
    if device.type != "cpu" or not isinstance(recorded, dict):
        return ""
    if recorded.get("machine") != machine_id() or recorded.get("mode") not in ("fp32", "bf16"):
        return ""
    return str(recorded["mode"])


def _restore(trainer: Trainer, run_dir: Path, reporter: Reporter) -> None:
    """Newest good checkpoint; a run stopped before its first checkpoint starts again at step 0."""
    remove_leftovers(run_dir)
    if not has_checkpoint(run_dir):
        reporter.message(f"{run_dir} has no checkpoint yet: starting it again from step 0")
        return
    for warning in trainer.restore():
        reporter.message(f"warning: {warning}")
    reporter.message(f"resuming {run_dir} at step {trainer.progress.step}")
