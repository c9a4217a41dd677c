"""`make bench-documents`: documents of growing size in each format, and their plain lines.

    python -m benchmarks.text.bench_documents [--model MODEL] [--text FILE | --synthetic]
        [--sizes 10 100 300 1000] [--layer-sizes 10 100 1000] [--target-kb 300]
        [--formats html markdown po srt] [--threads 2] [--json bench/documents/results.json]

Documents of each size (KB) and format (benchmarks/text/generated_documents.py: headings,
paragraphs with inline tags and links, lists with code, and a run of tagged lines with no block
element between them, as LibreOffice's help pages have) are written around English sentences: the
lines of --text (by default ../shared/data/domains/news/news-dev.en, read in place) or, with
--synthetic, sentences made up from a small word list. For each size it prints:
- with the model `mt translate` uses (--model; by default the shipped model, on a CPU its int8
  copy): seconds and sentences/s of each document through mt.load().translate_document, and of
  the same sentences as plain lines through translate(), each in a fresh process that loads and
  warms up the model; the peak resident memory each pass added (VmHWM, reset before it);
- the document layer alone (--layer-sizes: parsing, cutting, placing markup and writing, with a
  translator that copies its input): seconds per 100 KB and Python's peak memory (tracemalloc)
  per KB of document, whose flatness from size to size is the slope.
Targets (exit status 1 on a miss): at --target-kb (300, when --sizes holds it) each format
translates at no less than half the sentences/s of its plain lines (counted per second of the
process's CPU time, which other processes' load on a shared machine does not change; wall-clock
figures are printed beside it); the peak memory a document adds beyond its plain lines does not
grow with the page: at the largest size it is at most MEMORY_MARGIN_MB more than at the smallest
size of at least MEMORY_FROM_KB (the slope per byte between them is printed); the layer's
seconds and memory per KB at its largest size are at most SLOPE times those at its
second-largest (linear, not quadratic). The figures go to --json (benchmarks/harness.py).
"""

from __future__ import annotations

import multiprocessing
import re
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import Target, report
from benchmarks.text.generated_documents import FORMATS, generate, synthetic_sentences

TEXT = harness.DOMAINS / "news" / "news-dev.en"
TARGET_KB = 300
SPEED_RATIO = 0.5
"""A document's sentences/s at least this share of its plain lines'."""
MEMORY_FROM_KB = 100
"""The smallest size the memory target compares with: past one piece (50,000 characters of text),
so that a piece's working memory is in both figures."""
MEMORY_MARGIN_MB = 32.0
"""How much more the peak memory a document adds beyond its plain lines may be at the largest size
than at MEMORY_FROM_KB: the parsed page held whole (its text, units and skeleton as Python
objects: 15 to 20 MB for a 1,000 KB .po by tracemalloc) and the noise of one peak (two runs of
one 300 KB HTML page peaked 28 MB apart; the plain lines of a 100 KB page, 35 MB). A piece's
working memory does not grow with the page; before its alignment was bounded by pieces,
an HTML page added 83 MB beyond its plain lines at 100 KB and 129 MB at 1,000 KB."""
SLOPE = 2.0
"""The layer's cost per KB at the largest size over that at the second-largest: about 1 when
linear, 10 for a square over sizes 10x apart."""


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--model", default=None, help="as mt translate --model (default: shipped)")
    parser.add_argument("--text", type=Path, default=TEXT, help="English sentences, one a line")
    parser.add_argument("--synthetic", action="store_true", help="made-up sentences, no --text")
    parser.add_argument("--sizes", type=int, nargs="*", default=[10, 100, TARGET_KB, 1000])
    parser.add_argument("--layer-sizes", type=int, nargs="*", default=[10, 100, 1000])
    parser.add_argument(
        "--target-kb", type=int, default=TARGET_KB, help="where targets are checked"
    )
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    harness.add_threads(parser)
    harness.add_out(parser, Path("bench/documents/results.json"), flag="--json")
    args = parser.parse_args(argv)
    sentences = _sentences(args.text, args.synthetic)
    if sentences is None:
        return 2
    print(harness.machine_line(args.threads), flush=True)
    figures: dict[str, dict] = {"model": {}, "layer": {}}
    targets: list[Target] = []
    for form in args.formats if args.layer_sizes else ():
        _layer(form, sentences, 2)  # not measured: the first call compiles the parsers' rules
    for size in args.layer_sizes:
        for form in args.formats:
            figures["layer"][f"{form} {size} KB"] = _layer(form, sentences, size).row()
    targets += _slope_targets(figures["layer"], args.formats, args.layer_sizes)
    if args.sizes:
        model = None if args.model is None else str(args.model)
        print(f"model: {_describe_model(model, args.threads)}", flush=True)
        for size in args.sizes:
            rows = _with_model(model, args.threads, args.formats, sentences, size)
            figures["model"].update({f"{form} {size} KB": row for form, row in rows.items()})
        targets += _model_targets(figures["model"], args.formats, args.sizes, args.target_kb)
    _print(figures)
    return report(args.json, figures, targets, threads=args.threads)


def _describe_model(model: str | None, threads: int) -> str:
    import mt

    translator = mt.load(model, threads=threads, device="cpu")
    return f"{translator.model.label} ({translator.engine})"


def _sentences(text: Path, synthetic: bool) -> list[str] | None:
    """The sentences documents are written around, or None after saying why there are none."""
    if synthetic:
        return synthetic_sentences(20_000)
    if not text.is_file():
        print(
            f"bench_documents: no sentences: {text} is not there; give --text FILE (English, a "
            "sentence a line, e.g. ../shared/data/domains/news/news-dev.en) or --synthetic",
            file=sys.stderr,
        )
        return None
    lines = text.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip()]


@dataclass(frozen=True)
class Measured:
    kb: float
    sentences: int
    seconds: float  # wall clock
    cpu_seconds: float  # the process's CPU time, all its threads: what other load does not change
    memory: float  # bytes of peak memory added

    def row(self) -> dict[str, float]:
        return {
            "KB": round(self.kb, 1),
            "sentences": self.sentences,
            "seconds": round(self.seconds, 3),
            "cpu seconds": round(self.cpu_seconds, 3),
            "sentences/s": round(self.sentences / self.seconds, 2),
            "sentences/cpu s": round(self.sentences / self.cpu_seconds, 2),
            "seconds per 100 KB": round(100 * self.seconds / self.kb, 3),
            "cpu seconds per 100 KB": round(100 * self.cpu_seconds / self.kb, 3),
            "peak MB added": round(self.memory / 2**20, 1),
            "peak bytes per byte": round(self.memory / (self.kb * 1024), 1),
        }


@dataclass(frozen=True)
class _Copied:
    text: str


class _Copy:
    """A translator that gives each line back: the document layer's cost alone."""

    def translate(self, lines: Iterable[str]) -> Iterator[_Copied]:
        return (_Copied(line) for line in lines)


def _layer(form: str, sentences: list[str], size: int) -> Measured:
    """Parsing, cutting, placing and writing a `size` KB document, with Python's peak memory."""
    from mt.decode.documents.align import PositionAligner
    from mt.decode.documents.document import translate_stream
    from mt.decode.documents.formats import Format, read_document

    text, used = generate(form, sentences, size * 1024)
    data = text.encode("utf-8")
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    bom, document = read_document(data, Format(form), name=f"generated.{form}")
    written = len(bom) + sum(
        len(bit) for bit in translate_stream(document, _Copy(), PositionAligner())
    )
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert written > 0
    return Measured(len(data) / 1024, used, seconds, cpu, peak)


def _with_model(
    model: str | None, threads: int, formats: list[str], sentences: list[str], size: int
) -> dict[str, dict]:
    """Each format's `size` KB document and its sentences as plain lines, through the model,
    each in a fresh process (so that one pass's freed memory does not hide the next's peak)."""
    rows = {}
    warm = sentences[-200:]
    for form in formats:
        text, used = generate(form, sentences, size * 1024)
        kb = len(text.encode("utf-8")) / 1024
        doc = Measured(kb, used, *_in_child(model, threads, form, warm, document=text))
        lines = Measured(kb, used, *_in_child(model, threads, form, warm, lines=sentences[:used]))
        rows[form] = {
            "document": doc.row(),
            "plain lines": lines.row(),
            "speed ratio": round(lines.cpu_seconds / doc.cpu_seconds, 3),
            "wall-clock speed ratio": round(lines.seconds / doc.seconds, 3),
            "peak MB beyond plain lines": round((doc.memory - lines.memory) / 2**20, 1),
        }
        print(f"{form} {size} KB: {rows[form]}", flush=True)
    return rows


def _in_child(
    model: str | None,
    threads: int,
    form: str,
    warm: list[str],
    *,
    document: str | None = None,
    lines: list[str] | None = None,
) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak memory added) of one pass, in a new process that loads
    the model."""
    context = multiprocessing.get_context("spawn")
    with context.Pool(1) as pool:
        return pool.apply(_one_pass, (model, threads, form, warm, document, lines))


def _one_pass(
    model: str | None, threads: int, form: str, warm: list[str], document, lines
) -> tuple[float, float, float]:
    """In the child: the model loaded and warmed up on a small document of the format and a
    few lines (the first call of each path loads what it needs), then the pass measured. The
    language identifier is loaded first: the quality flags load it once, the first time a
    translation might copy its source, and 75 MB loaded in one pass and not in the other would
    swing the comparison by more than its margin."""
    import mt
    from mt.quality.flags import language_of

    language_of("El comité aprobó el informe.")
    translator = mt.load(model, threads=threads, device="cpu")
    translator.translate_document(generate(form, warm, 2048)[0], format=form)
    translator.translate(warm[-20:])
    if document is not None:
        return _measured(lambda: translator.translate_document(document, format=form))
    return _measured(lambda: translator.translate(lines))


def _measured(work: Callable[[], object]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, bytes of resident memory the peak rose above the start) of
    `work`."""
    _reset_peak()
    before = _status("VmRSS")
    start, cpu = time.perf_counter(), time.process_time()
    work()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return seconds, cpu, max(0.0, _status("VmHWM") - before)


def _reset_peak() -> None:
    """Linux resets a process's peak resident size (VmHWM) on "5" in /proc/self/clear_refs."""
    with open("/proc/self/clear_refs", "w") as stream:
        stream.write("5")


def _status(field: str) -> float:
    status = Path("/proc/self/status").read_text()
    return float(re.search(rf"{field}:\s+(\d+) kB", status).group(1)) * 1024


def _model_targets(
    model: dict[str, dict], formats: list[str], sizes: list[int], target_kb: int
) -> list[Target]:
    """At `target_kb` (when measured) the speed ratio; from the smallest size of at least
    MEMORY_FROM_KB to the largest, the growth of the peak memory beyond plain lines."""
    targets = []
    compared = sorted(size for size in sizes if size >= MEMORY_FROM_KB)
    for form in formats:
        if target_kb in sizes:
            row = model[f"{form} {target_kb} KB"]
            name = f"{form} {target_kb} KB: sentences/s over plain lines'"
            targets.append(Target(name, row["speed ratio"], ">=", SPEED_RATIO))
        if len(compared) >= 2:
            small, large = (model[f"{form} {size} KB"] for size in (compared[0], compared[-1]))
            grown = large["peak MB beyond plain lines"] - small["peak MB beyond plain lines"]
            kb = large["document"]["KB"] - small["document"]["KB"]
            print(
                f"{form}: peak beyond plain lines {small['peak MB beyond plain lines']} MB at "
                f"{compared[0]} KB, {large['peak MB beyond plain lines']} MB at {compared[-1]} KB:"
                f" {grown * 2**20 / (kb * 1024):.1f} bytes per byte"
            )
            name = f"{form}: peak MB beyond plain lines, {compared[-1]} KB over {compared[0]} KB's"
            targets.append(Target(name, grown, "<=", MEMORY_MARGIN_MB))
    return targets


def _slope_targets(layer: dict[str, dict], formats: list[str], sizes: list[int]) -> list[Target]:
    """The layer's seconds and memory per KB, largest size over the second-largest."""
    if len(sizes) < 2:
        return []
    small, large = sorted(sizes)[-2:]
    targets = []
    for form in formats:
        a, b = layer[f"{form} {small} KB"], layer[f"{form} {large} KB"]
        for figure in ("cpu seconds per 100 KB", "peak bytes per byte"):
            ratio = b[figure] / max(a[figure], 1e-9)
            targets.append(
                Target(f"{form} layer {figure}, {large} KB over {small} KB", ratio, "<=", SLOPE)
            )
    return targets


def _print(figures: dict[str, dict]) -> None:
    for key, row in figures["layer"].items():
        print(f"layer {key}: {row}")


if __name__ == "__main__":
    sys.exit(main())
