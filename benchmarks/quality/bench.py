"""`make bench`: prepare, train a recipe under a wall-clock budget, evaluate, print one table.

    python -m benchmarks.quality.bench --corpus data/spa-eng.tsv --budget 60m [--recipe default]

Keeps the trained run in bench/run/ and writes every figure to bench/results.json, with the
machine, thread count and commit, so results can be compared across machines and commits.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from mt.catalog.modelinfo import resolve
from mt.cli.progress import RichReporter
from mt.config import DecodeConfig, PrepareConfig, parse_duration
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.prepared_dir import load_prepared
from mt.decode.options import TranslateOptions
from mt.decode.translator import translator_for
from mt.evaluate.evaluation import evaluate_run
from mt.model.devices import resolve_device
from mt.model.rundir import load_run
from mt.storage.files import read_metrics
from mt.train.launch import start_training
from mt.train.run_config import OPTIONS

THESIS = {"test_cross_entropy": 1.77, "test_accuracy": 0.66, "seconds": 69_652, "epochs": 12}
GOAL_ACCURACY = 0.66
SPEED_SENTENCES = 1000
PENALTIES = (0.0, 0.6, 1.0)


def machine() -> dict[str, object]:
    model, flags = harness.cpu()
    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return {
        "cpu": model,
        "cpu_flags": flags,
        "cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "cores": torch.get_num_threads(),
        "gpu": gpu,
        "python": platform.python_version(),
        "torch": torch.__version__,
    }


def parse_change(text: str) -> tuple[str, object]:
    """'lr_decay=budget' or 'average_last=6' as (field name, value): JSON where it parses."""
    name, equals, value = text.partition("=")
    if not equals or name not in OPTIONS:
        raise argparse.ArgumentTypeError(f"expected OPTION=VALUE with a training option: {text!r}")
    try:
        return name, json.loads(value)
    except json.JSONDecodeError:
        return name, value


def decoding_speed(run, pairs, config: DecodeConfig, device) -> tuple[float, str]:
    """Sentences/s, and the precision `--precision auto` chose for decoding, with its reason."""
    sources = list(dict.fromkeys(english for english, _ in pairs))[:SPEED_SENTENCES]
    translator = translator_for(run, TranslateOptions(decode=config, normalize=False), device)
    started = time.perf_counter()
    for _ in translator.translate(sources):
        pass
    return len(sources) / (time.perf_counter() - started), translator.precision_reason


def choose_length_penalty(run, selection, device, console: Console) -> float:
    """Pick α on 1,000 selection pairs; the test part is only used for the final figures."""
    scores = {}
    for alpha in PENALTIES:
        config = DecodeConfig(beam_size=5, length_penalty=alpha)
        scores[alpha] = evaluate_run(run, selection[:SPEED_SENTENCES], config, device).bleu
        console.print(
            f"length penalty {alpha}: selection BLEU {scores[alpha]:.2f}", highlight=False
        )
    return max(scores, key=scores.get)


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--budget", default="60m", help="Training wall-clock budget, e.g. 10m.")
    parser.add_argument("--recipe", default="default")
    harness.add_out(parser, Path("bench"), help="the prepared data, the run and results.json")
    harness.add_device(parser)
    parser.add_argument("--eval-every", type=int, default=0, help="Steps between selection checks.")
    harness.add_limit(parser, 0, help="Test pairs scored (0: all); for smoke runs.")
    parser.add_argument(
        "--shared-vocab",
        type=int,
        default=0,
        help="Prepare one joint vocabulary of this size (for change tie_embeddings=true).",
    )
    parser.add_argument(
        "--change",
        action="append",
        type=parse_change,
        default=[],
        metavar="OPTION=VALUE",
        help="A training option changed from the recipe, by field name (lr_decay=budget); "
        "repeatable.",
    )
    args = parser.parse_args(argv)
    console = Console(stderr=True)
    if not args.corpus.exists():
        raise SystemExit(
            f"bench: corpus {args.corpus} not found (run `make corpus` or `mt download`)"
        )
    device = resolve_device(args.device)
    budget = parse_duration(args.budget)

    started = time.perf_counter()
    prepare_corpus(
        args.corpus,
        out=args.out / "data",
        config=PrepareConfig(shared_vocab=args.shared_vocab),
        force=True,
    )
    prepare_seconds = time.perf_counter() - started
    prepared = load_prepared(args.out / "data")

    # About 15 selection checks over the budget at the default recipe's ~5 steps/s.
    eval_every = args.eval_every or max(200, int(budget / 15 * 5))
    summary = start_training(
        prepared_dir=args.out / "data",
        run_dir=args.out / "run",
        preset=args.recipe,
        changes={"time_budget": budget, "eval_every": eval_every, **dict(args.change)},
        device_name=args.device,
        threads=None,
        force=True,
        reporter=RichReporter(console),
    )
    rows = read_metrics(args.out / "run")
    # Rows that scored the whole selection part (with eval_sample the others scored a sample).
    whole = max(r.get("selection_pairs", 0) for r in rows)
    rows_whole = [r for r in rows if r.get("selection_pairs", 0) == whole]
    first = next((r for r in rows_whole if r["selection_accuracy"] >= GOAL_ACCURACY), None)
    first_any = next((r for r in rows if r["selection_accuracy"] >= GOAL_ACCURACY), None)
    reached = first["elapsed"] if first else None
    reached_training = first["elapsed"] - first["eval_seconds"] if first else None

    run = load_run(resolve(args.out / "run"), "best", device)
    test = prepared.read_part("test")[: args.limit or None]
    alpha = choose_length_penalty(run, prepared.read_part("selection"), device, console)
    greedy = evaluate_run(run, test, DecodeConfig(beam_size=1, length_penalty=0.0), device)
    beam = evaluate_run(
        run, test, DecodeConfig(beam_size=5, length_penalty=alpha), device, multi_ref=True
    )
    greedy_speed, decoding_precision = decoding_speed(run, test, DecodeConfig(beam_size=1), device)
    beam_speed, _ = decoding_speed(
        run, test, DecodeConfig(beam_size=5, length_penalty=alpha), device
    )
    results = {
        "machine": machine(),
        "threads": torch.get_num_threads(),
        "commit": harness.commit(),
        "recipe": args.recipe,
        "changes": dict(args.change),
        "shared_vocab": args.shared_vocab,
        "budget_seconds": budget,
        "prepare_seconds": prepare_seconds,
        "parameters": summary.parameters,
        "steps": summary.steps,
        "epochs": summary.epochs,
        "stop_reason": summary.stop_reason,
        "train_tokens_per_second": _mean([r["tokens_per_second"] for r in rows]),
        "padding_share": summary.padding_share,
        "precision": summary.precision,
        "evaluations": {
            "whole": len(rows_whole),
            "sample_only": len(rows) - len(rows_whole),
            "eval_seconds": rows[-1].get("eval_seconds"),
            "elapsed": rows[-1]["elapsed"],
        },
        "training_seconds_to_selection_accuracy_0.66_any_row": (
            first_any["elapsed"] - first_any["eval_seconds"] if first_any else None
        ),
        "seconds_to_selection_accuracy_0.66": reached,
        "training_seconds_to_selection_accuracy_0.66": reached_training,
        "best_selection_accuracy": max(r["selection_accuracy"] for r in rows_whole),
        "test_cross_entropy": beam.cross_entropy,
        "test_accuracy": beam.accuracy,
        "length_penalty": alpha,
        "greedy": _scores(greedy),
        "beam5": _scores(beam),
        "beam5_multi_reference": beam.multi_ref,
        "signature": beam.signatures,
        "greedy_sentences_per_second": greedy_speed,
        "beam5_sentences_per_second": beam_speed,
        "decoding_precision": decoding_precision,
        "thesis": THESIS,
    }
    (args.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print_table(results)
    return 0


def _changes(changes: dict[str, object]) -> str:
    return "".join(f" {name}={value}" for name, value in changes.items())


def _scores(report) -> dict[str, float]:
    return {"bleu": report.bleu, "chrf": report.chrf, "ter": report.ter}


def _mean(values: list[float]) -> float:
    values = [v for v in values if v > 0]
    return sum(values) / len(values) if values else 0.0


def print_table(r: dict) -> None:
    table = Table(
        title=f"mt bench: recipe {r['recipe']}{_changes(r.get('changes', {}))}, budget "
        f"{r['budget_seconds'] / 60:.0f} min, {r['machine']['cpu']} (flags "
        f"{' '.join(r['machine']['cpu_flags']) or 'none of avx2/avx512/amx'}, torch capability "
        f"{r['machine']['cpu_capability']}), {r['threads']} threads, commit {r['commit']}"
    )
    table.add_column("figure")
    table.add_column("mt", justify="right")
    table.add_column("thesis (large)", justify="right")
    reached = r["seconds_to_selection_accuracy_0.66"]
    training = r.get("training_seconds_to_selection_accuracy_0.66")  # absent before 2026-11-23
    if reached and training is not None:
        reached_text = f"{reached:,.0f} s ({training:,.0f} s training, evaluations excluded)"
    else:
        reached_text = f"{reached:,.0f} s" if reached else "not reached"
    rows = [
        ("prepare seconds", f"{r['prepare_seconds']:.1f}", ""),
        ("parameters", f"{r['parameters']:,}", "6,950,390"),
        ("training target tokens/s", f"{r['train_tokens_per_second']:,.0f}", ""),
        ("padding share", f"{r['padding_share']:.1%}", ""),
        ("epochs done", f"{r['epochs']:.2f}", "12"),
        ("training seconds", f"{r['budget_seconds']:,.0f}", "69,652"),
        ("selection accuracy 0.66 reached at", reached_text, ""),
        ("training precision", r.get("precision") or "not recorded", ""),
        ("selection evaluations: whole / sample only", _evaluations(r), ""),
        ("test cross-entropy (no smoothing)", f"{r['test_cross_entropy']:.3f}", "1.77"),
        ("test accuracy", f"{r['test_accuracy']:.3f}", "0.66"),
        ("test BLEU / chrF / TER, greedy", _triple(r["greedy"]), ""),
        (f"test BLEU / chrF / TER, beam 5 (α {r['length_penalty']})", _triple(r["beam5"]), ""),
        ("same, all references per English sentence", _triple(r["beam5_multi_reference"]), ""),
        ("decoding precision", r.get("decoding_precision") or "not recorded", ""),
        ("translate sentences/s, greedy", f"{r['greedy_sentences_per_second']:,.1f}", ""),
        ("translate sentences/s, beam 5", f"{r['beam5_sentences_per_second']:,.1f}", ""),
    ]
    for row in rows:
        table.add_row(*row)
    Console().print(table)
    print(f"sacrebleu: {r['signature']['bleu']}")


def _evaluations(r: dict) -> str:
    counts = r.get("evaluations")  # absent before the sampled evaluations
    if not counts:
        return "not recorded"
    share = (counts["eval_seconds"] or 0) / counts["elapsed"]
    return (
        f"{counts['whole']} / {counts['sample_only']} "
        f"({counts['eval_seconds']:,.0f} s, {share:.1%} of the elapsed time)"
    )


def _triple(scores: dict) -> str:
    return f"{scores['bleu']:.1f} / {scores['chrf']:.1f} / {scores['ter']:.1f}"


if __name__ == "__main__":
    sys.exit(main())
