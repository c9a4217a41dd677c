"""How fast `mt backtranslate` is: with a Spanish→English export (target: 100 sentences/s on two
cores) and with `--engine CMD` against the command's own speed on the same sentences (target:
within 10%). Prints the figures and the machine; exits non-zero when a target is missed.

    python -m benchmarks.speed.bench_backtranslate --lines 3000 --model runs/reverse-int8 \
        --engine cat

The first --lines paragraphs of --mono are copied to a temporary doc<TAB>paragraph file; the
sentences `mt backtranslate` keeps of them are what the command's own speed is measured on
(`CMD < sentences > /dev/null`, started once as the pipeline starts it once a chunk).
"""

from __future__ import annotations

import itertools
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.readers.streams import iter_lines, open_binary
from mt.decode.backtranslate import Progress, SentenceFilters, backtranslate, sentence_stream
from mt.decode.line_engines import CommandEngine, ModelEngine


def head_lines(source: Path, lines: int, out: Path) -> Path:
    with open_binary(source, what="monolingual file") as stream:
        batches = iter_lines(stream, path=source, batch_lines=1024)
        taken = list(itertools.islice((line for batch in batches for line in batch), lines))
    out.write_text("".join(f"{line}\n" for line in taken if line is not None), encoding="utf-8")
    return out


def timed_run(mono: Path, engine, out: Path, chunk: int, search: dict) -> tuple[float, int]:
    started = time.perf_counter()
    result = backtranslate([mono], out=out, engine=engine, search=search, chunk=chunk)
    return time.perf_counter() - started, result.sentences


def command_alone(command: str, sentences: Path) -> float:
    with sentences.open("rb") as stdin:
        started = time.perf_counter()
        subprocess.run(shlex.split(command), stdin=stdin, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--mono", type=Path, default=harness.GENERAL / "un-news.es.tsv.xz")
    harness.add_limit(parser, 3000, flag="--lines", help="paragraphs of --mono read")
    parser.add_argument("--model", type=Path, help="a Spanish→English run or export")
    parser.add_argument("--engine", help="a line-by-line command, e.g. cat")
    harness.add_threads(parser)
    harness.add_beam(parser, 1, flag="--beam-size")
    parser.add_argument("--chunk", type=int, default=512)
    parser.add_argument("--target", type=float, default=100.0, help="sentences/s of --model")
    harness.add_out(parser, Path("bench/backtranslate/results.json"), flag="--json")
    args = parser.parse_args(argv)
    print(harness.machine_line(args.threads))
    figures: dict[str, object] = {"mono": str(args.mono), "lines": args.lines}
    targets: list[Target] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        mono = head_lines(args.mono, args.lines, folder / "mono.tsv")
        sentences = folder / "sentences.es"
        kept = sentence_stream([mono], SentenceFilters(), Progress())
        sentences.write_text("".join(f"{s}\n" for s in kept), encoding="utf-8")
        started = time.perf_counter()
        count = sum(1 for _ in sentence_stream([mono], SentenceFilters(), Progress()))
        reading = time.perf_counter() - started
        figures["sentences"] = count
        figures["reading_sentences_per_second"] = round(count / reading, 1)
        print(f"{args.lines:,} lines of {args.mono.name}: {count:,} sentences kept; reading, "
              f"splitting and filtering alone {count / reading:,.0f} sentences/s")  # fmt: skip
        if args.model is not None:
            config = DecodeConfig(beam_size=args.beam_size, batch_size=64)
            engine = ModelEngine(resolve(args.model), config, device="cpu", threads=args.threads)
            seconds, done = timed_run(mono, engine, folder / "model.tsv", args.chunk,
                                      config.to_dict())  # fmt: skip
            rate = done / seconds
            figures["model"] = {
                "path": str(args.model),
                "beam": args.beam_size,
                "seconds": round(seconds, 2),
                "sentences_per_second": round(rate, 1),
            }
            targets.append(Target("model sentences/s", rate, ">=", args.target))
            print(f"model {args.model} (beam {args.beam_size}): {done:,} sentences in "
                  f"{seconds:.1f} s, {rate:,.0f} sentences/s (target {args.target:g})")  # fmt: skip
        if args.engine is not None:
            alone = command_alone(args.engine, sentences)
            seconds, done = timed_run(mono, CommandEngine(args.engine), folder / "engine.tsv",
                                      args.chunk, {})  # fmt: skip
            ratio = seconds / alone
            figures["engine"] = {
                "command": args.engine,
                "seconds": round(seconds, 2),
                "alone_seconds": round(alone, 2),
                "ratio": round(ratio, 3),
            }
            targets.append(Target("--engine time / the command's own", ratio, "<=", 1.10))
            print(f"--engine {args.engine!r}: {seconds:.2f} s ({done / seconds:,.0f} sentences/s);"
                  f" the command alone on the same sentences {alone:.2f} s "
                  f"({done / alone:,.0f} sentences/s): {ratio:.2f}x (target <= 1.10x)")  # fmt: skip
    return report(args.json, figures, targets, threads=args.threads)


if __name__ == "__main__":
    sys.exit(main())
