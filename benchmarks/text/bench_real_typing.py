"""`make bench-text`, real typing: how `mt translate` does on English typed with misspellings people
really made (benchmarks/text/real_typing.py: codespell's list, not our own noise model).

    python -m benchmarks.text.bench_real_typing --run runs/demo --data runs/demo-data \\
        [--part selection|test] [--limit 2000] [--head] [--beam 1] [--more-seeds 4] [--json FILE]

On a seeded sample (seed 0) of --limit pairs of the Tatoeba --part (selection: the development
part, with the list's development half; test: scored once, with the other half), greedy as
bench_text's casual table unless --beam says otherwise, it prints BLEU and chrF, without and with
input normalisation (--no-normalize / --normalize, the default), of the clean sentences, of the
same lower-cased without final punctuation, and of the real-typing variant (that, with real
misspellings), and how many misspelt sentences the normaliser gives back as it gives back their
correctly spelt version. The target: real typing,
normalised, within GAP_TARGET BLEU of clean input. One seed's misspellings fall on a few dozen
sentences, so --more-seeds K also scores the real-typing variants of the next K seeds (normalised)
and prints each one's gap and repairs and their mean: what tells two normalisers apart. The
figures go to --json (benchmarks/harness.py: machine, commit, date, command); the exit status is 1
on a miss.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch

from benchmarks import harness
from benchmarks.harness import Target, report
from benchmarks.text.real_typing import DEVELOPMENT, RATE, TEST, real_variants
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.run_tables import normalizer_for
from mt.decode.translator import Translator, open_translator
from mt.errors import MtError
from mt.evaluate.scores import corpus_scores
from mt.text.casual import without_final_punctuation

GAP_TARGET = 1.0
"""BLEU that real typing, normalised, may lose against clean input (issue 42)."""
HALVES = {"selection": DEVELOPMENT, "test": TEST}


def sample(data: Path, part: str, limit: int, *, head: bool = False) -> list[tuple[str, str]]:
    """--limit pairs of the part, chosen with seed 0 as bench_text chooses them, or its first
    --limit (--head: runs/model-parts, whose first 1,000 pairs are the Tatoeba pairs held out of
    the shipped model's training; most of runs/tatoeba-split's parts are in that training)."""
    pairs = read_pairs(data / f"{part}.tsv")
    if head:
        return pairs[:limit]
    order = np.random.default_rng(0).permutation(len(pairs))[:limit]
    return [pairs[i] for i in sorted(order)]


def scored(translator: Translator, sources: list[str], refs: list[str]) -> dict[str, float]:
    started = time.perf_counter()
    outputs = [t.text for t in translator.translate(sources)]
    seconds = time.perf_counter() - started
    scores = corpus_scores(outputs, [[ref] for ref in refs])
    return {"bleu": scores.bleu, "chrf": scores.chrf, "lines/s": len(sources) / seconds}


def misspelt_words(typed: list[str], lowered: list[str]) -> tuple[int, int, int]:
    """(words, misspelt words, sentences with one): the variants differ only in spelling."""
    words = misspelt = sentences = 0
    for real, plain in zip(typed, lowered, strict=True):
        pairs = list(zip(re.findall(r"\S+", real), re.findall(r"\S+", plain), strict=True))
        wrong = sum(a != b for a, b in pairs)
        words, misspelt, sentences = words + len(pairs), misspelt + wrong, sentences + bool(wrong)
    return words, misspelt, sentences


def measure(args: argparse.Namespace) -> dict:
    """Every row's scores, the variant's statistics, and the normaliser's repairs."""
    pairs = sample(args.data, args.part, args.limit, head=args.head)
    clean, refs = [en for en, _ in pairs], [es for _, es in pairs]
    lowered = [without_final_punctuation(text.lower()) for text in clean]
    typed = real_variants(clean, args.seed, HALVES[args.part])
    words, misspelt, sentences = misspelt_words(typed, lowered)
    normalise = normalizer_for(args.run)
    options = TranslateOptions(decode=DecodeConfig(beam_size=args.beam))
    translator = open_translator(resolve(args.run), options, device="cpu")
    rows = {}
    for name, sources in (("clean", clean), ("lower, no final punctuation", lowered),
                          ("real typing", typed)):  # fmt: skip
        for normalize in (False, True):
            variant = translator.with_options(replace(options, normalize=normalize))
            row = f"{name}, {'--normalize' if normalize else '--no-normalize'}"
            rows[row] = scored(variant, sources, refs)
            print(f"{row:<45} BLEU {rows[row]['bleu']:6.2f}  chrF {rows[row]['chrf']:6.2f}",
                  flush=True)  # fmt: skip
    real_typing = rows["real typing, --normalize"]
    seeds = [_seed_figures(args.seed, typed, lowered, normalise, rows, real_typing)]
    normalised = translator.with_options(replace(options, normalize=True))
    for seed in range(args.seed + 1, args.seed + 1 + args.more_seeds):
        variants = real_variants(clean, seed, HALVES[args.part])
        scores = scored(normalised, variants, refs)
        seeds.append(_seed_figures(seed, variants, lowered, normalise, rows, scores))
        print(f"seed {seed}: gap {seeds[-1]['gap']:.2f}, repairs {seeds[-1]['repaired']} of "
              f"{seeds[-1]['misspelt_sentences']}", flush=True)  # fmt: skip
    return {
        "seeds": seeds,
        "mean_gap": sum(s["gap"] for s in seeds) / len(seeds),
        "part": args.part,
        "pairs": len(pairs),
        "data": str(args.data),
        "chosen": "first" if args.head else "sample, seed 0",
        "beam": args.beam,
        "seed": args.seed,
        "rate": RATE,
        "words": words,
        "misspelt_words": misspelt,
        "sentences_with_a_misspelling": sentences,
        "misspelt_sentences_the_normaliser_repairs": seeds[0]["repaired"],
        "rows": rows,
    }


def _seed_figures(
    seed: int,
    typed: list[str],
    lowered: list[str],
    normalise: Callable[[str], str],
    rows: dict[str, dict[str, float]],
    scores: dict[str, float],
) -> dict:
    """A seed's gap to clean input (`scores`: its real typing's, normalised) and repairs."""
    misspelt = [(real, plain) for real, plain in zip(typed, lowered, strict=True) if real != plain]
    return {
        "seed": seed,
        "bleu": scores["bleu"],
        "gap": rows["clean, --normalize"]["bleu"] - scores["bleu"],
        "misspelt_sentences": len(misspelt),
        "repaired": sum(normalise(real) == normalise(plain) for real, plain in misspelt),
    }


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser, default=Path("runs/demo"))
    harness.add_data(parser, default=Path("runs/demo-data"))
    harness.add_part(parser, choices=("selection", "test"), default="selection")
    harness.add_limit(parser, 2000, help="pairs sampled (seed 0)")
    harness.add_beam(parser, 1)
    parser.add_argument("--seed", type=int, default=0, help="seed of the misspellings")
    parser.add_argument(
        "--more-seeds", type=int, default=0, help="further seeds whose real typing is scored too"
    )
    parser.add_argument(
        "--head", action="store_true", help="the part's first --limit pairs, not a sample"
    )
    harness.add_threads(parser)
    harness.add_out(parser, None, flag="--json", help="default bench/text/real-PART.json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:  # a shipped model's name ("en-es-general-12") or a run's directory
        args.run = resolve(args.run).directory
    except MtError as error:
        raise SystemExit(f"{error} (make demo trains runs/demo)") from None
    if not (args.data / f"{args.part}.tsv").exists():
        raise SystemExit(f"{args.data / f'{args.part}.tsv'} is missing (make demo prepares it)")
    print(harness.machine_line(args.threads))
    figures = measure(args)
    print(
        f"{figures['misspelt_words']} of {figures['words']} words misspelt, in "
        f"{figures['sentences_with_a_misspelling']} of {figures['pairs']} sentences; the "
        f"normaliser repairs {figures['misspelt_sentences_the_normaliser_repairs']} of them"
    )
    gap = figures["seeds"][0]["gap"]
    if args.more_seeds:
        print(f"mean gap over seeds {args.seed}-{args.seed + args.more_seeds}: "
              f"{figures['mean_gap']:.2f}")  # fmt: skip
    checks = [Target(f"{args.part}: BLEU clean - real typing, --normalize", gap, "<=", GAP_TARGET)]
    json_path = args.json or Path("bench/text") / f"real-{args.part}.json"
    return report(json_path, figures, checks, threads=args.threads)


if __name__ == "__main__":
    sys.exit(main())
