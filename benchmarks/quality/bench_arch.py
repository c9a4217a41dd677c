"""Transformer against the recurrent baseline: same data, parameter budget and wall-clock budget.

Prepares the corpus once (seed 0), trains the default Transformer (the thesis-large shape,
pre-norm) and rnn-large for --budget each with a selection evaluation every --eval-every steps,
then scores each best checkpoint on the first --limit test pairs with greedy search and beam 5.
Prints the comparison and writes results.json.

    python -m benchmarks.quality.bench_arch --corpus data/spa-eng.tsv --budget 20m
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from mt.catalog.modelinfo import resolve
from mt.cli.progress import RichReporter
from mt.config import RECIPES, DecodeConfig, parse_duration
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared
from mt.errors import MtError
from mt.evaluate.evaluation import evaluate_run
from mt.model.devices import resolve_device
from mt.model.rundir import load_run
from mt.storage.files import read_metrics
from mt.train.launch import start_training

ARCHITECTURES = {"transformer": "default", "rnn": "rnn-large"}
"""Architecture -> the preset that trains it; the two have about the same parameter count
(6,951,414 and 6,922,550) and each is the best-measured form of its kind."""
SHARED_SCHEDULE = (
    "lr",
    "warmup",
    "beta1",
    "beta2",
    "batch_size",
    "batch_tokens",
    "label_smoothing",
    "max_src_len",
    "max_tgt_len",
    "average_last",
)
"""Both architectures train with the default recipe's optimiser, batches, length limits and
checkpoint averaging, not the thesis' schedule, whose peak learning rate of 1.6e-5 would leave
both untrained in a short budget; only the RNN clips gradient norms, as its recipe says."""


def shared_schedule() -> dict[str, object]:
    default = RECIPES["default"].train.to_dict()
    return {key: default[key] for key in SHARED_SCHEDULE}


BEAMS = (1, 5)

console = Console(stderr=True)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--corpus", type=Path, required=True, help="english<TAB>spanish file")
    parser.add_argument("--budget", default="20m", help="training time per architecture")
    harness.add_out(parser, Path("bench/arch"), help="output directory")
    harness.add_limit(parser, 1000, help="test pairs decoded")
    parser.add_argument("--eval-every", type=int, default=500, help="steps between evaluations")
    harness.add_device(parser)
    harness.add_threads(parser, None)
    return parser.parse_args(argv)


def prepared_data(corpus: Path, out: Path) -> Path:
    """The prepared directory under `out`, written on the first run and reused after."""
    try:
        load_prepared(out)
        console.print(f"reusing prepared data {out}")
    except MtError:
        console.print(f"preparing {corpus} into {out}")
        prepare_corpus(corpus, out=out, force=True)
    return out


def train(arch: str, prepared: Path, run_dir: Path, args: argparse.Namespace) -> dict:
    console.rule(f"{arch} ({ARCHITECTURES[arch]})")
    summary = start_training(
        prepared_dir=prepared,
        run_dir=run_dir,
        preset=ARCHITECTURES[arch],
        changes={
            **shared_schedule(),
            "time_budget": parse_duration(args.budget),
            "eval_every": args.eval_every,
        },
        device_name=args.device,
        threads=args.threads,
        force=True,
        reporter=RichReporter(console),
    )
    for note in summary.notes:
        console.print(note, highlight=False)
    rows = read_metrics(run_dir)
    return {
        "preset": ARCHITECTURES[arch],
        "parameters": summary.parameters,
        "steps": summary.steps,
        "epochs": summary.epochs,
        "stop_reason": summary.stop_reason,
        "wall_seconds": summary.elapsed,  # encoding, training, evaluations, plots
        # the rate of the last 10-step window before each evaluation, as training reports it
        "train_tokens_per_second": statistics.median(r["tokens_per_second"] for r in rows),
        "selection": [
            {key: r[key] for key in ("elapsed", "step", "selection_accuracy", "selection_loss")}
            for r in rows
        ],
    }


def score(run_dir: Path, pairs: list[tuple[str, str]], device: torch.device) -> dict:
    """BLEU, chrF and decoding speed of the best checkpoint for each beam width."""
    run = load_run(resolve(run_dir), "best", device)
    scores = {}
    for beam in BEAMS:
        report = evaluate_run(run, pairs, DecodeConfig(beam_size=beam), device)
        scores[f"beam{beam}"] = {
            "bleu": report.bleu,
            "chrf": report.chrf,
            "sentences_per_second": report.sentences_per_second,
        }
    scores["teacher_forced"] = {"cross_entropy": report.cross_entropy, "accuracy": report.accuracy}
    return scores


def summary_table(results: dict[str, dict], pairs: int) -> Table:
    table = Table(title=f"Transformer vs RNN, same budget; test: first {pairs:,} pairs")
    table.add_column("")
    for arch in results:
        table.add_column(f"{arch} ({results[arch]['preset']})", justify="right")

    def row(label: str, value) -> None:
        table.add_row(label, *(value(r) for r in results.values()))

    row("parameters", lambda r: f"{r['parameters']:,}")
    row("steps / epochs", lambda r: f"{r['steps']:,} / {r['epochs']:.2f}")
    row("training target tokens/s", lambda r: f"{r['train_tokens_per_second']:,.0f}")
    row(
        "best selection accuracy",
        lambda r: f"{max(s['selection_accuracy'] for s in r['selection']):.4f}",
    )
    row(
        "test accuracy (teacher-forced)", lambda r: f"{r['test']['teacher_forced']['accuracy']:.4f}"
    )
    for beam in BEAMS:
        name = "greedy" if beam == 1 else f"beam {beam}"
        row(f"test BLEU, {name}", lambda r, b=beam: f"{r['test'][f'beam{b}']['bleu']:.2f}")
        row(f"test chrF, {name}", lambda r, b=beam: f"{r['test'][f'beam{b}']['chrf']:.2f}")
        row(
            f"sentences/s, {name}",
            lambda r, b=beam: f"{r['test'][f'beam{b}']['sentences_per_second']:,.1f}",
        )
    return table


def curve_table(results: dict[str, dict]) -> Table:
    """Selection accuracy against training time, one column pair per architecture."""
    table = Table(title="selection accuracy over time (elapsed s → accuracy)")
    for arch in results:
        table.add_column(f"{arch} elapsed", justify="right")
        table.add_column(f"{arch} accuracy", justify="right")
    curves = [r["selection"] for r in results.values()]
    for index in range(max(len(c) for c in curves)):
        cells = []
        for curve in curves:
            point = curve[index] if index < len(curve) else None
            cells += (
                ["", ""]
                if point is None
                else [
                    f"{point['elapsed']:.0f}",
                    f"{point['selection_accuracy']:.4f}",
                ]
            )
        table.add_row(*cells)
    return table


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.limit <= 0:
        raise SystemExit(f"--limit must be positive, got {args.limit}")
    prepared = prepared_data(args.corpus, args.out / "data")
    pairs = load_prepared(prepared).read_part("test")[: args.limit]
    device = resolve_device(args.device)
    results = {}
    for arch in ARCHITECTURES:
        run_dir = args.out / arch
        results[arch] = train(arch, prepared, run_dir, args)
        results[arch]["test"] = score(run_dir, pairs, device)
    settings = {
        "corpus": str(args.corpus),
        "budget_seconds": parse_duration(args.budget),
        "eval_every": args.eval_every,
        "test_pairs": len(pairs),
        "device": str(device),
        "threads": torch.get_num_threads(),
    }
    out = Console()
    out.print(summary_table(results, len(pairs)))
    out.print(curve_table(results))
    path = args.out / "results.json"
    path.write_text(json.dumps({"settings": settings, "results": results}, indent=2) + "\n")
    out.print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
