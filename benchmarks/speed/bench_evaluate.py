"""`make bench-evaluate`: `mt evaluate` beside `mt translate` on the same development lines, with
the same model and options (issue 67: evaluation at translation speed).

    python -m benchmarks.speed.bench_evaluate [--model en-es-general-12] [--limit 1012] \
        [--general ../shared/data/general] [--domains ../shared/data/domains] [--out bench/evaluate]

The lines are development pairs, never a test part, one sentence a line as in FLORES (the issue
measured FLORES dev, which mt.recipes.general_split keeps for test): the dev documents of TICO-19
(mt.recipes.general_split) and news-test2008, the news dev set (mt.recipes.domain_split), in
that order, the first --limit (1,012: FLORES dev's size). `--sets tico,xquad,news` puts XQuAD's
dev documents between them: its context paragraphs (120 words) are where TER, which grows faster
than the square of a line's length, costs most.

Each command runs as a person runs it, in a process of its own with its default options (beam 5;
for the shipped model on a CPU, its int8 CTranslate2 copy): after one warm-up of each on the
first 10 lines, which makes the copy and brings the files into the page cache, `mt translate -i
SRC -o OUT` and `mt evaluate --tsv TSV --hyps HYPS` are timed in turn --repeats times (3), the
median of each kept: a shared machine's load moves a single time by a quarter. Printed: the
machine, the seconds and sentences/s of each, their ratio, the BLEU of translate's output
(sacrebleu against the references) and evaluate's own, the lines whose translations differ, and
the engines evaluate says it used. Targets: evaluate within 1.3x translate's time, the BLEUs
within 0.01. The figures go to --out/results.json (benchmarks/harness.py); the exit status is 1
on a missed target, and 1 with one line when the shared data is absent.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.evaluate.scores import corpus_scores
from mt.recipes.domain_split import split_parts
from mt.recipes.general_split import pairs_of

MT = Path(sys.executable).with_name("mt")
WARM_UP = 10
"""Lines each command translates once before it is timed."""
MAX_RATIO = 1.3
"""evaluate's seconds over translate's: the teacher-forced pass and the scores cost little."""
MAX_BLEU_GAP = 0.01


SETS = ("tico", "xquad", "news")


def dev_pairs(
    general: Path, domains: Path, names: list[str], limit: int
) -> dict[str, list[tuple[str, str]]]:
    """The development pairs of each set named, in SETS' order, the first `limit` of all of
    them (empty sets left out): pairs a TSV line can hold (one line, no tab, both sides not
    blank)."""
    chosen: dict[str, list[tuple[str, str]]] = {}
    room = limit
    for name in (name for name in SETS if name in names):
        if name == "news":
            pairs = [(pair.english, pair.spanish) for pair in split_parts("news", domains).dev]
        else:
            pairs = pairs_of(general, name, "dev")
        usable = [pair for pair in pairs if all(_one_line(side) for side in pair)][:room]
        if usable:
            chosen[name] = usable
        room -= len(usable)
    return chosen


def _one_line(text: str) -> bool:
    return bool(text.strip()) and not any(mark in text for mark in "\t\n\r")


def write_set(folder: Path, name: str, pairs: list[tuple[str, str]]) -> tuple[Path, Path]:
    """NAME.en (the English, a line each) and NAME.tsv (english<TAB>spanish)."""
    source, tsv = folder / f"{name}.en", folder / f"{name}.tsv"
    source.write_text("".join(f"{en}\n" for en, _ in pairs), encoding="utf-8")
    tsv.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")
    return source, tsv


def timed(command: list[str | Path]) -> float:
    """Seconds of one command in a process of its own; a failure ends the benchmark with its
    last lines."""
    started = time.perf_counter()
    done = subprocess.run([str(part) for part in command], capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(
            f"bench-evaluate: {' '.join(map(str, command))} exited {done.returncode}: "
            f"{done.stderr.strip()[-400:]}"
        )
    return seconds


def run_both(
    model: str | None, threads: int | None, source: Path, tsv: Path
) -> tuple[dict[str, float], list[str], list[str], dict]:
    """Seconds of `mt translate -i SOURCE -o OUT` and of `mt evaluate --tsv TSV --hyps HYPS
    --json REPORT` (the same model and threads), translate's lines, evaluate's and its report."""
    shared: list[str | Path] = [] if threads is None else ["--threads", str(threads)]
    out, hyps, figures = (source.with_suffix(suffix) for suffix in (".mt.es", ".hyps.es", ".json"))
    translate = [MT, "translate", "-i", source, "-o", out, *shared]
    if model is not None:
        translate += ["--model", model]
    evaluate = [MT, "evaluate", *([model] if model else []), "--tsv", tsv, "--hyps", hyps]
    seconds = {"translate": timed(translate), "evaluate": timed([*evaluate, "--json", figures])}
    return (
        seconds,
        out.read_text(encoding="utf-8").splitlines(),
        hyps.read_text(encoding="utf-8").splitlines(),
        json.loads(figures.read_text(encoding="utf-8")),
    )


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--model", default=None, help="default: the shipped default model")
    parser.add_argument("--general", type=Path, default=harness.GENERAL)
    harness.add_domains(parser)
    harness.add_limit(parser, 1012, help="development pairs translated")
    parser.add_argument(
        "--sets", default="tico,news", help=f"dev sets, comma-separated, of {', '.join(SETS)}"
    )
    parser.add_argument("--repeats", type=int, default=3, help="timings of each command")
    harness.add_threads(parser, None, help="--threads of both commands (default: mt's own)")
    harness.add_out(parser, Path("bench/evaluate"), help="the files and results.json go here")
    args = parser.parse_args(argv)
    names = args.sets.split(",")
    if unknown := sorted(set(names) - set(SETS)):
        parser.error(f"--sets: unknown {', '.join(unknown)} (known: {', '.join(SETS)})")
    for needed in (args.general / "tico19.tsv", args.domains / "news" / "news-dev.en"):
        if not needed.exists():
            raise SystemExit(f"bench-evaluate: {needed} is absent: it needs ../shared/data")
    threads = args.threads or os.cpu_count() or 1
    console = Console()
    console.print(harness.machine_line(threads))
    sets = dev_pairs(args.general, args.domains, names, args.limit)
    pairs = [pair for chosen in sets.values() for pair in chosen]
    args.out.mkdir(parents=True, exist_ok=True)
    run_both(args.model, args.threads, *write_set(args.out, "warm-up", pairs[:WARM_UP]))
    files = write_set(args.out, "dev", pairs)
    times: dict[str, list[float]] = {"translate": [], "evaluate": []}
    for _ in range(args.repeats):
        seconds, translated, hypotheses, evaluated = run_both(args.model, args.threads, *files)
        for name, value in seconds.items():
            times[name].append(value)
    seconds = {name: statistics.median(values) for name, values in times.items()}
    differing = sum(a != b for a, b in zip(translated, hypotheses, strict=True))
    references = [[spanish] for _, spanish in pairs]
    bleu = {"translate": corpus_scores(translated, references).bleu, "evaluate": evaluated["bleu"]}

    lines = len(pairs)
    ratio = seconds["evaluate"] / seconds["translate"]
    table = Table(title=f"{lines:,} dev lines ({', '.join(sets)}), {args.model or 'shipped'}")
    for column in ("command", "seconds", "sentences/s", "BLEU"):
        table.add_column(column, justify="left" if column == "command" else "right")
    for name in ("translate", "evaluate"):
        table.add_row(
            f"mt {name}", f"{seconds[name]:.1f}", f"{lines / seconds[name]:.1f}",
            f"{bleu[name]:.2f}",
        )  # fmt: skip
    console.print(table)
    console.print(
        f"evaluate / translate: {ratio:.2f}x; lines translated differently: {differing}\n"
        f"evaluate decoded by: {evaluated['search']}\n"
        f"evaluate teacher-forced by: {evaluated['teacher_forced']} "
        f"(accuracy {evaluated['accuracy']}, cross-entropy {evaluated['cross_entropy']:.4f})",
        highlight=False,
    )
    figures = {
        "model": args.model or "shipped default",
        "lines": lines,
        "sets": {name: len(chosen) for name, chosen in sets.items()},
        "seconds": seconds,
        "all_seconds": times,
        "sentences_per_second": {name: lines / value for name, value in seconds.items()},
        "ratio": ratio,
        "bleu": bleu,
        "differing_lines": differing,
        "evaluate_report": {
            key: evaluated[key]
            for key in ("search", "teacher_forced", "accuracy", "cross_entropy", "seconds")
        },
    }
    targets = [
        Target("mt evaluate seconds / mt translate seconds", ratio, "<=", MAX_RATIO),
        Target("BLEU, evaluate - translate", bleu["evaluate"] - bleu["translate"], "within",
               MAX_BLEU_GAP),
    ]  # fmt: skip
    return report(args.out / "results.json", figures, targets, threads=threads)


if __name__ == "__main__":
    os.environ.setdefault("COLUMNS", "120")
    # As bench_shipped: a person's mt has its bytecode, and a user folder of its own has no int8
    # copy yet (the warm-up makes it, untimed).
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as user:
        for name in ("MT_HOME", "MT_CACHE"):
            os.environ[name] = str(Path(user) / name.lower())
        sys.exit(main())
