"""`make bench-export`: mt's PyTorch search next to its CTranslate2 exports, in one process.

    python -m benchmarks.speed.bench_export [--run bench/model] [--data bench/data] \
        [--out bench/export]

Exports the run to CTranslate2 float32 and int8 (into --out), then opens each engine with the
same CPU threads and translates the same test sentences greedy and with beam 5: mt PyTorch in fp32
and, where the CPU has bf16 (avx512_bf16 or AMX), in bf16; CT2 float32; CT2 int8; and the int8
export with compute type int8_bfloat16 where CTranslate2 offers it on this CPU. Per row:
sentences/s, target tokens/s, BLEU and chrF, peak resident memory, model size on disk and load
time. It prints the machine and its load average (the machine may be shared) and the ratios the
export is meant to reach: int8 beam 5 at least 3x PyTorch's (fp32) sentences/s, BLEU within 0.5,
weights on disk at most 30% of the safetensors file. The figures go to --out/results.json
(benchmarks/harness.py: machine, commit, date, command) and the exit status is 1 when a target is
missed.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import psutil
import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, cpu, report
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import load_prepared
from mt.decode.engine import open_run
from mt.decode.options import TranslateOptions
from mt.decode.results import total
from mt.decode.translator import translator_for
from mt.evaluate.scores import corpus_scores
from mt.export.writer import export_run

CPU = torch.device("cpu")
SEARCHES = {"greedy": 1, "beam 5": 5}
BASE = "mt PyTorch fp32"


@dataclass
class Row:
    engine: str
    search: str
    sentences_per_second: float
    tokens_per_second: float
    bleu: float
    chrf: float
    peak_rss: float  # bytes, while this engine loaded and translated
    rss_growth: float  # bytes, that peak over the resident memory before loading
    size: int  # weights on disk, bytes
    load_seconds: float
    hypotheses: list[str]


class PeakRss:
    """Samples this process's resident memory every few milliseconds while it is entered."""

    def __init__(self, interval: float = 0.01) -> None:
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._process = psutil.Process()

    def __enter__(self) -> PeakRss:
        self.before = self.peak = self._process.memory_info().rss
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        return self

    def _sample(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, self._process.memory_info().rss)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._process.memory_info().rss)


def ctranslate2_compute_types() -> list[str]:
    import ctranslate2

    return sorted(ctranslate2.get_supported_compute_types("cpu"))


def cpu_has_bf16() -> bool:
    """bf16 matrix work in hardware: without it PyTorch emulates bf16 and is far slower."""
    return any(flag in ("avx512_bf16", "amx_bf16") for flag in cpu()[1])


def machine(threads: int) -> str:
    import ctranslate2

    return (
        f"{harness.describe(threads)} per engine; ctranslate2 {ctranslate2.__version__} "
        f"(cpu compute types {ctranslate2_compute_types()}); "
        f"load average {harness.load_average()}"
    )


def test_sentences(data: Path, count: int) -> tuple[list[str], list[list[str]]]:
    """The first `count` distinct English sentences of the test part, each with its first
    reference (as bench_translate scores them)."""
    groups: dict[str, list[str]] = {}
    for english, spanish in load_prepared(data).read_part("test"):
        groups.setdefault(english, []).append(spanish)
    sources = list(groups)[:count]
    return sources, [groups[source][:1] for source in sources]


def measure(
    engine: str,
    directory: Path,
    size: int,
    sources: list[str],
    references: list[list[str]],
    threads: int,
    say: Callable[[str], None],
    *,
    precision: str = "fp32",
    compute_type: str = "default",
) -> list[Row]:
    """`precision` is PyTorch's, `compute_type` CTranslate2's; each engine ignores the other."""
    gc.collect()
    rows = []
    with PeakRss() as memory:
        started = time.perf_counter()
        run = open_run(resolve(directory), device=CPU, threads=threads, compute_type=compute_type)
        load_seconds = time.perf_counter() - started
        for name, beam_size in SEARCHES.items():
            config = DecodeConfig(beam_size=beam_size, precision=precision)
            options = TranslateOptions(decode=config, normalize=False)
            translator = translator_for(run, options, CPU)
            list(translator.translate(sources[:32]))  # first-call allocations out of the timing
            started = time.perf_counter()
            translations = list(translator.translate(sources))
            seconds = time.perf_counter() - started
            hypotheses = [t.text for t in translations]
            scores = corpus_scores(hypotheses, references)
            rows.append(
                Row(
                    engine,
                    name,
                    len(sources) / seconds,
                    total(translations).decoded_tokens / seconds,
                    scores.bleu,
                    scores.chrf,
                    0.0,
                    0.0,
                    size,
                    load_seconds,
                    hypotheses,
                )
            )
            say(f"{engine} {name}: {len(sources) / seconds:,.1f} sentences/s")
        del run, translator
    for row in rows:
        row.peak_rss, row.rss_growth = memory.peak, memory.peak - memory.before
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser, default=Path("bench/model"), help="a run (PyTorch), exported here")
    harness.add_data(parser, default=Path("bench/data"))
    harness.add_out(parser, Path("bench/export"), help="the exports and results.json")
    harness.add_limit(parser, 1000, flag="--sentences", help="test sentences translated")
    harness.add_threads(parser)
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    weights = args.run / "best.safetensors"
    if not weights.is_file():
        raise SystemExit(f"{args.run}: no trained run (best.safetensors); train one with mt train")
    console.print(machine(args.threads), highlight=False, soft_wrap=True)

    sources, references = test_sentences(args.data, args.sentences)
    size = weights.stat().st_size
    # (engine, directory, bytes on disk, PyTorch precision, CTranslate2 compute type)
    engines = [(BASE, args.run, size, "fp32", "default")]
    if cpu_has_bf16():
        engines.append(("mt PyTorch bf16", args.run, size, "bf16", "default"))
    for quantization in ("float32", "int8"):
        out = args.out / quantization
        result = export_run(resolve(args.run), out, quantization=quantization, force=True)
        console.print(f"export {quantization}: {result.seconds:.1f} s", highlight=False)
        engines.append((f"CT2 {quantization}", out, result.model_bytes, "fp32", "default"))
    if "int8_bfloat16" in ctranslate2_compute_types():
        int8 = engines[-1]
        engines.append(("CT2 int8_bfloat16", int8[1], int8[2], "fp32", "int8_bfloat16"))
    rows = []
    for engine, directory, bytes_on_disk, precision, compute_type in engines:
        rows += measure(
            engine, directory, bytes_on_disk, sources, references, args.threads, console.print,
            precision=precision, compute_type=compute_type,
        )  # fmt: skip

    print_table(rows, len(sources), args.threads, weights.stat().st_size)
    checks = print_ratios(rows, weights.stat().st_size)
    console.print(machine(args.threads), highlight=False, soft_wrap=True)
    figures = [{k: v for k, v in asdict(row).items() if k != "hypotheses"} for row in rows]
    return report(args.out / "results.json", figures, checks, threads=args.threads)


def print_table(rows: list[Row], sentences: int, threads: int, safetensors: int) -> None:
    table = Table(title=f"{sentences:,} test sentences, CPU, {threads} threads per engine")
    for column in ("engine", "search", "sent/s", "tgt tok/s", "BLEU", "chrF",
                   "peak RSS MB (+load)", "size MB", "load s", "same text"):  # fmt: skip
        table.add_column(column, justify="left" if column in ("engine", "search") else "right")
    reference = {row.search: row.hypotheses for row in rows if row.engine == BASE}
    for row in rows:
        same = sum(a == b for a, b in zip(row.hypotheses, reference[row.search], strict=True))
        table.add_row(
            row.engine,
            row.search,
            f"{row.sentences_per_second:,.1f}",
            f"{row.tokens_per_second:,.0f}",
            f"{row.bleu:.2f}",
            f"{row.chrf:.2f}",
            f"{row.peak_rss / 1e6:,.0f} (+{row.rss_growth / 1e6:,.0f})",
            f"{row.size / 1e6:.1f} ({row.size / safetensors:.0%})",
            f"{row.load_seconds:.2f}",
            f"{same}/{len(row.hypotheses)}",
        )
    Console(width=180).print(table)


def print_ratios(rows: list[Row], safetensors: int) -> list[Target]:
    """Prints each engine's speed against PyTorch's; returns the export's targets."""
    by = {(row.engine, row.search): row for row in rows}
    base, int8 = by[(BASE, "beam 5")], by[("CT2 int8", "beam 5")]
    checks = [
        Target("CT2 int8 beam 5 sentences/s, x PyTorch fp32 beam 5",
               int8.sentences_per_second / base.sentences_per_second, ">=", 3.0),
        Target("CT2 int8 beam 5 BLEU minus PyTorch fp32", int8.bleu - base.bleu, "within", 0.5),
        Target("CT2 int8 weights on disk / safetensors", int8.size / safetensors, "<=", 0.3),
    ]  # fmt: skip
    bases = [engine for engine in (BASE, "mt PyTorch bf16") if (engine, "greedy") in by]
    engines = sorted({row.engine for row in rows if row.engine not in bases})
    for engine in engines:
        for search in SEARCHES:
            speed = by[(engine, search)].sentences_per_second
            ratios = ", ".join(
                f"{speed / by[(base, search)].sentences_per_second:.2f}x {base}" for base in bases
            )
            print(f"{engine} {search}: {ratios} {search} in sentences/s")
    return checks


if __name__ == "__main__":
    sys.exit(main())
