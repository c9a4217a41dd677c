"""Decided the default recipe's levers (docs/recipe.md, "Ablation at a fixed budget").

Each recipe lever's effect at a fixed wall-clock budget, measured on the selection part.

    python -m experiments.ablation --corpus data/spa-eng.tsv --budget 3m

Trains one variant after another from the same prepared data (seed 0) and prints a table of
selection cross-entropy/accuracy reached within the budget and training tokens/s.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from rich.console import Console
from rich.table import Table

from mt.config import parse_duration
from mt.data.prepare.pipeline import prepare_corpus
from mt.storage.files import PREPARE_JSON, read_metrics
from mt.train.launch import start_training
from mt.train.reporting import SilentReporter

FAST = {"lr": 0.05, "warmup": 800}
TOKENS = {"batch_tokens": 2500}
DEFAULT_SHAPE: dict[str, object] = {"d_model": 256, "ff": 1024, "heads": 4, "layers": 3}
VARIANTS: list[tuple[str, str, dict[str, object], dict[str, object]]] = [
    (
        "thesis-large as published (η0 0.001, t_w 4000, 64 sentences)",
        "thesis-large",
        {},
        {},
    ),
    ("+ peak learning rate 1.8e-3 (η0 0.05, t_w 800)", "thesis-large", {}, FAST),
    ("+ token batches of 2,500", "thesis-large", {}, {**FAST, **TOKENS}),
    (
        "+ label smoothing 0.1",
        "thesis-large",
        {},
        {**FAST, **TOKENS, "label_smoothing": 0.1},
    ),
    (
        "+ pre-norm",
        "thesis-large",
        {"pre_norm": True},
        {**FAST, **TOKENS, "label_smoothing": 0.1},
    ),
    (
        "+ d_p 1024, 3 layers, 4 heads (post-norm)",
        "thesis-large",
        DEFAULT_SHAPE,
        {**FAST, **TOKENS, "label_smoothing": 0.1},
    ),
    (
        "+ dropout 0",
        "thesis-large",
        {**DEFAULT_SHAPE, "dropout": 0.0},
        {**FAST, **TOKENS, "label_smoothing": 0.1},
    ),
    (
        "thesis-large, pre-norm, smoothing 0.1, fast schedule, token batches of 1,200",
        "thesis-large",
        {"pre_norm": True},
        {**FAST, "batch_tokens": 1200, "label_smoothing": 0.1},
    ),
    (
        "the same with batches of 64 sentences",
        "thesis-large",
        {"pre_norm": True},
        {**FAST, "batch_tokens": 0, "batch_size": 64, "label_smoothing": 0.1},
    ),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--budget", default="3m")
    parser.add_argument("--out", type=Path, default=Path("bench/ablation"))
    parser.add_argument("--only", type=int, nargs="*", help="Variant numbers to run.")
    args = parser.parse_args()
    budget = parse_duration(args.budget)
    prepared = args.out / "data"
    if not (prepared / PREPARE_JSON).exists():
        prepare_corpus(args.corpus, out=prepared, force=True)
    results = []
    for number, (name, preset, shape, overrides) in enumerate(VARIANTS):
        if args.only and number not in args.only:
            continue
        run = args.out / f"variant-{number}"
        summary = start_training(
            prepared_dir=prepared,
            run_dir=run,
            preset=preset,
            changes={**shape, **overrides, "time_budget": budget, "accuracy_goal": 1.0},
            device_name="cpu",
            threads=None,
            force=True,
            reporter=SilentReporter(),
        )
        last = read_metrics(run)[-1]
        results.append(
            {
                "variant": name,
                "parameters": summary.parameters,
                "steps": summary.steps,
                "selection_loss": last["selection_loss"],
                "selection_accuracy": last["selection_accuracy"],
                "tokens_per_second": last["tokens_per_second"],
            }
        )
        print(json.dumps(results[-1]), flush=True)
    table = Table(title=f"ablation at {args.budget} of training")
    for column in ("variant", "parameters", "steps", "sel. CE", "sel. acc", "tok/s"):
        table.add_column(column)
    for r in results:
        table.add_row(
            r["variant"],
            f"{r['parameters']:,}",
            str(r["steps"]),
            f"{r['selection_loss']:.3f}",
            f"{r['selection_accuracy']:.3f}",
            f"{r['tokens_per_second']:,.0f}",
        )
    Console().print(table)
    (args.out / "results.json").write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
