"""`mt train`: its options, one call to mt.train.launch, the summary."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from mt.cli.common import Opt, console, run_or_exit
from mt.config import given_options


def train(
    ctx: typer.Context,
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
    arch: Annotated[str | None, Opt(help="transformer or rnn.")] = None,
    d_model: Annotated[int | None, Opt("--d-model", help="Model width d.")] = None,
    ff: Annotated[int | None, Opt("--ff", help="Perceptron width d_p.")] = None,
    heads: Annotated[int | None, Opt(help="Attention heads.")] = None,
    layers: Annotated[int | None, Opt(help="Layers per stack (both stacks).")] = None,
    encoder_layers: Annotated[
        int | None, Opt("--encoder-layers", help="Encoder layers (default: --layers).")
    ] = None,
    decoder_layers: Annotated[
        int | None,
        Opt(
            "--decoder-layers",
            help="Decoder layers, the ones each output token runs (default: --layers).",
        ),
    ] = None,
    dropout: Annotated[float | None, Opt(help="Dropout rate.")] = None,
    pre_norm: Annotated[
        bool | None, Opt("--pre-norm/--post-norm", help="Layer norm before sublayers.")
    ] = None,
    tie_embeddings: Annotated[
        bool | None, Opt("--tie-embeddings/--no-tie-embeddings", help="Needs --shared-vocab data.")
    ] = None,
    cell: Annotated[str | None, Opt(help="RNN cell: lstm or gru.")] = None,
    attention: Annotated[str | None, Opt(help="RNN attention: bahdanau or luong.")] = None,
    lr: Annotated[float | None, Opt(help="η0 in η0·min(t^-0.5, t·t_w^-1.5).")] = None,
    warmup: Annotated[int | None, Opt(help="Warmup steps t_w.")] = None,
    lr_decay: Annotated[
        str | None,
        Opt(
            help="After warmup: rsqrt (t^-0.5), budget (linear to 0 at the end of --time-budget "
            "or --max-steps) or auto (budget when one is given)."
        ),
    ] = None,
    beta1: Annotated[float | None, Opt(help="Adam β1.")] = None,
    beta2: Annotated[float | None, Opt(help="Adam β2.")] = None,
    batch_size: Annotated[int | None, Opt(help="Sentences per batch.")] = None,
    batch_tokens: Annotated[
        int | None, Opt(help="Tokens per batch (overrides --batch-size).")
    ] = None,
    label_smoothing: Annotated[
        float | None, Opt(help="Label smoothing of the training loss.")
    ] = None,
    max_src_len: Annotated[int | None, Opt(help="Source labels kept, with the end label.")] = None,
    max_tgt_len: Annotated[
        int | None, Opt(help="Target labels kept, with start/end labels.")
    ] = None,
    accuracy_goal: Annotated[
        float | None, Opt(help="Stop at this epoch training accuracy.")
    ] = None,
    max_epochs: Annotated[int | None, Opt(help="Stop after this many epochs.")] = None,
    max_steps: Annotated[int | None, Opt(help="Stop after this many steps (0: no limit).")] = None,
    time_budget: Annotated[str | None, Opt(help="Stop after this long, e.g. 90s, 30m, 2h.")] = None,
    patience: Annotated[
        int | None, Opt(help="Stop after this many epochs without a better selection loss.")
    ] = None,
    eval_every: Annotated[int | None, Opt(help="Also evaluate every N steps.")] = None,
    eval_sample: Annotated[
        int | None,
        Opt(help="Those evaluations score N selection pairs first, all only when it decides."),
    ] = None,
    clip_norm: Annotated[float | None, Opt(help="Clip the gradient norm (0: off).")] = None,
    grad_accum: Annotated[int | None, Opt(help="Batches accumulated per optimizer step.")] = None,
    precision: Annotated[
        str | None,
        Opt(
            help="auto (bf16 where a short probe finds it faster with the same results on this "
            "machine, else fp32), fp32, bf16, fp16."
        ),
    ] = None,
    compile: Annotated[  # named like the config field, so ctx.params carries it
        bool | None, Opt("--compile/--no-compile", help="Use torch.compile.")
    ] = None,
    average_last: Annotated[
        int | None, Opt(help="Average the last N evaluation snapshots at the end.")
    ] = None,
    skip_nonfinite: Annotated[
        int | None, Opt(help="Skip up to N batches with a non-finite loss.")
    ] = None,
    source_noise: Annotated[
        float | None,
        Opt(help="Share of sources made casual each epoch (see --source-noise-kinds)."),
    ] = None,
    source_noise_kinds: Annotated[
        str | None,
        Opt(help="What the noise does: lower, punctuation, apostrophes, typos, comma-separated."),
    ] = None,
    placeholders: Annotated[
        float | None,
        Opt(
            help="Share of the pairs with spans both sides copy (URLs, code, numbers, names) "
            "given placeholder tokens each epoch, so the model learns to copy them. Default 0.5 "
            "when the prepared tokenizers have the tokens, else 0 (and no other value)."
        ),
    ] = None,
    seed: Annotated[int | None, Opt(help="Seed for weights, batches and dropout.")] = None,
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

        changes = given_options(ctx.params)
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
            reporter=RichReporter(console, max_steps=max_steps or 0),  # step limit: time left
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
