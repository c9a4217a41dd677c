"""`make bench-domain`: how well runs translate each domain of the shared development data.

    python -m benchmarks.quality.bench_domain --run base=bench/run --run tuned-30m=runs/tuned \
        --tatoeba bench/data [--domains ../shared/data/domains] [--limit 500] [--beam 1]

Each run translates --part (test, or dev: where choices are made) of our own by-document split
(mt.recipes.domain_split: neither part's documents were trained on) of Python docs, tldr,
LibreOffice help and news, a seeded sample of at most --limit pairs per domain, and the same
sample of the Tatoeba test part of --tatoeba (its selection part with --part dev).
Entries are translated as `mt translate` does (cut into sentences, joined back). It prints BLEU
and chrF (sacrebleu, detokenized) per domain, the run's training minutes and steps (from its
metrics.csv), and the machine, then BLEU on the pairs whose Spanish differs from the English
(the copied ones, code and names, are free points); --json writes the same figures.
"""

from __future__ import annotations

import csv
import json
import random
import sys
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores
from mt.recipes.domain_split import DOMAINS, split_parts


def samples(
    domains: Path, tatoeba: Path, limit: int, seed: int, part: str = "test"
) -> dict[str, list[tuple]]:
    """(english, spanish) pairs of `part` ("test" or "dev") per domain, and "tatoeba" (its test
    or selection part), seeded and at most `limit`."""
    parts = {}
    for domain in DOMAINS:
        pairs = getattr(split_parts(domain, domains), part)
        parts[domain] = [(pair.english, pair.spanish) for pair in pairs]
    parts["tatoeba"] = read_pairs(tatoeba / ("test.tsv" if part == "test" else "selection.tsv"))
    chosen = {}
    for name, pairs in parts.items():
        order = random.Random(f"{seed}:{name}").sample(range(len(pairs)), min(limit, len(pairs)))
        chosen[name] = [pairs[index] for index in sorted(order)]
    return chosen


def training_figures(run: Path) -> dict[str, float]:
    """Minutes and steps of the run's training, from the last row of its metrics.csv."""
    path = run / "metrics.csv"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if not rows:
        return {}
    last = rows[-1]
    return {"minutes": float(last["elapsed"]) / 60, "steps": int(float(last["step"]))}


def score_run(run: Path, parts: dict[str, list[tuple]], beam: int) -> dict[str, dict]:
    translator = open_translator(
        resolve(run), TranslateOptions(decode=DecodeConfig(beam_size=beam, batch_size=64))
    )
    scores = {}
    for name, pairs in parts.items():
        started = time.perf_counter()
        outputs = [t.text for t in translator.translate([english for english, _ in pairs])]
        figures = corpus_scores(outputs, [[spanish] for _, spanish in pairs])
        # Pairs the source left as they are (code, names, commands) are copied for free.
        kept = [i for i, (english, spanish) in enumerate(pairs) if english != spanish]
        translated = corpus_scores([outputs[i] for i in kept], [[pairs[i][1]] for i in kept])
        scores[name] = {
            "bleu": figures.bleu,
            "chrf": figures.chrf,
            "pairs": len(pairs),
            "bleu_translated": translated.bleu,
            "chrf_translated": translated.chrf,
            "translated_pairs": len(kept),
            "seconds": time.perf_counter() - started,
        }
    return scores


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--run", action="append", required=True, help="LABEL=RUN_DIR, repeatable")
    parser.add_argument("--tatoeba", type=Path, required=True, help="the base's prepared data")
    harness.add_domains(parser)
    harness.add_limit(parser, 500, help="pairs a domain at most (a seeded sample)")
    harness.add_beam(parser, 1)
    parser.add_argument("--seed", type=int, default=0)
    harness.add_out(parser, None, flag="--json", help="the figures as JSON")
    harness.add_part(parser)
    args = parser.parse_args(argv)
    if not args.domains.is_dir():
        raise SystemExit(f"{args.domains}: the shared domain data is absent (see ../shared)")
    console = Console()
    console.print(harness.machine_line(torch.get_num_threads()))
    torch.manual_seed(args.seed)
    parts = samples(args.domains, args.tatoeba, args.limit, args.seed, args.part)
    results = {}
    for spec in args.run:
        label, _, path = spec.partition("=")
        run = Path(path)
        results[label] = {"run": str(run), **training_figures(run)}
        results[label]["scores"] = score_run(run, parts, args.beam)
        seconds = sum(score["seconds"] for score in results[label]["scores"].values())
        console.print(f"{label}: scored in {seconds:.0f} s")
    table = Table(title=f"BLEU / chrF, {'greedy' if args.beam == 1 else f'beam {args.beam}'}")
    table.add_column("run")
    for name in (*DOMAINS, "tatoeba"):
        table.add_column(f"{name} ({len(parts[name])})", justify="right")
    table.add_column("minutes", justify="right")
    table.add_column("steps", justify="right")
    for label, result in results.items():
        cells = [f"{s['bleu']:.1f} / {s['chrf']:.1f}" for s in result["scores"].values()]
        minutes, steps = result.get("minutes"), result.get("steps")
        table.add_row(
            label, *cells, f"{minutes:.1f}" if minutes else "", str(steps) if steps else ""
        )
    console.print(table)
    console.print(
        "pairs whose Spanish differs from the English (BLEU):",
        *(
            f"{label}: "
            + ", ".join(
                f"{name} {score['bleu_translated']:.1f} ({score['translated_pairs']})"
                for name, score in result["scores"].items()
            )
            for label, result in results.items()
        ),
        sep="\n",
    )
    if args.json:
        machine = harness.describe(torch.get_num_threads())
        figures = {"machine": machine, "part": args.part, "runs": results}
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
