"""The training loop: warmup Adam, masked cross-entropy/accuracy, selection, stopping, resume.

One optimizer step consumes ``world_size * grad_accum`` consecutive batches of the epoch's
deterministic batch list (rank r takes its ``grad_accum`` share), and every micro-batch's loss is
divided by the target-token count of the whole step. So a step means the same update whether it
runs on one process with accumulation or on several with DistributedDataParallel.
"""

from __future__ import annotations

import contextlib
import math
import signal
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch
from torch import Tensor, nn

from mt.batching import Batch, EncodedPairs, batch_indices, collate, encode_pairs, lengths
from mt.checkpoint import optimizer_from_tensors, optimizer_to_tensors
from mt.config import ModelConfig, TrainConfig
from mt.distributed import Distributed
from mt.errors import MtError
from mt.metrics import masked_loss_terms
from mt.model import count_parameters, make_model
from mt.precision import autocast
from mt.progress import Reporter
from mt.rundir import (
    MODEL_PREFIX,
    load_latest_checkpoint,
    model_tensors,
    save_checkpoint,
    save_weights,
    write_metrics,
)
from mt.selection import evaluate_and_save


def learning_rate(step: int, lr: float, warmup: int) -> float:
    """η_t = η0·min(t^-0.5, t·t_w^-1.5): linear rise to η0/sqrt(t_w) at t_w, then t^-0.5 decay."""
    step = max(step, 1)
    return lr * min(step**-0.5, step * warmup**-1.5)


@dataclass
class Progress:
    """Counters that, with the weights, optimizer and RNG, make a run resumable exactly."""

    step: int = 0
    epoch: int = 0  # completed epochs
    batch_in_epoch: int = 0  # optimizer steps done in the current epoch
    elapsed: float = 0.0
    best_loss: float = math.inf
    bad_epochs: int = 0
    epoch_loss_sum: float = 0.0
    epoch_correct: int = 0
    epoch_count: int = 0
    skipped: int = 0  # batches skipped for a non-finite loss, counted against --skip-nonfinite
    history: list[dict[str, float]] = field(default_factory=list)


@dataclass(frozen=True)
class TrainData:
    train: EncodedPairs
    selection: EncodedPairs


def encode_parts(
    train_pairs: list[tuple[str, str]],
    selection_pairs: list[tuple[str, str]],
    source_codec,
    target_codec,
    config: TrainConfig,
) -> TrainData:
    def encode(pairs: list[tuple[str, str]]) -> EncodedPairs:
        return encode_pairs(
            source_codec.encode_batch([en for en, _ in pairs]),
            target_codec.encode_batch([es for _, es in pairs]),
            max_src_len=config.max_src_len,
            max_tgt_len=config.max_tgt_len,
        )

    return TrainData(train=encode(train_pairs), selection=encode(selection_pairs))


def epoch_batches(
    data: EncodedPairs, config: TrainConfig, epoch: int, shuffle: bool = True
) -> list:
    src_len, tgt_len = lengths(data)
    return batch_indices(
        src_len,
        tgt_len,
        batch_size=config.batch_size,
        batch_tokens=config.batch_tokens,
        seed=config.seed,
        epoch=epoch,
        shuffle=shuffle,
    )


class Trainer:
    """Holds the model, optimizer and progress of one run and advances them step by step."""

    def __init__(
        self,
        *,
        model_config: ModelConfig,
        config: TrainConfig,
        data: TrainData,
        run_dir: Path,
        device: torch.device,
        reporter: Reporter,
        dist: Distributed,
    ) -> None:
        self.config = config
        self.data = data
        self.run_dir = run_dir
        self.device = device
        self.reporter = reporter
        self.dist = dist
        torch.manual_seed(config.seed)
        self.model = make_model(model_config).to(device)
        self.parameters = count_parameters(self.model)
        self.progress = Progress()
        self._own_dropout_stream()
        self.optimizer = torch.optim.Adam(
            self.model.parameters(),
            lr=learning_rate(1, config.lr, config.warmup),
            betas=(config.beta1, config.beta2),
            eps=1e-9,
        )
        self.scaler = torch.amp.GradScaler(device.type, enabled=config.precision == "fp16")
        self.forward = dist.wrap(self.model, device)
        if config.compile:
            self.forward = torch.compile(self.forward, dynamic=True)
        self.snapshots: list[dict[str, Tensor]] = []
        self.interrupted = False
        self.steps_in_epoch = 1
        self.target_positions = [0, 0]  # real, padded: the padding share of training batches

    # ----- state ------------------------------------------------------------------------------

    def state_tensors(self) -> dict[str, Tensor]:
        optimizer_tensors, _ = optimizer_to_tensors(self.optimizer.state_dict())
        tensors = {MODEL_PREFIX + k: v for k, v in self.model.state_dict().items()}
        tensors.update(optimizer_tensors)
        tensors["rng.cpu"] = torch.get_rng_state()
        if self.device.type == "cuda":
            tensors["rng.cuda"] = torch.cuda.get_rng_state(self.device)
        return tensors

    def save(self) -> None:
        if not self.dist.is_main:
            return
        _, optimizer_rest = optimizer_to_tensors(self.optimizer.state_dict())
        state = {
            "progress": asdict(self.progress),
            "optimizer": optimizer_rest,
            "batches_per_step": self.dist.world_size * self.config.grad_accum,
        }
        save_checkpoint(self.run_dir, self.progress.step, self.state_tensors(), state)
        save_weights(self.run_dir / "last.safetensors", self.model)
        write_metrics(self.run_dir, self.progress.history)

    def restore(self) -> list[str]:
        tensors, state, warnings = load_latest_checkpoint(self.run_dir, self.model.state_dict())
        self.model.load_state_dict(model_tensors(tensors))
        self.optimizer.load_state_dict(optimizer_from_tensors(tensors, state["optimizer"]))
        torch.set_rng_state(tensors["rng.cpu"])
        if self.device.type == "cuda" and "rng.cuda" in tensors:
            torch.cuda.set_rng_state(tensors["rng.cuda"], self.device)
        self.progress = Progress(**state["progress"])
        self._own_dropout_stream()
        return warnings + self._keep_batches_per_step(state.get("batches_per_step"))

    def _keep_batches_per_step(self, saved: int | None) -> list[str]:
        """On another number of processes, change grad_accum so a step takes the same batches."""
        world = self.dist.world_size
        if saved is None or saved == world * self.config.grad_accum:
            return []
        if saved % world:
            raise MtError(
                f"{self.run_dir}: each step of this run takes {saved} batches, which {world} "
                f"processes cannot share evenly; resume on a number of processes dividing {saved}"
            )
        self.config = replace(self.config, grad_accum=saved // world)
        return [
            f"{world} process(es) share each step's {saved} batches: "
            f"--grad-accum {self.config.grad_accum} for this resumed run"
        ]

    def _own_dropout_stream(self) -> None:
        """Ranks other than 0 reseed, so they don't draw rank 0's dropout masks (checkpoints hold
        rank 0's random state only); one process keeps its stream untouched."""
        if self.dist.rank:
            torch.manual_seed(self.config.seed + 1_000_003 * self.dist.rank + self.progress.step)

    # ----- one step -----------------------------------------------------------------------------

    def step_batches(self, batches: list) -> list[list[Batch]]:
        """Group the epoch's batches per optimizer step and keep this rank's share."""
        per_step = self.dist.world_size * self.config.grad_accum
        steps = []
        for start in range(0, len(batches) - per_step + 1, per_step):
            group = batches[start : start + per_step]
            mine = group[
                self.dist.rank * self.config.grad_accum : (self.dist.rank + 1)
                * self.config.grad_accum
            ]
            steps.append(
                [collate(self.data.train, indices) for indices in mine] + [_count(self.data, group)]
            )
        return steps

    def train_step(
        self, micro_batches: list[Batch], step_tokens: int
    ) -> tuple[Tensor, Tensor, bool]:
        lr = learning_rate(self.progress.step + 1, self.config.lr, self.config.warmup)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        # float64 so that summing micro-batches here or over ranks gives the same number
        loss_total = torch.zeros((), device=self.device, dtype=torch.float64)
        correct_total = torch.zeros((), device=self.device, dtype=torch.long)
        for index, batch in enumerate(micro_batches):
            if self.device.type == "cuda":
                batch = batch.pin_memory()  # so the copy below runs asynchronously
            batch = batch.to(self.device)
            sync = (
                self.dist.no_sync(self.forward)
                if index < len(micro_batches) - 1
                else contextlib.nullcontext()
            )
            with sync:
                with autocast(self.device, self.config.precision):
                    logits = self.forward(
                        batch.src, batch.src_mask, batch.tgt_in, output_mask=batch.tgt_mask
                    )
                loss_sum, correct = masked_loss_terms(
                    logits, batch.tgt_out[batch.tgt_mask], self.config.label_smoothing
                )
                # DDP averages gradients over ranks, so scale by world size to get a sum.
                self.scaler.scale(loss_sum * (self.dist.world_size / step_tokens)).backward()
            loss_total += loss_sum.detach()
            correct_total += correct
        if self.dist.enabled:  # whole-step sums: the same finiteness and metrics on every rank
            both = self.dist.sum(torch.stack([loss_total.double(), correct_total.double()]))
            loss_total, correct_total = both[0], both[1].long()
        finite = True
        if self.device.type == "cpu" or self.config.skip_nonfinite:
            finite = bool(torch.isfinite(loss_total))
        if finite:
            if self.config.clip_norm > 0:
                self.scaler.unscale_(self.optimizer)
                nn.utils.clip_grad_norm_(self.model.parameters(), self.config.clip_norm)
            self.scaler.step(self.optimizer)
            self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        return loss_total, correct_total, finite


def _count(data: TrainData, group: list) -> int:
    """Real target tokens of a whole optimizer step (all ranks, all micro-batches)."""
    return sum(int(sum(len(data.train.tgt[i]) - 1 for i in indices)) for indices in group)


def train_loop(trainer: Trainer, max_epochs: int) -> str:
    """Run until a stopping rule fires; returns the reason."""
    config, progress, reporter = trainer.config, trainer.progress, trainer.reporter
    start = time.monotonic() - progress.elapsed
    previous_handler = _install_interrupt_flag(trainer)
    try:
        while progress.epoch < max_epochs:
            steps = trainer.step_batches(epoch_batches(trainer.data.train, config, progress.epoch))
            trainer.steps_in_epoch = len(steps)
            reporter.start_epoch(progress.epoch + 1, len(steps), progress.batch_in_epoch)
            running = _RunningSums(trainer.device)
            for micro in steps[progress.batch_in_epoch :]:
                *batches, step_tokens = micro
                local_tokens = sum(b.target_tokens for b in batches)
                trainer.target_positions[0] += local_tokens
                trainer.target_positions[1] += sum(b.tgt_mask.numel() for b in batches)
                loss, correct, finite = trainer.train_step(batches, step_tokens)
                if not finite:
                    reason = _handle_nonfinite(trainer)
                    if reason:
                        return reason
                    continue
                progress.step += 1
                progress.batch_in_epoch += 1
                running.add(loss, correct, step_tokens)  # whole-step sums over all ranks
                progress.elapsed = time.monotonic() - start
                lr = trainer.optimizer.param_groups[0]["lr"]
                reason = _step_limit_reached(trainer)
                report = progress.step % REPORT_EVERY == 0 or progress.batch_in_epoch == len(steps)
                # The epoch's last step is evaluated by the end-of-epoch evaluation below.
                evaluate = (
                    config.eval_every
                    and progress.step % config.eval_every == 0
                    and progress.batch_in_epoch < len(steps)
                )
                if report or evaluate or reason or trainer.device.type == "cpu":
                    running.settle(progress)
                if report:
                    loss_mean, accuracy, rate = running.window()
                    reporter.advance(progress.batch_in_epoch, loss_mean, accuracy, lr, rate)
                if evaluate and not reason:
                    evaluate_and_save(trainer, lr)
                if reason == INTERRUPTED:  # a due evaluation still runs: resume will not redo it
                    evaluate_and_save(trainer, lr, evaluate=bool(evaluate))
                    raise MtError(
                        f"interrupted at step {progress.step}; resume with "
                        f"`mt train --resume {trainer.run_dir}`",
                        exit_code=130,
                    )
                if reason:
                    evaluate_and_save(trainer, lr)
                    return reason
            running.settle(progress)  # a skipped last step leaves sums unread
            train_accuracy = progress.epoch_correct / max(progress.epoch_count, 1)
            progress.epoch += 1
            progress.batch_in_epoch = 0
            evaluate_and_save(trainer, trainer.optimizer.param_groups[0]["lr"], end_of_epoch=True)
            reason = ""
            if train_accuracy >= config.accuracy_goal:
                goal = config.accuracy_goal
                reason = f"training accuracy {train_accuracy:.4f} reached the goal {goal}"
            elif config.patience and progress.bad_epochs >= config.patience:
                reason = f"selection loss did not improve for {config.patience} epochs (patience)"
            reason = trainer.dist.agree(reason)
            if reason:
                return reason
        return f"reached --max-epochs {max_epochs}"
    finally:
        if previous_handler is not None:
            signal.signal(signal.SIGINT, previous_handler)


REPORT_EVERY = 10
"""Steps between progress updates; on CUDA also between reads of the running loss (a sync)."""

INTERRUPTED = "interrupted"


def _step_limit_reached(trainer: Trainer) -> str:
    """Why to stop after this step, the same on every rank (rank 0 decides).

    The step limit is the same everywhere; the clock and Ctrl-C are per process, so several
    processes consult rank 0 about them only every REPORT_EVERY steps: a broadcast is a sync.
    """
    config, progress = trainer.config, trainer.progress
    if config.max_steps and progress.step >= config.max_steps:
        return f"reached --max-steps {config.max_steps}"
    if trainer.dist.enabled and progress.step % REPORT_EVERY:
        return ""
    reason = ""
    if trainer.interrupted:
        reason = INTERRUPTED
    elif config.time_budget and progress.elapsed >= config.time_budget:
        reason = f"time budget of {config.time_budget:.0f} s used"
    return trainer.dist.agree(reason)


class _RunningSums:
    """Training loss and hits kept on the device until the loop needs them as numbers.

    Reading a CUDA tensor waits for the GPU, so on CUDA they are read only to report, evaluate or
    stop; on the CPU every step (the sums, and so the metrics rows, stay exactly as they were).
    """

    def __init__(self, device: torch.device) -> None:
        self.loss = torch.zeros((), device=device, dtype=torch.float64)
        self.correct = torch.zeros((), device=device, dtype=torch.long)
        self.tokens = 0
        self.shown = [0.0, 0, 0, time.monotonic()]  # since the last report: loss, hits, tokens

    def add(self, loss: Tensor, correct: Tensor, tokens: int) -> None:
        self.loss += loss
        self.correct += correct
        self.tokens += tokens

    def settle(self, progress: Progress) -> None:
        loss, correct, tokens = float(self.loss), int(self.correct), self.tokens
        self.loss.zero_()
        self.correct.zero_()
        self.tokens = 0
        progress.epoch_loss_sum += loss
        progress.epoch_correct += correct
        progress.epoch_count += tokens
        for index, value in enumerate((loss, correct, tokens)):
            self.shown[index] += value

    def window(self) -> tuple[float, float, float]:
        """Mean loss, accuracy and target tokens/s (all ranks) since the last call."""
        loss, correct, tokens, since = self.shown
        now = time.monotonic()
        self.shown = [0.0, 0, 0, now]
        return loss / max(tokens, 1), correct / max(tokens, 1), tokens / max(now - since, 1e-9)


def _handle_nonfinite(trainer: Trainer) -> str:
    trainer.progress.skipped += 1
    if trainer.progress.skipped <= trainer.config.skip_nonfinite:
        trainer.progress.batch_in_epoch += 1  # used up: a resume must not replay it
        trainer.reporter.message(
            f"skipped a batch with a non-finite loss at step {trainer.progress.step + 1}"
        )
        return ""
    raise MtError(
        f"non-finite loss at step {trainer.progress.step + 1}; training stopped and the last good "
        f"checkpoint in {trainer.run_dir} was kept (lower --lr, or allow --skip-nonfinite N)",
        exit_code=1,
    )


def _install_interrupt_flag(trainer: Trainer):
    """Ctrl-C sets a flag that the loop checks between steps, so the saved state is consistent."""
    try:

        def handler(signum: int, frame: object) -> None:
            trainer.interrupted = True

        return signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main thread
        return None
