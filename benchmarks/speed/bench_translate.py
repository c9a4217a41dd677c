"""`make bench-translate`: decoding speed with the key/value cache next to full recomputation.

    python -m benchmarks.speed.bench_translate --corpus data/spa-eng.tsv [--run bench/translate/run]

Uses a trained thesis-large-sized run (trains one for --train-budget with the fast schedule if
--run does not exist yet), translates 1,000 test sentences greedy and with beam 5, cached and
uncached, in the same process, and prints sentences/s and BLEU for each.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from mt.catalog.modelinfo import read_train_config, resolve
from mt.cli.progress import RichReporter
from mt.config import DecodeConfig, parse_duration
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared
from mt.decode.options import TranslateOptions
from mt.decode.translator import translator_for
from mt.evaluate.scores import corpus_scores
from mt.model.devices import resolve_device
from mt.model.rundir import load_run
from mt.storage.files import BEST_WEIGHTS, PREPARE_JSON
from mt.train.launch import start_training

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
from recompute import recompute_stepper  # noqa: E402  (a test helper: the uncached baseline)

FAST_THESIS_LARGE = {"lr": 0.05, "warmup": 800, "batch_tokens": 2500, "label_smoothing": 0.1}


def ensure_run(args, console: Console) -> Path:
    if (args.run / BEST_WEIGHTS).exists():
        return args.run
    prepared = args.out / "data"
    if not (prepared / PREPARE_JSON).exists():
        prepare_corpus(args.corpus, out=prepared, force=True)
    console.print(f"training a thesis-large run for {args.train_budget} into {args.run}")
    start_training(
        prepared_dir=prepared,
        run_dir=args.run,
        preset="thesis-large",
        changes={**FAST_THESIS_LARGE, "time_budget": parse_duration(args.train_budget)},
        device_name=args.device,
        threads=None,
        force=True,
        reporter=RichReporter(console),
    )
    return args.run


def measure(run, sources, references, config: DecodeConfig, device, cached: bool):
    if not cached:
        run = replace(run, model=recompute_stepper(run.model))
    translator = translator_for(run, TranslateOptions(decode=config, normalize=False), device)
    started = time.perf_counter()
    hypotheses = [t.text for t in translator.translate(sources)]
    seconds = time.perf_counter() - started
    return len(sources) / seconds, corpus_scores(hypotheses, references).bleu


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--corpus", type=Path, required=True)
    harness.add_out(parser, Path("bench/translate"), help="the prepared data goes to OUT/data")
    harness.add_run(parser, default=Path("bench/translate/run"), help="trained first if absent")
    parser.add_argument("--train-budget", default="10m")
    harness.add_limit(parser, 1000, flag="--sentences", help="test sentences translated")
    harness.add_device(parser)
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    device = resolve_device(args.device)
    run_dir = ensure_run(args, console)
    run = load_run(resolve(run_dir), "best", device)
    _, prepared_dir = read_train_config(run_dir)
    test = load_prepared(prepared_dir).read_part("test")
    groups: dict[str, list[str]] = {}
    for english, spanish in test:
        groups.setdefault(english, []).append(spanish)
    sources = list(groups)[: args.sentences]
    references = [groups[s][:1] for s in sources]

    table = Table(
        title=f"decoding {len(sources):,} test sentences, {device}, "
        f"{torch.get_num_threads()} threads"
    )
    for column in ("search", "cached sent/s", "uncached sent/s", "speed-up", "BLEU"):
        table.add_column(column, justify="right")
    for name, config in (
        ("greedy", DecodeConfig(beam_size=1, length_penalty=0.0)),
        ("beam 5", DecodeConfig(beam_size=5)),
    ):
        cached_rate, bleu = measure(run, sources, references, config, device, cached=True)
        uncached_rate, uncached_bleu = measure(
            run, sources, references, config, device, cached=False
        )
        table.add_row(
            name,
            f"{cached_rate:,.1f}",
            f"{uncached_rate:,.1f}",
            f"{cached_rate / uncached_rate:.1f}×",
            f"{bleu:.1f}"
            + ("" if abs(bleu - uncached_bleu) < 0.05 else f" (uncached {uncached_bleu:.1f})"),
        )
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
