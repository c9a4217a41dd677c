"""The training loop: Adam steps on masked cross-entropy, evaluations, and why training stops.

One optimizer step consumes ``world_size * grad_accum`` consecutive batches of the epoch's
deterministic batch list, and every micro-batch's loss is divided by the whole step's target
tokens, so a step is the same update on one process with accumulation or on several with DDP.
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import torch
from torch import Tensor, nn

from mt.config import ModelConfig, TrainConfig
from mt.data.feed.batching import EpochSteps, StepBatch, TrainData, epoch_batches, step_batches
from mt.errors import MtError
from mt.model.loss import RunningSums, TokenStats, masked_loss_terms, real_position_logits
from mt.model.precision import autocast
from mt.model.transformer import count_parameters, make_model
from mt.runtime.cpus import seconds_since_start
from mt.runtime.interrupts import handling
from mt.runtime.native_memory import TRIM_EVERY, release_freed_memory
from mt.train.distributed import Distributed
from mt.train.peaks import training_peak
from mt.train.reporting import Reporter
from mt.train.resume import (
    Progress,
    grad_accum_keeping_steps,
    own_dropout_stream,
    restore_run_state,
    save_run_state,
)
from mt.train.schedule import budget_used, learning_rate
from mt.train.selection import Selection
from mt.train.throughput import Meter, Throughput

REPORT_EVERY = 10
"""Steps between progress updates; on CUDA also between reads of the running loss (a sync)."""

INTERRUPTED = "interrupted"


class Trainer:
    """Holds the model, optimizer and progress of one run and trains it until a rule stops it."""

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
        peak_tflops: float | None = None,
    ) -> None:
        """`peak_tflops`: the device's peak for MFU where mt.train.peaks does not know it."""
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
        own_dropout_stream(seed=config.seed, rank=dist.rank, step=0)
        self.optimizer = torch.optim.Adam(
            self.model.parameters(),
            lr=learning_rate(1, config.lr, config.warmup),
            betas=(config.beta1, config.beta2),
            eps=1e-9,
            # one kernel over all parameters: the per-tensor loop took 14% of a CPU step
            fused=device.type in ("cpu", "cuda"),
        )
        self.scaler = torch.amp.GradScaler(device.type, enabled=config.precision == "fp16")
        self.forward = dist.wrap(self.model, device)
        if config.compile:
            self.forward = torch.compile(self.forward, dynamic=True)
        self.selection = Selection(
            data=data.selection, config=config, device=device, run_dir=run_dir, writes=dist.is_main
        )
        self.notes: list[str] = []  # what the user should read at the end (snapshot averaging)
        self.interrupted = False
        self.clock = 0.0  # seconds of the time budget used, as rank 0 last said
        self.steps_in_epoch = 1
        self.target_positions = [0, 0]  # real, padded: the padding share of training batches
        peak = training_peak(device, config.precision, peak_tflops)
        self.meter = Meter(model_config, peak, dist, device)

    # ----- the loop -------------------------------------------------------------------------------

    def train(self) -> str:
        """Train until a stopping rule fires; returns why. Ctrl-C saves and raises an MtError."""
        progress = self.progress
        started = time.monotonic() - progress.elapsed
        self.clock = progress.elapsed  # seconds of the budget used, the same on every rank
        self.meter.start(progress.elapsed - progress.eval_seconds)
        first_step = True  # this process's: the message says how soon training started
        stopped = ""  # a stopping rule that fired on an epoch's last step
        with self._ctrl_c_sets_a_flag():
            while progress.epoch < self.config.max_epochs:
                steps = self._epoch_steps()
                self.reporter.start_epoch(progress.epoch + 1, len(steps), progress.batch_in_epoch)
                sums = RunningSums(self.device)
                for step in steps.starting_at(progress.batch_in_epoch):
                    loss, correct, finite = self.train_step(step)
                    if not finite:
                        self._skip_nonfinite()
                        continue
                    progress.step += 1
                    progress.batch_in_epoch += 1
                    progress.elapsed = time.monotonic() - started
                    if first_step:
                        first_step = False
                        self.reporter.message(
                            f"first step {seconds_since_start():.1f} s after the command started"
                        )
                    sums.add(loss, correct, step.target_tokens)  # whole-step sums, all ranks
                    last_of_epoch = progress.batch_in_epoch == len(steps)
                    reason = self._stop_after_step()
                    # The epoch's last step is evaluated by the end-of-epoch evaluation.
                    evaluate = self._evaluation_due() and not last_of_epoch
                    report = progress.step % REPORT_EVERY == 0 or last_of_epoch
                    if report or evaluate or reason or self.device.type == "cpu":
                        self._settle(sums)
                    if self.device.type == "cpu" and progress.step % TRIM_EVERY == 0:
                        release_freed_memory()
                    if report:
                        loss_mean, accuracy, rate = sums.window()
                        self.reporter.advance(
                            progress.batch_in_epoch, loss_mean, accuracy, self.lr, rate
                        )
                    if reason == INTERRUPTED:  # a due evaluation still runs: resume won't redo it
                        self.evaluate_and_save(evaluate=evaluate)
                        raise self._interrupted()
                    if reason and last_of_epoch:
                        # The epoch's end below is this stop's evaluation and checkpoint too: a
                        # run stopped here and resumed must not evaluate the same step again.
                        stopped = reason
                        break
                    if evaluate or reason:
                        self.evaluate_and_save(final=bool(reason))
                    if reason:
                        return self._finish(reason)
                self._settle(sums)  # a skipped last step leaves sums unread
                train_accuracy = progress.epoch_correct / max(progress.epoch_count, 1)
                progress.epoch += 1
                progress.batch_in_epoch = 0
                self.evaluate_and_save(end_of_epoch=True)
                reason = stopped or self._stop_after_epoch(train_accuracy)
                if reason:
                    return self._finish(reason)
        return self._finish(f"reached --max-epochs {self.config.max_epochs}")

    def _settle(self, sums: RunningSums) -> None:
        loss, correct, tokens = sums.settle()
        self.progress.epoch_loss_sum += loss
        self.progress.epoch_correct += correct
        self.progress.epoch_count += tokens

    @property
    def lr(self) -> float:
        return self.optimizer.param_groups[0]["lr"]

    def _epoch_steps(self) -> EpochSteps:
        pairs = self.data.epoch_train(self.progress.epoch)
        steps = step_batches(
            pairs,
            epoch_batches(pairs, self.config, self.progress.epoch),
            world_size=self.dist.world_size,
            rank=self.dist.rank,
            grad_accum=self.config.grad_accum,
        )
        self.steps_in_epoch = len(steps)
        return steps

    def _finish(self, reason: str) -> str:
        note = self.selection.average(self.model, self.progress.best_loss)
        if note:
            self.notes.append(note)
        return reason

    # ----- why training stops: every rule ------------------------------------------------------

    def _stop_after_step(self) -> str:
        """The step limit, Ctrl-C and the time budget, the same on every rank: rank 0 decides the
        per-process ones only every REPORT_EVERY steps, since a broadcast is a sync."""
        config, progress = self.config, self.progress
        if config.max_steps and progress.step >= config.max_steps:
            return f"reached --max-steps {config.max_steps}"
        if self.dist.enabled and progress.step % REPORT_EVERY:
            return ""
        reason = ""
        if self.interrupted:
            reason = INTERRUPTED
        elif config.time_budget and progress.elapsed >= config.time_budget:
            reason = f"time budget of {config.time_budget:.0f} s used"
        reason, self.clock = self.dist.agree((reason, progress.elapsed))
        return reason

    def _stop_after_epoch(self, train_accuracy: float) -> str:
        """The accuracy goal and patience; the epoch limit is the loop's own condition."""
        config, reason = self.config, ""
        if train_accuracy >= config.accuracy_goal:
            goal = config.accuracy_goal
            reason = f"training accuracy {train_accuracy:.4f} reached the goal {goal}"
        elif config.patience and self.progress.bad_epochs >= config.patience:
            reason = f"selection loss did not improve for {config.patience} epochs (patience)"
        return self.dist.agree(reason)

    def _interrupted(self) -> MtError:
        """Ctrl-C, once the state is saved: the error that ends the command (exit code 130)."""
        return MtError(
            f"interrupted at step {self.progress.step}; resume with "
            f"`mt train --resume {self.run_dir}`",
            exit_code=130,
        )

    def _skip_nonfinite(self) -> None:
        """A non-finite loss skips the step, up to --skip-nonfinite times; then training stops."""
        progress = self.progress
        progress.skipped += 1
        if progress.skipped > self.config.skip_nonfinite:
            raise MtError(
                f"non-finite loss at step {progress.step + 1}; training stopped and the last good "
                f"checkpoint in {self.run_dir} was kept (lower --lr, or allow --skip-nonfinite N)",
                exit_code=1,
            )
        progress.batch_in_epoch += 1  # used up: a resume must not replay it
        self.reporter.message(f"skipped a batch with a non-finite loss at step {progress.step + 1}")

    @contextlib.contextmanager
    def _ctrl_c_sets_a_flag(self) -> Iterator[None]:
        """Ctrl-C (or SIGTERM) sets a flag that the loop checks between steps, so the saved state
        is consistent; outside the main thread signals cannot be caught and nothing changes."""

        def handler(signum: int, frame: object) -> None:
            self.interrupted = True

        with handling(handler, signal.SIGINT, signal.SIGTERM):
            yield

    # ----- evaluation and the best weights --------------------------------------------------------

    def _evaluation_due(self) -> bool:
        every = self.config.eval_every
        return bool(every and self.progress.step % every == 0)

    def evaluate_and_save(
        self, *, end_of_epoch: bool = False, evaluate: bool = True, final: bool = False
    ) -> None:
        """Selection metrics, a metrics row, the best weights and a resumable checkpoint; at an
        epoch's end also the count of epochs without a better selection loss, so one checkpoint
        holds it all."""
        progress = self.progress
        started = time.monotonic()
        improved = False
        throughput = self._count_tokens()  # before every save, so a resume counts on exactly
        if evaluate:
            stats, pairs, decisive = self._selection_figures(whole=end_of_epoch or final)
            row = {
                "step": progress.step,
                "epoch": progress.epoch + progress.batch_in_epoch / max(1, self.steps_in_epoch),
                "lr": self.lr,
                "train_loss": progress.epoch_loss_sum / max(progress.epoch_count, 1),
                "train_accuracy": progress.epoch_correct / max(progress.epoch_count, 1),
                "selection_loss": stats.loss,
                "selection_accuracy": stats.accuracy,
                "selection_pairs": pairs,
                "tokens_per_second": self.reporter.tokens_per_second,
                "elapsed": progress.elapsed,
                "eval_seconds": progress.eval_seconds,
                "source_tokens": progress.source_tokens,
                "target_tokens": progress.target_tokens,
                **throughput.columns(),
            }
            progress.history.append(row)
            self.reporter.evaluation(row)
            if decisive.loss < progress.best_loss:
                progress.best_loss = decisive.loss
                improved = True
                self.selection.save_best(self.model)
            self.selection.keep_snapshot(self.model, progress.step)
        if end_of_epoch:
            progress.epoch_loss_sum, progress.epoch_correct, progress.epoch_count = 0.0, 0, 0
            progress.bad_epochs = 0 if improved else progress.bad_epochs + 1
        progress.eval_seconds += time.monotonic() - started  # counted before the save keeps it
        self.save()

    def _count_tokens(self) -> Throughput:
        """The tokens trained on since the last call, added to the run's totals, and their rates
        (a collective: every process evaluates and saves at the same steps)."""
        progress = self.progress
        window = self.meter.window(progress.elapsed - progress.eval_seconds)
        progress.source_tokens += window.tokens.source
        progress.target_tokens += window.tokens.target
        return window

    def _selection_figures(self, *, whole: bool) -> tuple[TokenStats, int, TokenStats]:
        """The figures to record, how many pairs they cover, and the figures that decide (best
        weights, patience). With --eval-sample the sample decides every time, so that like is
        compared with like, and the rest is added only for the record: at an epoch's end and at
        the end of training."""
        selection = self.selection
        if not selection.samples:
            stats = selection.score(self.model)
            return stats, len(selection.data), stats
        sample = selection.score_sample(self.model)
        if not whole:
            return sample, len(selection.sample), sample
        return sample + selection.score_rest(self.model), len(selection.data), sample

    # ----- one step -----------------------------------------------------------------------------

    def train_step(self, step: StepBatch) -> tuple[Tensor, Tensor, bool]:
        """One optimizer update from this rank's micro-batches; the loss and hits of the whole
        step (all ranks), and whether the loss was finite (else nothing was updated)."""
        for batch in step.micro_batches:
            self.target_positions[0] += batch.target_tokens
            self.target_positions[1] += batch.tgt_out.numel()
            self.meter.count(batch)
        for group in self.optimizer.param_groups:
            group["lr"] = learning_rate(
                self.progress.step + 1,
                self.config.lr,
                self.config.warmup,
                budget_used=budget_used(self.config, self.progress.step, self.clock),
            )
        # float64 so that summing micro-batches here or over ranks gives the same number
        loss_total = torch.zeros((), device=self.device, dtype=torch.float64)
        correct_total = torch.zeros((), device=self.device, dtype=torch.long)
        last = len(step.micro_batches) - 1
        for index, batch in enumerate(step.micro_batches):
            if self.device.type == "cuda":
                batch = batch.pin_memory()  # so the copy below runs asynchronously
            batch = batch.to(self.device)
            sync = self.dist.no_sync(self.forward) if index < last else contextlib.nullcontext()
            with sync:
                with autocast(self.device, self.config.precision):
                    logits = real_position_logits(self.forward, batch)
                loss_sum, correct = masked_loss_terms(
                    logits, batch.out_labels, self.config.label_smoothing
                )
                # DDP averages gradients over ranks, so scale by world size to get a sum.
                scale = self.dist.world_size / step.target_tokens
                self.scaler.scale(loss_sum * scale).backward()
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

    # ----- state --------------------------------------------------------------------------------

    def save(self) -> None:
        if self.dist.is_main:
            save_run_state(
                self.run_dir,
                model=self.model,
                optimizer=self.optimizer,
                progress=self.progress,
                device=self.device,
                batches_per_step=self.dist.world_size * self.config.grad_accum,
                precision=self.config.precision,
            )

    def restore(self) -> list[str]:
        """The newest checkpoint's state; warnings for the user (one when the number of processes
        changed how many batches each takes a step)."""
        self.progress, saved, warnings = restore_run_state(
            self.run_dir, model=self.model, optimizer=self.optimizer, device=self.device
        )
        own_dropout_stream(seed=self.config.seed, rank=self.dist.rank, step=self.progress.step)
        warnings += self.selection.restore_snapshots(self.progress.step)
        grad_accum, notes = grad_accum_keeping_steps(
            saved,
            world_size=self.dist.world_size,
            grad_accum=self.config.grad_accum,
            run_dir=self.run_dir,
        )
        if notes:
            self.config = replace(self.config, grad_accum=grad_accum)
        return warnings + notes
