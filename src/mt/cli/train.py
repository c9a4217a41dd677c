"""`mt train`: its options, one call to mt.train.launch, the summary."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mt.cli.common import Opt, console, run_or_exit, takes, unset_options
from mt.train.run_config import given_options

OPTIONS = {  # each one None unless given: the recipe's (--preset, or --init-from's run)
    "arch": (str, "transformer or rnn."),
    "d_model": (int, "Model width d."),
    "ff": (int, "Perceptron width d_p."),
    "heads": (int, "Attention heads."),
    "layers": (int, "Layers per stack (both stacks)."),
    "encoder_layers": (int, "Encoder layers (default: --layers)."),
    "decoder_layers": (int, "Decoder layers, the ones each output token runs (default: --layers)."),
    "dropout": (float, "Dropout rate."),
    "pre_norm": (bool, Opt("--pre-norm/--post-norm", help="Layer norm before sublayers.")),
    "tie_embeddings": (bool, "Needs --shared-vocab data."),
    "cell": (str, "RNN cell: lstm or gru."),
    "attention": (str, "RNN attention: bahdanau or luong."),
    "lr": (float, "η0 in η0·min(t^-0.5, t·t_w^-1.5)."),
    "warmup": (int, "Warmup steps t_w."),
    "lr_decay": (
        str,
        "After warmup: rsqrt (t^-0.5), budget (linear to 0 at the end of --time-budget or "
        "--max-steps) or auto (budget when one is given).",
    ),
    "beta1": (float, "Adam β1."),
    "beta2": (float, "Adam β2."),
    "batch_size": (int, "Sentences per batch."),
    "batch_tokens": (int, "Tokens per batch (overrides --batch-size)."),
    "label_smoothing": (float, "Label smoothing of the training loss."),
    "max_src_len": (int, "Source labels kept, with the end label."),
    "max_tgt_len": (int, "Target labels kept, with start/end labels."),
    "accuracy_goal": (float, "Stop at this epoch training accuracy."),
    "max_epochs": (int, "Stop after this many epochs."),
    "max_steps": (int, "Stop after this many steps (0: no limit)."),
    "time_budget": (str, "Stop after this long, e.g. 90s, 30m, 2h."),
    "patience": (int, "Stop after this many epochs without a better selection loss."),
    "eval_every": (int, "Also evaluate every N steps."),
    "eval_sample": (
        int,
        "Those evaluations score N selection pairs first, all only when it decides.",
    ),
    "clip_norm": (float, "Clip the gradient norm (0: off)."),
    "grad_accum": (int, "Batches accumulated per optimizer step."),
    "precision": (
        str,
        "auto (bf16 where a short probe finds it faster with the same results on this machine, "
        "else fp32), fp32, bf16, fp16.",
    ),
    "compile": (bool, "Use torch.compile."),
    "average_last": (int, "Average the last N evaluation snapshots at the end."),
    "skip_nonfinite": (int, "Skip up to N batches with a non-finite loss."),
    "source_noise": (float, "Share of sources made casual each epoch (see --source-noise-kinds)."),
    "source_noise_kinds": (
        str,
        "What the noise does: lower, punctuation, apostrophes, typos, comma-separated.",
    ),
    "placeholders": (
        float,
        "Share of the pairs with spans both sides copy (URLs, code, numbers, names) given "
        "placeholder tokens each epoch, so the model learns to copy them. Default 0.5 when the "
        "prepared tokenizers have the tokens, else 0 (and no other value).",
    ),
    "seed": (int, "Seed for weights, batches and dropout."),
}


@takes(unset_options(OPTIONS), into="recipe")
def train(
    *,
    prepared: Annotated[
        Path | None, typer.Argument(help="Directory written by `mt prepare` (not with --resume).")
    ] = None,
    out: Annotated[Path | None, Opt("--out", "-o", help="Run directory to create.")] = None,
    resume: Annotated[
        Path | None, Opt("--resume", help="Continue this run directory where it stopped.")
    ] = None,
    init_from: Annotated[
        str | None,
        Opt(
            "--init-from",
            help="Fine-tune: start from this model's weights and settings, a run directory or a "
            "shipped model's name (prepare the data with --tokenizers-from the same).",
        ),
    ] = None,
    mix: Annotated[
        str | None,
        Opt(
            "--mix",
            help="BASE_PREPARED:FRACTION: that share of each epoch's pairs drawn from the base "
            "data (rehearsal against forgetting).",
        ),
    ] = None,
    preset: Annotated[
        str | None,
        Opt(
            help="default, quick (no dropout or smoothing: budgets of minutes), thesis-small, "
            "thesis-medium, thesis-large, rnn-small, rnn-large."
        ),
    ] = None,
    recipe: dict,
    device: Annotated[str, Opt(help="auto, cpu or cuda.")] = "auto",
    threads: Annotated[int | None, Opt(help="CPU threads for torch.")] = None,
    peak_tflops: Annotated[
        float | None,
        Opt(
            help="The device's dense peak TFLOP/s at the training precision, for MFU (a CPU, "
            "a GPU mt does not know)."
        ),
    ] = None,
    force: Annotated[bool, Opt("--force", help="Replace an existing --out directory.")] = False,
    dry_run: Annotated[
        bool, Opt("--dry-run", help="Build the model, print its parameter count, exit.")
    ] = False,
) -> None:
    """Train a Transformer (or RNN) on prepared data; writes a self-contained run directory.

    Options not given take the values of --preset (the "default" recipe unless named), or with
    --init-from those of that run, with a fine-tuning schedule.

    Example: mt train data/prepared --out runs/base --time-budget 30m
    Example: mt train data/docs --init-from runs/base --mix data/prepared:0.5 --out runs/docs
    """

    def action() -> None:
        from mt.cli.progress import RichReporter
        from mt.data.feed.rehearsal import parse_mix
        from mt.errors import MtError
        from mt.train.launch import dry_run as build_only
        from mt.train.launch import train_run

        changes = given_options(recipe)
        if dry_run and init_from:
            raise MtError(
                "--dry-run builds a new model; --init-from takes the run's model as it is"
            )
        if dry_run:
            _, parameters = build_only(prepared, preset, changes)
            print(f"parameters: {parameters:,}")
            return
        summary = train_run(
            prepared=prepared,
            out=out,
            resume=resume,
            preset=preset,
            changes=changes,
            device=device,
            threads=threads,
            force=force,
            # a step limit: the time left
            reporter=RichReporter(console, max_steps=recipe["max_steps"] or 0),
            init_from=init_from,
            mix=parse_mix(mix) if mix is not None else None,
            peak_tflops=peak_tflops,
        )
        if summary.is_main:  # only the main process of a torchrun job reports
            _print_summary(summary)

    run_or_exit(action)


def _print_summary(summary) -> None:
    for note in summary.notes:
        console.print(note, highlight=False)
    console.print(
        f"[bold]stopped:[/] {summary.stop_reason}; {summary.steps:,} steps, "
        f"{summary.epochs:.2f} epochs, {summary.elapsed:.0f} s; best selection loss "
        f"{summary.best_selection_loss:.4f}; run directory {summary.run_dir}",
        highlight=False,
    )
    if summary.throughput is not None:
        console.print(
            f"[bold]throughput:[/] {summary.throughput.describe()}", highlight=False, soft_wrap=True
        )
