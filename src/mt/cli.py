"""The `mt` command line: parse options, call one library function, print with rich.

No torch import at module level, so `mt --help` and `mt prepare` start fast.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from typer.core import TyperCommand, TyperGroup, TyperOption

from mt import __version__
from mt.config import PREPARE_DEFAULTS, DecodeConfig, given_options, recipe_values
from mt.errors import MtError

PIPELINE = ("download", "prepare", "train", "translate", "evaluate", "export", "serve")


class _PipelineOrder(TyperGroup):
    """`mt --help` lists the commands in the order they are used, wherever they are defined;
    `mt train --help` shows the default recipe's value of each option it leaves unset."""

    def list_commands(self, ctx: typer.Context) -> list[str]:
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: PIPELINE.index(n) if n in PIPELINE else len(PIPELINE))

    def get_command(self, ctx: typer.Context, cmd_name: str) -> TyperCommand | None:
        command = super().get_command(ctx, cmd_name)
        if cmd_name == "train" and isinstance(command, TyperCommand):
            values = recipe_values(None)
            for param in command.params:
                if param.name in values and isinstance(param, TyperOption):
                    param.show_default = f"recipe: {values[param.name]}"
        return command


app = typer.Typer(
    name="mt",
    cls=_PipelineOrder,
    help="English-to-Spanish neural machine translation: "
    "download, prepare, train, translate, evaluate; then export, serve.",
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
    ctx: typer.Context,
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
    clip_norm: Annotated[float | None, Opt(help="Clip the gradient norm (0: off).")] = None,
    grad_accum: Annotated[int | None, Opt(help="Batches accumulated per optimizer step.")] = None,
    precision: Annotated[
        str | None,
        Opt(help="auto (bf16 on a GPU or AMX CPU that supports it, else fp32), fp32, bf16, fp16."),
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
        Opt(help="Share of sources lowercased / without final punctuation each epoch."),
    ] = None,
    seed: Annotated[int | None, Opt(help="Seed for weights, batches and dropout.")] = None,
    device: Annotated[str, Opt(help="auto, cpu or cuda.")] = "auto",
    threads: Annotated[int | None, Opt(help="CPU threads for torch.")] = None,
    force: Annotated[bool, Opt("--force", help="Replace an existing --out directory.")] = False,
    dry_run: Annotated[
        bool, Opt("--dry-run", help="Build the model, print its parameter count, exit.")
    ] = False,
) -> None:
    """Train a Transformer (or RNN) on prepared data; writes a self-contained run directory.

    Options not given take the values of --preset (the "default" recipe unless named).

    Example: mt train data/prepared --out runs/base --time-budget 30m
    """

    def action() -> None:
        from mt.launch import dry_run as build_only
        from mt.launch import train_run
        from mt.progress import RichReporter

        changes = given_options(ctx.params)
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


# ----- translate / evaluate -----------------------------------------------------------------------


def _decode_config(
    beam_size: int,
    n_best: int,
    length_penalty: float,
    max_len_a: float,
    max_len_b: int,
    batch_size: int,
) -> DecodeConfig:
    return DecodeConfig(
        beam_size=beam_size,
        n_best=n_best,
        length_penalty=length_penalty,
        max_len_a=max_len_a,
        max_len_b=max_len_b,
        batch_size=batch_size,
    )


DECODE = DecodeConfig()
"""Where the search options take their defaults: each is spelled once, in DecodeConfig."""
BeamSize = Annotated[int, Opt("--beam-size", "-b", help="Beam width; 1 = greedy search.")]
LengthPenalty = Annotated[float, Opt(help="GNMT length penalty α (0 = none).")]
MaxLenA = Annotated[float, Opt("--max-len-a", help="Output length limit a·source_length + b.")]
MaxLenB = Annotated[int, Opt("--max-len-b", help="Output length limit a·source_length + b.")]
BatchSize = Annotated[int, Opt("--batch-size", help="Sentences decoded together.")]
Checkpoint = Annotated[str, Opt(help="best (lowest selection loss) or last.")]
Device = Annotated[str, Opt(help="auto, cpu or cuda.")]
Threads = Annotated[int | None, Opt(help="CPU threads (torch, or CTranslate2 for an export).")]
ComputeType = Annotated[
    str,
    Opt(help="For an `mt export`: default (as exported), int8, int8_float32, int16, float32."),
]


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
    beam_size: BeamSize = DECODE.beam_size,
    n_best: Annotated[
        int, Opt("--n-best", help="Print the K best as TSV: index, score, text.")
    ] = DECODE.n_best,
    length_penalty: LengthPenalty = DECODE.length_penalty,
    max_len_a: MaxLenA = DECODE.max_len_a,
    max_len_b: MaxLenB = DECODE.max_len_b,
    batch_size: BatchSize = DECODE.batch_size,
    checkpoint: Checkpoint = "best",
    device: Device = "auto",
    threads: Threads = None,
    compute_type: ComputeType = "default",
    attention: Annotated[
        Path | None,
        Opt("--attention", help="With one sentence: save a cross-attention heatmap PNG."),
    ] = None,
    no_split: Annotated[
        bool, Opt("--no-split", help="Translate each line whole: no sentence splitting.")
    ] = False,
) -> None:
    """Translate English text to Spanish line by line, in order; a line holding several
    sentences is split, translated and joined back with its spacing. From a pipe, each line is
    translated as soon as it is complete.

    Example: mt translate runs/base "Where is the station?"
    """

    def action() -> None:
        from mt.liveinput import live_batches, live_fd
        from mt.translation import open_translator, read_lines, write_translations

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
            split=not no_split,
            threads=threads,
            compute_type=compute_type,
        )
        if attention is not None:
            from mt.plots import plot_attention

            source, target, weights = translator.attention(text[0])
            plot_attention(source, target, weights, attention)
            console.print(f"attention heatmap written to {attention}")
        if text:
            translations = translator.translate(text)
        elif input_file is not None:
            from mt.textprogress import translate_file
            from mt.translation import file_lines

            show = output_file is not None and console.is_terminal
            translations = (
                translate_file(translator, input_file, console=console)
                if show
                else translator.translate(file_lines(input_file))
            )
        elif sys.stdin.isatty():
            _interactive(translator)
            return
        elif (fd := live_fd(sys.stdin)) is not None:
            translations = translator.translate_batches(live_batches(fd, "<stdin>"))
        else:
            translations = translator.translate(read_lines(sys.stdin.buffer, "<stdin>"))
        write_translations(translations, output_file, n_best=n_best > 1)

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
        Path | None,
        Opt("--tsv", help="Score this english<TAB>spanish file as given, every line a segment."),
    ] = None,
    src: Annotated[
        Path | None, Opt("--src", help="Score this source file (one sentence a line) ...")
    ] = None,
    ref: Annotated[
        list[Path] | None,
        Opt("--ref", help="... against this line-aligned reference file; repeat for more."),
    ] = None,
    skip_bad: Annotated[
        bool, Opt("--skip-bad", help="Leave out bad test lines with a warning, not an error.")
    ] = False,
    limit: Annotated[int | None, Opt(help="Score only the first N segments.")] = None,
    multi_ref: Annotated[
        bool, Opt("--multi-ref", help="Also score with all translations of each English sentence.")
    ] = False,
    beam_size: BeamSize = DECODE.beam_size,
    length_penalty: LengthPenalty = DECODE.length_penalty,
    max_len_a: MaxLenA = DECODE.max_len_a,
    max_len_b: MaxLenB = DECODE.max_len_b,
    batch_size: BatchSize = DECODE.batch_size,
    checkpoint: Checkpoint = "best",
    device: Device = "auto",
    threads: Threads = None,
    compute_type: ComputeType = "default",
    json_file: Annotated[
        Path | None, Opt("--json", help="Write all figures to this JSON file.")
    ] = None,
    hyps_file: Annotated[
        Path | None, Opt("--hyps", help="Write the translations, one a line, for sacrebleu.")
    ] = None,
) -> None:
    """Score a run: teacher-forced cross-entropy/accuracy, and BLEU, chrF, TER of its output.

    Example: mt evaluate runs/base --split test --json runs/base/test.json
    """

    def action() -> None:
        from mt.distributed import resolve_device
        from mt.engine import open_run
        from mt.evaluation import evaluate_set, evaluation_set

        if limit is not None and limit <= 0:
            raise MtError(f"--limit must be positive, got {limit}")
        config = _decode_config(beam_size, 1, length_penalty, max_len_a, max_len_b, batch_size)
        torch_device = resolve_device(device)
        loaded = open_run(
            run,
            checkpoint=checkpoint,
            device=torch_device,
            threads=threads,
            compute_type=compute_type,
        )
        test_set = evaluation_set(
            run, split, tsv=tsv, source=src, references=ref, skip_bad=skip_bad
        ).head(limit)
        if test_set.skipped:
            console.print(
                f"[yellow]warning:[/] left out {len(test_set.skipped):,} bad lines"
                f" (first: {test_set.skipped[0]})",
                highlight=False,
                soft_wrap=True,
            )
        report = evaluate_set(loaded, test_set, config, torch_device, multi_ref=multi_ref)
        _print_report(report, test_set.name)
        if json_file is not None:
            from mt.files import write_json

            write_json(json_file, report.to_dict())
        if hyps_file is not None:
            from mt.atomic import atomic_write_text

            atomic_write_text(hyps_file, "".join(h + "\n" for h in report.hypotheses))

    run_or_exit(action)


def _print_report(report, name: str) -> None:
    from rich.table import Table

    refs = f", {report.references} references" if report.references > 1 else ""
    table = Table(title=f"mt evaluate: {name}, {report.segments:,} segments{refs}")
    table.add_column("metric")
    table.add_column("value", justify="right")
    rows = [
        ("cross-entropy (teacher-forced)", f"{report.cross_entropy:.4f}"),
        (
            "accuracy (teacher-forced)",
            # None for a CTranslate2 export: its scoring gives the reference's log-probs only.
            "n/a (export)" if report.accuracy is None else f"{report.accuracy:.4f}",
        ),
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
    """Fetch the Tatoeba English-Spanish corpus and store it as a 2-column UTF-8 TSV.

    Example: mt download --out data/spa-eng.tsv
    """
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
    out: Annotated[Path, typer.Option("--out", "-o", help="Prepared directory to create.")],
    corpus: Annotated[
        list[Path] | None,
        typer.Argument(
            help="english<TAB>spanish TSV or CSV with a header; .gz/.xz/.zst read as streams."
        ),
    ] = None,
    source_file: Annotated[
        list[Path] | None,
        typer.Option(help="English side of a line-aligned pair (OPUS style); repeatable."),
    ] = None,
    target_file: Annotated[
        list[Path] | None,
        typer.Option(help="Spanish side, paired with the --source-file in the same position."),
    ] = None,
    corpus_list: Annotated[
        Path | None,
        typer.Option(help="File listing corpora, one a line: FILE or ENGLISH<TAB>SPANISH."),
    ] = None,
    split: Annotated[
        str, typer.Option(help="Train,selection,test fractions, grouped by English sentence.")
    ] = "0.6,0.2,0.2",
    max_selection: Annotated[
        int, typer.Option(help="At most this many selection pairs (the rest of the share trains).")
    ] = PREPARE_DEFAULTS.max_held_out,
    max_test: Annotated[
        int, typer.Option(help="At most this many test pairs (the rest of the share trains).")
    ] = PREPARE_DEFAULTS.max_held_out,
    seed: Annotated[int, typer.Option(help="Seed of the split and the tokenizer sample.")] = 0,
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
    tokenizer_sample: Annotated[
        int, typer.Option(help="Training pairs the tokenizers learn from (a seeded sample).")
    ] = PREPARE_DEFAULTS.tokenizer_sample,
    max_words: Annotated[
        int, typer.Option(help="Drop pairs with a side of more words than this (0: no limit).")
    ] = 0,
    max_ratio: Annotated[
        float,
        typer.Option(help="Drop pairs whose word counts differ more than this factor (0: off)."),
    ] = 0.0,
    drop_identical: Annotated[
        bool, typer.Option("--drop-identical", help="Drop pairs whose two sides are the same.")
    ] = False,
    max_length: Annotated[
        int,
        typer.Option(help="Drop pairs with a side of more word-pieces than this (0: no limit)."),
    ] = 0,
    strict: Annotated[bool, typer.Option("--strict", help="Stop at the first bad line.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing --out.")] = False,
) -> None:
    """Clean and split corpora by English sentence; train tokenizers; encode the training part.

    Example: mt prepare data/spa-eng.tsv --out data/prepared
    """
    from rich.table import Table

    from mt.corpus import Filters, parse_split
    from mt.corpusinputs import corpus_inputs
    from mt.prepare import prepare_corpus
    from mt.prepared import summary_rows
    from mt.stageprogress import RichStages

    def run():  # -> PrepareResult
        inputs = corpus_inputs(
            files=corpus or [],
            source_files=source_file or [],
            target_files=target_file or [],
            list_file=corpus_list,
        )
        filters = Filters(
            max_words=max_words,
            max_ratio=max_ratio,
            drop_identical=drop_identical,
            max_length=max_length,
        )
        stages = RichStages(console) if console.is_terminal else contextlib.nullcontext(None)
        with stages as shown:
            return prepare_corpus(
                inputs,
                out=out,
                fractions=parse_split(split),
                seed=seed,
                selection=selection,
                test=test,
                max_selection=max_selection,
                max_test=max_test,
                src_vocab=src_vocab,
                tgt_vocab=tgt_vocab,
                shared_vocab=shared_vocab,
                tokenizer_sample=tokenizer_sample,
                filters=filters,
                strict=strict,
                force=force,
                stages=shown,
            )

    result = run_or_exit(run)
    for bad in result.bad_lines[:10]:
        console.print(f"[yellow]skipped:[/] {bad}", highlight=False, soft_wrap=True)
    if result.bad_count > 10:
        console.print(f"[yellow]skipped:[/] … and {result.bad_count - 10:,} more lines")
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


# ----- serve -------------------------------------------------------------------------------------


@app.command()
def serve(
    run: Annotated[Path, typer.Argument(help="Run directory (or exported model) to serve.")],
    host: Annotated[str, Opt(help="Address to listen on (loopback unless you give a key).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, Opt(help="Port to listen on.")] = 8000,
    beam_size: BeamSize = DECODE.beam_size,
    length_penalty: LengthPenalty = DECODE.length_penalty,
    max_len_a: MaxLenA = DECODE.max_len_a,
    max_len_b: MaxLenB = DECODE.max_len_b,
    batch_size: BatchSize = DECODE.batch_size,
    checkpoint: Checkpoint = "best",
    device: Device = "auto",
    threads: Annotated[
        int | None, Opt(help="CPU threads for torch (default: all cores but one).")
    ] = None,
    max_chars: Annotated[int, Opt(help="Characters per request (413 above).")] = 5000,
    max_items: Annotated[int, Opt(help="Texts per q array (413 above).")] = 100,
    max_body_bytes: Annotated[int, Opt(help="Request body bytes (413 above).")] = 262_144,
    timeout: Annotated[float, Opt(help="Seconds one request may take (503 after).")] = 30.0,
    rate_limit: Annotated[
        int, Opt(help="Requests per minute per key or client address (429 above; 0: off).")
    ] = 600,
    batch_wait_ms: Annotated[
        float, Opt(help="Milliseconds the decoder waits for requests still being read.")
    ] = 5.0,
    api_key: Annotated[
        str | None, Opt(envvar="MT_API_KEY", help="Key clients must send as api_key.")
    ] = None,
    cors_origin: Annotated[
        list[str] | None, Opt("--cors-origin", help="Origin allowed to call from a browser.")
    ] = None,
    log_text: Annotated[bool, Opt("--log-text", help="Also log the texts translated.")] = False,
    max_alternatives: Annotated[
        int | None,
        Opt(help="Alternatives a request may get (default beam size - 1; 0 is faster on exports)."),
    ] = None,
) -> None:
    """Serve a model over HTTP: a LibreTranslate-compatible API and a web page at /.

    Example: mt serve runs/base --port 8000
    """

    def action() -> None:
        from mt.serving.limits import Limits
        from mt.serving.server import serve as run_server

        if max_alternatives is not None and max_alternatives < 0:
            raise MtError(f"--max-alternatives must be >= 0, got {max_alternatives}")
        n_best = beam_size if max_alternatives is None else min(beam_size, max_alternatives + 1)
        config = _decode_config(beam_size, n_best, length_penalty, max_len_a, max_len_b, batch_size)
        limits = Limits(
            max_chars=max_chars,
            max_items=max_items,
            max_body_bytes=max_body_bytes,
            timeout=timeout,
            per_minute=rate_limit,
        )
        if batch_wait_ms < 0:
            raise MtError(f"--batch-wait-ms must be >= 0, got {batch_wait_ms}")
        run_server(
            run,
            host=host,
            port=port,
            decode=config,
            limits=limits,
            device=device,
            checkpoint=checkpoint,
            threads=threads,
            api_key=api_key,
            cors_origins=cors_origin or (),
            batch_wait=batch_wait_ms / 1000,
            log_text=log_text,
            say=lambda message: console.print(message, highlight=False, soft_wrap=True),
            warn=lambda message: console.print(
                f"[yellow]warning:[/] {message}", highlight=False, soft_wrap=True
            ),
        )

    run_or_exit(action)


# ----- export ------------------------------------------------------------------------------------


@app.command()
def export(
    run: Annotated[Path, typer.Argument(help="Run directory written by `mt train` (Transformer).")],
    out: Annotated[Path, Opt("--out", "-o", help="Export directory to create.")],
    quantization: Annotated[
        str, Opt(help="Weights: int8, int8_float32, int16, float16 or float32.")
    ] = "int8",
    checkpoint: Checkpoint = "best",
    force: Annotated[bool, Opt("--force", help="Replace an existing export in --out.")] = False,
) -> None:
    """Convert a run to CTranslate2 for fast inference; translate, evaluate and serve read it.

    Example: mt export runs/base --out runs/base-ct2
    """

    def action() -> None:
        from mt.export import export_run

        result = export_run(run, out, quantization=quantization, checkpoint=checkpoint, force=force)
        console.print(
            f"exported {run} to {result.out}: {result.quantization} weights, "
            f"{result.model_bytes / 1e6:.2f} MB ({result.model_bytes / result.weights_bytes:.0%} "
            f"of the {result.weights_bytes / 1e6:.2f} MB safetensors) in {result.seconds:.1f} s",
            highlight=False,
            soft_wrap=True,
        )

    run_or_exit(action)
