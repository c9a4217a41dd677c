"""`mt translate` and `mt evaluate`: decoding options, input and output, the report."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from mt.cli.common import Opt, console, run_or_exit, say
from mt.cli.decode_options import DecodeFlags, ModelArgument, ModelOption, takes_decode_flags
from mt.config import DECODE
from mt.errors import MtError


@takes_decode_flags()
def translate(
    text: Annotated[
        list[str] | None, typer.Argument(help="Sentences; else standard input.")
    ] = None,
    model: ModelOption = None,
    input_file: Annotated[
        Path | None, Opt("--input", "-i", help="Read sentences from a file.")
    ] = None,
    output_file: Annotated[
        Path | None, Opt("--output", "-o", help="Write translations to a file.")
    ] = None,
    n_best: Annotated[
        int, Opt("--n-best", help="Print the K best as TSV: index, score, text.")
    ] = DECODE.n_best,
    attention: Annotated[
        Path | None,
        Opt("--attention", help="With one sentence: save a cross-attention heatmap PNG."),
    ] = None,
    no_split: Annotated[
        bool, Opt("--no-split", help="Translate each line whole: no sentence splitting.")
    ] = False,
    format_name: Annotated[
        str | None,
        Opt(
            "--format",
            help="text, html, markdown, po, srt or vtt; default: from --input's extension, "
            "else text. A document is written back as the same kind of file.",
        ),
    ] = None,
    overwrite: Annotated[
        bool, Opt("--overwrite", help="With --format po: retranslate translated entries too.")
    ] = False,
    scores: Annotated[
        bool,
        Opt("--scores", help="Print translation<TAB>confidence<TAB>flags (docs/trust.md)."),
    ] = False,
    json_lines: Annotated[
        bool,
        Opt("--json", help="Print one JSON object a line: translation, confidence, flags, ..."),
    ] = False,
    decoding: DecodeFlags = DecodeFlags(),
) -> None:
    """Translate English text to Spanish, with the shipped model unless --model names another.

    Line by line, in order; a line holding several sentences is split, translated and joined
    back with its spacing. From a pipe, each line is translated as soon as it is complete. HTML,
    Markdown, .po, .srt and .vtt files are translated with their markup, code and timings intact
    (docs/documents.md).

    Example: mt translate "Where is the station?"
    Example: mt translate -i page.html -o page.es.html
    Example: mt translate --model runs/base "Where is the station?"
    """

    def action() -> None:
        from mt.catalog.modelinfo import resolve
        from mt.cli.textio import write_translations

        search = decoding.search(n_best)
        if text and input_file:
            raise MtError("give sentences as arguments or --input FILE, not both")
        if attention is not None and len(text or []) != 1:
            raise MtError("--attention needs exactly one sentence given as an argument")
        document = _document(format_name, input_file, text, n_best, attention, overwrite)
        style = _output_style(scores, json_lines, n_best, document)
        options = decoding.options(
            search, split=not no_split, check_language=style in ("scores", "json")
        )  # only they show flags
        if model is None:
            _warn_model_as_text(text)
        translator = decoding.open(resolve(model), options)
        if document is not None:
            _write_document(document, translator, output_file)
            return
        if attention is not None:
            _plot_attention(translator, text[0], attention)
        translations = _translations(translator, text, input_file, output_file)
        if translations is None:  # a terminal: translated interactively
            return
        _warn_uncalibrated(translator, style)
        write_translations(translations, output_file, style=style)

    run_or_exit(action)


def _plot_attention(translator, sentence: str, path: Path) -> None:
    from mt.train.plots import plot_attention

    source, target, weights = translator.attention(sentence)
    plot_attention(source, target, weights, path)
    console.print(f"attention heatmap written to {path}")


def _translations(translator, text, input_file: Path | None, output_file: Path | None):
    """The translations of the arguments, the input file or standard input (a live pipe as it
    comes); None after an interactive session on a terminal."""
    from mt.cli.textio import file_lines, live_batches, live_fd, read_lines

    if text:
        return translator.translate(text)
    if input_file is not None:
        from mt.cli.progress import translate_file

        if output_file is not None and console.is_terminal:
            return translate_file(translator, input_file, console=console)
        return translator.translate(file_lines(input_file))
    if sys.stdin.isatty():
        _interactive(translator)
        return None
    if (fd := live_fd(sys.stdin)) is not None:
        return translator.translate_batches(live_batches(fd, "<stdin>"))
    return translator.translate(read_lines(sys.stdin.buffer, "<stdin>"))


def _warn_uncalibrated(translator, style: str) -> None:
    if style in ("scores", "json") and not translator.calibration.calibrated:
        label = translator.run.info.label
        say(
            f"[yellow]warning:[/] {label} has no calibration.json: confidence is the "
            f"uncalibrated mean token probability; run `mt calibrate {label}`"
        )


def _warn_model_as_text(text: list[str] | None) -> None:
    """`mt translate RUN "…"` was the form before models shipped: its RUN is now a sentence
    like any other, so say how to pick that model instead."""
    first = text[0] if text else ""
    if first and len(first) < 256 and Path(first).is_dir():
        say(
            f"[yellow]note:[/] translating {first!r} as text with the shipped model; "
            f"to translate with that model give --model {first}"
        )


def _output_style(scores: bool, json_lines: bool, n_best: int, document) -> str:
    """text, nbest, scores or json (mt.cli.textio.write_translations)."""
    if scores and json_lines:
        raise MtError("give --scores or --json, not both")
    if (scores or json_lines) and document is not None:
        raise MtError("--scores and --json are for text; a document is written back as itself")
    if json_lines:
        return "json"
    if scores and n_best > 1:
        raise MtError("--scores prints the best translation's confidence; with --n-best use --json")
    return "scores" if scores else "nbest" if n_best > 1 else "text"


def _document(format_name, input_file, text, n_best, attention, overwrite):
    """None for text; for a document format, (byte-order mark, parsed document) from --input or
    standard input, checked before the model loads: bad input is one line naming file and line,
    and nothing is written."""
    if format_name is None and input_file is None:
        return None  # sentences as arguments or on standard input: text, no parsers imported
    from mt.decode.documents.formats import Format, format_named, read_document

    form = format_named(format_name, input_file)
    if form is Format.text:
        return None
    if text or n_best > 1 or attention is not None:
        raise MtError(
            f"--format {form}: give the document with --input FILE or on standard input "
            "(no sentence arguments, --n-best or --attention)"
        )
    if input_file is None:
        return read_document(sys.stdin.buffer.read(), form, name="<stdin>", overwrite=overwrite)
    if not input_file.is_file():
        raise MtError(f"--input {input_file}: no such file")
    return read_document(input_file.read_bytes(), form, name=str(input_file), overwrite=overwrite)


def _write_document(document, translator, output_file: Path | None) -> None:
    """The translated document written a piece at a time as it is translated (standard output,
    or a temporary file moved into place at the end: nothing is written on a failure)."""
    from mt.decode.documents.document import translate_stream
    from mt.storage.atomic import atomic_write_chunks

    bom, parsed = document
    if output_file is None:
        sys.stdout.write(bom)
        for bit in translate_stream(parsed, translator):
            sys.stdout.write(bit)
        sys.stdout.flush()
        return
    if output_file.is_dir():
        raise MtError(f"--output {output_file} is a directory; give a file name")
    chunks = (bit.encode("utf-8") for bit in translate_stream(parsed, translator))
    atomic_write_chunks(output_file, itertools.chain([bom.encode("utf-8")], chunks))


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


@takes_decode_flags()
def evaluate(
    model: ModelArgument = None,
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
    json_file: Annotated[
        Path | None, Opt("--json", help="Write all figures to this JSON file.")
    ] = None,
    hyps_file: Annotated[
        Path | None, Opt("--hyps", help="Write the translations, one a line, for sacrebleu.")
    ] = None,
    decoding: DecodeFlags = DecodeFlags(),
) -> None:
    """Score a model: teacher-forced cross-entropy/accuracy, and BLEU, chrF, TER of its output.

    The output is what `mt translate` gives with the same options: the same engine searches (the
    shipped model's int8 CTranslate2 copy on a CPU); the teacher-forced figures come from the
    PyTorch weights wherever the model has them.

    Example: mt evaluate --tsv news.tsv
    Example: mt evaluate runs/base --split test --json runs/base/test.json
    """

    def action() -> None:
        from mt.catalog.modelinfo import resolve
        from mt.evaluate.engines import teacher_forcing
        from mt.evaluate.evaluation import evaluate_set, evaluation_set

        if limit is not None and limit <= 0:
            raise MtError(f"--limit must be positive, got {limit}")
        # no flags are shown, so no language check: as `mt translate`'s plain text
        options = decoding.options(decoding.search(), check_language=False)
        info = resolve(model)
        test_set = evaluation_set(
            info, split, tsv=tsv, source=src, references=ref, skip_bad=skip_bad
        ).head(limit)  # read before the model loads: a bad line stops here
        translator = decoding.open(info, options)
        if test_set.skipped:
            say(
                f"[yellow]warning:[/] left out {len(test_set.skipped):,} bad lines"
                f" (first: {test_set.skipped[0]})"
            )
        teacher = teacher_forcing(
            translator, checkpoint=decoding.checkpoint, threads=decoding.threads
        )
        report = evaluate_set(translator, test_set, teacher=teacher, multi_ref=multi_ref)
        _print_report(report, test_set.name)
        if options.glossary is not None:
            _print_terms(report.counts.terms, options.glossary.name)
        if json_file is not None:
            from mt.storage.files import write_json

            write_json(json_file, report.to_dict())
        if hyps_file is not None:
            from mt.storage.atomic import atomic_write_text

            atomic_write_text(hyps_file, "".join(h + "\n" for h in report.hypotheses))

    run_or_exit(action)


def _print_terms(counts, name: str) -> None:
    say(
        f"glossary {name}: {counts.found:,} terms found; {counts.already_there:,} sentences "
        f"had them without stand-ins, {counts.searched_again:,} "
        f"searched again and {counts.translated_around:,} translated around their terms to keep "
        "them (docs/text.md#glossaries)"
    )


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
    say(f"decoded by: {report.search}")
    say(f"teacher-forced by: {report.teacher_forced}")
