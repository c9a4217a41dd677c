"""The `mt` command line: parse options, call one library function, print with rich.

No torch import at module level, so `mt --help` and `mt prepare` start fast.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console

from mt import __version__
from mt.errors import MtError

app = typer.Typer(
    name="mt",
    help="English-to-Spanish neural machine translation: "
    "download, prepare, train, translate, evaluate.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(stderr=True)
_state = {"debug": False}

T = TypeVar("T")


def run_or_exit(action: Callable[[], T]) -> T:
    """Run a library call; a user-facing problem becomes one red line and an exit code."""
    try:
        return action()
    except MtError as error:
        if _state["debug"]:
            raise
        console.print(f"[bold red]error:[/] {error}", highlight=False, soft_wrap=True)
        raise typer.Exit(error.exit_code) from None
    except KeyboardInterrupt:
        console.print("[yellow]interrupted[/]")
        raise typer.Exit(130) from None
    except OSError as error:  # a full disk or a refused permission, wherever it strikes
        if _state["debug"]:
            raise
        where = f"{error.filename}: " if error.filename else ""
        console.print(
            f"[bold red]error:[/] {where}{error.strerror or error}", highlight=False, soft_wrap=True
        )
        raise typer.Exit(1) from None


def _version(value: bool) -> None:
    if value:
        print(f"mt {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version.")
    ] = False,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks for errors.")] = False,
) -> None:
    """English-to-Spanish neural machine translation."""
    _state["debug"] = debug


# ----- train -----------------------------------------------------------------------------------

Opt = typer.Option


@app.command()
def train(
    prepared: Annotated[
        Path | None, typer.Argument(help="Directory written by `mt prepare` (not with --resume).")
    ] = None,
    out: Annotated[Path | None, Opt("--out", "-o", help="Run directory to create.")] = None,
    resume: Annotated[
        Path | None, Opt("--resume", help="Continue this run directory where it stopped.")
    ] = None,
    preset: Annotated[
        str | None,
        Opt(help="default, thesis-small, thesis-medium, thesis-large, rnn-small, rnn-large."),
    ] = None,
    arch: Annotated[str | None, Opt(help="transformer or rnn.")] = None,
    d_model: Annotated[int | None, Opt("--d-model", help="Model width d.")] = None,
    ff: Annotated[int | None, Opt("--ff", help="Perceptron width d_p.")] = None,
    heads: Annotated[int | None, Opt(help="Attention heads.")] = None,
    layers: Annotated[int | None, Opt(help="Layers per stack.")] = None,
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
    clip_norm: Annotated[float | None, Opt(help="Clip the gradient norm (0: off).")] = None,
    grad_accum: Annotated[int | None, Opt(help="Batches accumulated per optimizer step.")] = None,
    precision: Annotated[str | None, Opt(help="fp32, bf16 or fp16 (autocast).")] = None,
    compile_model: Annotated[
        bool | None, Opt("--compile/--no-compile", help="Use torch.compile.")
    ] = None,
    average_last: Annotated[
        int | None, Opt(help="Average the last N evaluation snapshots at the end.")
    ] = None,
    skip_nonfinite: Annotated[
        int | None, Opt(help="Skip up to N batches with a non-finite loss.")
    ] = None,
    seed: Annotated[int | None, Opt(help="Seed for weights, batches and dropout.")] = None,
    device: Annotated[str, Opt(help="auto, cpu or cuda.")] = "auto",
    threads: Annotated[int | None, Opt(help="CPU threads for torch.")] = None,
    force: Annotated[bool, Opt("--force", help="Replace an existing --out directory.")] = False,
    dry_run: Annotated[
        bool, Opt("--dry-run", help="Build the model, print its parameter count, exit.")
    ] = False,
) -> None:
    """Train a Transformer (or RNN) on prepared data; writes a self-contained run directory."""
    from mt.config import parse_duration
    from mt.launch import SizeFlags, resume_training, start_training
    from mt.launch import dry_run as build_only
    from mt.progress import RichReporter

    flags = SizeFlags(
        d_model=d_model,
        ff=ff,
        heads=heads,
        layers=layers,
        dropout=dropout,
        pre_norm=pre_norm,
        tie_embeddings=tie_embeddings,
        arch=arch,
        cell=cell,
        attention=attention,
    )
    given = {
        "lr": lr,
        "warmup": warmup,
        "beta1": beta1,
        "beta2": beta2,
        "batch_size": batch_size,
        "batch_tokens": batch_tokens,
        "label_smoothing": label_smoothing,
        "max_src_len": max_src_len,
        "max_tgt_len": max_tgt_len,
        "accuracy_goal": accuracy_goal,
        "max_epochs": max_epochs,
        "max_steps": max_steps,
        "patience": patience,
        "eval_every": eval_every,
        "clip_norm": clip_norm,
        "grad_accum": grad_accum,
        "precision": precision,
        "compile": compile_model,
        "average_last": average_last,
        "skip_nonfinite": skip_nonfinite,
        "seed": seed,
    }
    overrides = {key: value for key, value in given.items() if value is not None}

    def action() -> None:
        if time_budget is not None:
            overrides["time_budget"] = parse_duration(time_budget)
        if batch_size is not None and batch_tokens is None:
            overrides["batch_tokens"] = 0  # sentence batches asked for explicitly
        if dry_run:
            if prepared is None:
                raise MtError("--dry-run needs the prepared directory")
            _, parameters = build_only(prepared, preset, flags)
            print(f"parameters: {parameters:,}")
            return
        reporter = RichReporter(console)
        if resume is not None:
            if flags != SizeFlags() or preset or prepared:
                raise MtError(
                    "--resume continues a run as configured; give no model size, preset or "
                    "prepared directory"
                )
            summary = resume_training(
                run_dir=resume,
                overrides=overrides,
                device_name=device,
                threads=threads,
                reporter=reporter,
            )
        else:
            if prepared is None or out is None:
                raise MtError("give the prepared directory and --out RUN (or --resume RUN)")
            summary = start_training(
                prepared_dir=prepared,
                run_dir=out,
                preset=preset,
                flags=flags,
                overrides=overrides,
                device_name=device,
                threads=threads,
                force=force,
                reporter=reporter,
            )
        if not summary.is_main:
            return
        for note in summary.notes:
            console.print(note, highlight=False)
        console.print(
            f"[bold]stopped:[/] {summary.stop_reason}; {summary.steps:,} steps, "
            f"{summary.epochs:.2f} epochs, {summary.elapsed:.0f} s; best selection loss "
            f"{summary.best_selection_loss:.4f}; run directory {summary.run_dir}",
            highlight=False,
        )

    run_or_exit(action)


# ----- translate / evaluate -----------------------------------------------------------------------


def _decode_config(
    beam_size: int,
    n_best: int,
    length_penalty: float,
    max_len_a: float,
    max_len_b: int,
    batch_size: int,
):
    from mt.config import DecodeConfig

    return DecodeConfig(
        beam_size=beam_size,
        n_best=n_best,
        length_penalty=length_penalty,
        max_len_a=max_len_a,
        max_len_b=max_len_b,
        batch_size=batch_size,
    )


BeamSize = Annotated[int, Opt("--beam-size", "-b", help="Beam width; 1 = greedy search.")]
LengthPenalty = Annotated[float, Opt(help="GNMT length penalty α (0 = none).")]
MaxLenA = Annotated[float, Opt("--max-len-a", help="Output length limit a·source_length + b.")]
MaxLenB = Annotated[int, Opt("--max-len-b", help="Output length limit a·source_length + b.")]
BatchSize = Annotated[int, Opt("--batch-size", help="Sentences decoded together.")]
Checkpoint = Annotated[str, Opt(help="best (lowest selection loss) or last.")]
Device = Annotated[str, Opt(help="auto, cpu or cuda.")]


@app.command()
def translate(
    run: Annotated[Path, typer.Argument(help="Run directory written by `mt train`.")],
    text: Annotated[
        list[str] | None, typer.Argument(help="Sentences; else standard input.")
    ] = None,
    input_file: Annotated[
        Path | None, Opt("--input", "-i", help="Read sentences from a file.")
    ] = None,
    output_file: Annotated[
        Path | None, Opt("--output", "-o", help="Write translations to a file.")
    ] = None,
    beam_size: BeamSize = 5,
    n_best: Annotated[
        int, Opt("--n-best", help="Print the K best as TSV: index, score, text.")
    ] = 1,
    length_penalty: LengthPenalty = 0.0,
    max_len_a: MaxLenA = 1.5,
    max_len_b: MaxLenB = 10,
    batch_size: BatchSize = 64,
    checkpoint: Checkpoint = "best",
    device: Device = "auto",
    attention: Annotated[
        Path | None,
        Opt("--attention", help="With one sentence: save a cross-attention heatmap PNG."),
    ] = None,
) -> None:
    """Translate English sentences to Spanish, one per line, in order."""

    def action() -> None:
        from mt.translation import file_lines, open_translator, read_lines, write_translations

        config = _decode_config(beam_size, n_best, length_penalty, max_len_a, max_len_b, batch_size)
        if text and input_file:
            raise MtError("give sentences as arguments or --input FILE, not both")
        if attention is not None and len(text or []) != 1:
            raise MtError("--attention needs exactly one sentence given as an argument")
        translator = open_translator(
            run,
            config,
            device=device,
            checkpoint=checkpoint,
            warn=lambda m: console.print(
                f"[yellow]warning:[/] {m}", highlight=False, soft_wrap=True
            ),
        )
        if attention is not None:
            from mt.plots import plot_attention

            source, target, weights = translator.attention(text[0])
            plot_attention(source, target, weights, attention)
            console.print(f"attention heatmap written to {attention}")
        if text:
            lines = iter(text)
        elif input_file is not None:
            lines = file_lines(input_file)
        elif sys.stdin.isatty():
            _interactive(translator)
            return
        else:
            lines = read_lines(sys.stdin.buffer, "<stdin>")
        write_translations(translator.translate(lines), output_file, n_best=n_best > 1)

    run_or_exit(action)


def _interactive(translator) -> None:
    console.print("Type an English sentence and press Enter; Ctrl-D to leave.")
    while True:
        try:
            line = input("en> ")
        except EOFError:
            console.print()
            return
        for translation in translator.translate([line]):
            print(f"es> {translation.text}")


@app.command()
def evaluate(
    run: Annotated[Path, typer.Argument(help="Run directory written by `mt train`.")],
    split: Annotated[str, Opt(help="Part of the run's prepared data: test or selection.")] = "test",
    tsv: Annotated[
        Path | None, Opt("--tsv", help="Evaluate on this english<TAB>spanish file.")
    ] = None,
    limit: Annotated[int | None, Opt(help="Score only the first N pairs.")] = None,
    multi_ref: Annotated[
        bool, Opt("--multi-ref", help="Also score with all translations of each English sentence.")
    ] = False,
    beam_size: BeamSize = 5,
    length_penalty: LengthPenalty = 0.0,
    max_len_a: MaxLenA = 1.5,
    max_len_b: MaxLenB = 10,
    batch_size: BatchSize = 64,
    checkpoint: Checkpoint = "best",
    device: Device = "auto",
    json_file: Annotated[
        Path | None, Opt("--json", help="Write all figures to this JSON file.")
    ] = None,
    hyps_file: Annotated[
        Path | None, Opt("--hyps", help="Write the translations to this file.")
    ] = None,
) -> None:
    """Score a run: teacher-forced cross-entropy/accuracy, and BLEU, chrF, TER of its output."""

    def action() -> None:
        from mt.distributed import resolve_device
        from mt.evaluation import evaluate_run, evaluation_pairs
        from mt.rundir import load_run

        if limit is not None and limit <= 0:
            raise MtError(f"--limit must be positive, got {limit}")
        config = _decode_config(beam_size, 1, length_penalty, max_len_a, max_len_b, batch_size)
        torch_device = resolve_device(device)
        loaded = load_run(run, checkpoint, torch_device)
        pairs = evaluation_pairs(run, split, tsv)[: limit or None]
        report = evaluate_run(loaded, pairs, config, torch_device, multi_ref=multi_ref)
        _print_report(report, split if tsv is None else str(tsv))
        if json_file is not None:
            from mt.checkpoint import write_json

            write_json(json_file, report.to_dict())
        if hyps_file is not None:
            from mt.atomic import atomic_write_text

            atomic_write_text(hyps_file, "".join(h + "\n" for h in report.hypotheses))

    run_or_exit(action)


def _print_report(report, name: str) -> None:
    from rich.table import Table

    table = Table(title=f"mt evaluate: {name}, {report.pairs:,} pairs")
    table.add_column("metric")
    table.add_column("value", justify="right")
    rows = [
        ("cross-entropy (teacher-forced)", f"{report.cross_entropy:.4f}"),
        ("accuracy (teacher-forced)", f"{report.accuracy:.4f}"),
        ("BLEU", f"{report.bleu:.2f}"),
        ("chrF", f"{report.chrf:.2f}"),
        ("TER", f"{report.ter:.2f}"),
    ]
    if report.multi_ref:
        rows += [
            (
                f"BLEU, all references ({report.multi_ref['sentences']:,.0f} sentences)",
                f"{report.multi_ref['bleu']:.2f}",
            ),
            ("chrF, all references", f"{report.multi_ref['chrf']:.2f}"),
            ("TER, all references", f"{report.multi_ref['ter']:.2f}"),
        ]
    rows += [
        (
            "search",
            f"beam {report.decode['beam_size']}, length penalty {report.decode['length_penalty']}",
        ),
        ("sentences/s", f"{report.sentences_per_second:,.1f}"),
        ("target tokens/s", f"{report.tokens_per_second:,.0f}"),
    ]
    for metric, value in rows:
        table.add_row(metric, value)
    Console().print(table)
    console.print(f"sacrebleu: {report.signatures['bleu']}", highlight=False)


# ----- download / prepare ------------------------------------------------------------------------


@app.command()
def download(
    out: Annotated[
        Path, typer.Option(help="Where to write the english<TAB>spanish corpus.")
    ] = Path("data/spa-eng.tsv"),
    source: Annotated[
        str,
        typer.Option(
            help="URL or local path of a zip (e.g. with spa.txt), gzip, or 2/3-column TSV.",
        ),
    ] = "https://storage.googleapis.com/download.tensorflow.org/data/spa-eng.zip",
) -> None:
    """Fetch the Tatoeba English-Spanish corpus and store it as a 2-column UTF-8 TSV."""
    from mt.download import download_corpus

    result = run_or_exit(lambda: download_corpus(out=out, source=source))
    from_member = f" ({result.member})" if result.member else ""
    console.print(
        f"wrote {result.out}: {result.lines:,} lines, {result.pairs:,} pairs "
        f"from {result.source}{from_member}",
        highlight=False,
        soft_wrap=True,
    )


@app.command()
def prepare(
    corpus: Annotated[Path, typer.Argument(help="english<TAB>spanish TSV, or CSV with a header.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Prepared directory to create.")],
    split: Annotated[
        str, typer.Option(help="Train,selection,test fractions, grouped by English sentence.")
    ] = "0.6,0.2,0.2",
    seed: Annotated[int, typer.Option(help="Seed of the split.")] = 0,
    selection: Annotated[
        Path | None, typer.Option(help="Use this file as the selection part (with --test).")
    ] = None,
    test: Annotated[
        Path | None, typer.Option(help="Use this file as the test part (with --selection).")
    ] = None,
    src_vocab: Annotated[int, typer.Option(help="English vocabulary size.")] = 4562,
    tgt_vocab: Annotated[int, typer.Option(help="Spanish vocabulary size.")] = 6134,
    shared_vocab: Annotated[
        int, typer.Option(help="One joint vocabulary of this size for both sides (0: off).")
    ] = 0,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first bad line.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
) -> None:
    """Clean and split a corpus by English sentence; train tokenizers on the train part."""
    from rich.table import Table

    from mt.corpus import parse_split
    from mt.prepare import prepare_corpus, summary_rows

    result = run_or_exit(
        lambda: prepare_corpus(
            corpus,
            out=out,
            fractions=parse_split(split),
            seed=seed,
            selection=selection,
            test=test,
            src_vocab=src_vocab,
            tgt_vocab=tgt_vocab,
            shared_vocab=shared_vocab,
            strict=strict,
            force=force,
        )
    )
    for bad in result.bad_lines[:10]:
        console.print(f"[yellow]skipped:[/] {bad}", highlight=False, soft_wrap=True)
    if len(result.bad_lines) > 10:
        console.print(f"[yellow]skipped:[/] … and {len(result.bad_lines) - 10:,} more lines")
    table = Table(
        title=f"mt prepare: {result.out}",
        caption="labels: word-pieces per sentence, mean/p95/p99/max",
    )
    table.add_column("what")
    table.add_column("value")
    for what, value in summary_rows(result.info):
        table.add_row(what, value)
    console.print(table)
    vocab = result.info["vocabulary"]
    for side in ("source", "target"):
        if vocab[side] < vocab[f"requested_{side}"]:
            console.print(
                f"[yellow]note:[/] the {side} vocabulary has {vocab[side]:,} labels, fewer than "
                f"the {vocab[f'requested_{side}']:,} asked for: the training text is too small",
                highlight=False,
                soft_wrap=True,
            )
    elapsed = result.info["elapsed_seconds"]
    console.print(f"prepared {result.out} in {elapsed:.1f} s", highlight=False, soft_wrap=True)
