"""`make bench-everyday`: everyday sentences, the corpus's held-out ones and those of them with no
near-duplicate in training (benchmarks/quality/everyday.py), for several models side by side and
Apertium (issue 51: Tatoeba's score must not come from recall of neighbours).

    python -m benchmarks.quality.bench_everyday --runs runs/shipped-v1 en-es-general-4 \\
        [--parts runs/model-parts] [--training runs/model-data/train.tsv] [--part selection|test]

The held-out Tatoeba pairs are the first 1,000 of runs/model-parts' part (selection: where
choices are made; test: scored once, for the record), whose English is in no training pair. The
training English is that of the prepared part the models trained on, back-translations left out.
Target, with two --runs or more: the last (the one shipped) scores no lower on the sentences
with no near-duplicate than the first (the version it must not lose to), beam 5. Exit status 1
on a miss.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, report
from benchmarks.quality.bench_general import APERTIUM, apertium
from benchmarks.quality.everyday import NEAR, novel
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores

HELD_OUT_TATOEBA = 1000
"""runs/model-parts' parts start with this many Tatoeba pairs (mt.recipes.model_parts)."""


def training_english(path: Path) -> list[str]:
    """The English written by people of a prepared training part (no back-translations)."""
    from mt.data.prepare.synthetic import is_synthetic

    return [english for english, _ in read_pairs(path) if not is_synthetic(english)]


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--runs", nargs="+", required=True, help="models: the baseline first")
    parser.add_argument("--parts", type=Path, default=Path("runs/model-parts"))
    parser.add_argument("--training", type=Path, default=Path("runs/model-data/train.tsv"))
    harness.add_part(parser, choices=("selection", "test"), default="selection")
    harness.add_beam(parser, 5)
    parser.add_argument("--near", type=float, default=NEAR, help="near-duplicate similarity")
    parser.add_argument("--apertium", default=APERTIUM, help="the peer's command line")
    harness.add_threads(parser, torch.get_num_threads())
    harness.add_out(parser, Path("bench/everyday"), help="PART.json goes here")
    args = parser.parse_args(argv)
    for needed in (args.parts / f"{args.part}.tsv", args.training):
        if not needed.exists():
            raise SystemExit(f"bench-everyday: {needed} is absent (make model writes it)")
    console = Console()
    console.print(harness.machine_line(args.threads))
    held_out = read_pairs(args.parts / f"{args.part}.tsv")[:HELD_OUT_TATOEBA]
    sets = {
        "held out": held_out,
        "no near-duplicate": novel(held_out, training_english(args.training), near=args.near),
    }
    if not sets["no near-duplicate"]:
        raise SystemExit(f"bench-everyday: every held-out pair has a near-duplicate at {args.near}")
    options = TranslateOptions(decode=DecodeConfig(beam_size=args.beam, batch_size=32))
    engines = {
        str(run): lambda lines, run=run: [
            t.text
            for t in open_translator(resolve(run), options, threads=args.threads).translate(lines)
        ]
        for run in args.runs
    }
    engines["Apertium"] = lambda lines: apertium(lines, args.apertium)
    figures: dict[str, dict] = {name: {"pairs": len(pairs)} for name, pairs in sets.items()}
    english = list(dict.fromkeys(en for en, _ in held_out))
    for engine, translate in engines.items():
        outputs = dict(zip(english, translate(english), strict=True))
        for name, pairs in sets.items():
            scores = corpus_scores([outputs[en] for en, _ in pairs], [[es] for _, es in pairs])
            figures[name][engine] = {"bleu": scores.bleu, "chrf": scores.chrf}
        console.print(f"{engine}: " + ", ".join(
            f"{name} {figures[name][engine]['bleu']:.2f}" for name in sets
        ))  # fmt: skip
    table = Table(title=f"everyday sentences, {args.part} part: BLEU / chrF (beam {args.beam})")
    table.add_column("model")
    for name in sets:
        table.add_column(f"{name} ({figures[name]['pairs']})", justify="right")
    for engine in engines:
        table.add_row(engine, *(
            f"{figures[name][engine]['bleu']:.1f} / {figures[name][engine]['chrf']:.1f}"
            for name in sets
        ))  # fmt: skip
    console.print(table)
    first, last = str(args.runs[0]), str(args.runs[-1])
    novel_bleu = {engine: figures["no near-duplicate"][engine]["bleu"] for engine in (first, last)}
    targets = [  # one model alone is measured, not compared
        Target(f"no near-duplicate: {last} - {first} BLEU", novel_bleu[last] - novel_bleu[first],
               ">=", 0.0)
    ] if len(args.runs) > 1 else []  # fmt: skip
    out = {"part": args.part, "beam": args.beam, "near": args.near, "sets": figures}
    return report(args.out / f"{args.part}.json", out, targets, threads=args.threads)


if __name__ == "__main__":
    sys.exit(main())
