"""Decided the reverse model stays out of the confidence (docs/general.md, "As a judge").

Does the reverse model rank translations better? The confidence's features with and without
the dual conditional cross-entropy (Junczys-Dowmunt 2018; mt.decode.dual), on a test file.

    python -m experiments.bench_dual_confidence --run RUN --reverse REVERSE_RUN \
        --calibrate-on PREPARED/selection.tsv --tsv ../shared/data/domains/news/news-dev.tsv

RUN translates English→Spanish (greedy); REVERSE (a run or export made with `mt prepare
--reverse`) gives log P(source | translation) per label. Each feature set is fitted as `mt
calibrate` fits (mt.quality.confidence.fit_logistic on sentence chrF / 100) on --calibrate-on's
first --limit sentences and scored on --tsv's: Spearman's rank correlation with sentence chrF.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.harness import describe, load_average
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.decode.dual import ReverseScorer
from mt.decode.options import TranslateOptions
from mt.decode.translator import Translator, open_translator
from mt.evaluate.calibrate import sentence_chrf
from mt.evaluate.testsets import read_tsv_set
from mt.quality.confidence import FEATURES, MONOTONE, dual_adequacy, fit_logistic

SETS = {
    "forward": list(FEATURES),
    "forward + reverse log-prob": [*FEATURES, "reverse_mean_log_prob"],
    "forward + dual adequacy": [*FEATURES, "dual_adequacy"],
}


def table(translator: Translator, scorer: ReverseScorer, tsv: Path, limit: int) -> pd.DataFrame:
    """One row a sentence of `tsv`: every feature and the sentence chrF."""
    test = read_tsv_set(tsv).head(limit)
    translations = list(translator.translate(test.sources))
    rows = [(s, r, t) for s, r, t in zip(test.sources, test.references, translations, strict=True)
            if t.evidence is not None]  # fmt: skip
    frame = pd.DataFrame([t.evidence.features() for _, _, t in rows], columns=list(FEATURES))
    reverse = scorer.mean_log_probs([s for s, _, _ in rows], [t.text for _, _, t in rows])
    frame["reverse_mean_log_prob"] = reverse
    frame["dual_adequacy"] = [
        dual_adequacy(t.evidence.mean_log_prob, r)
        for (_, _, t), r in zip(rows, reverse, strict=True)
    ]
    frame["chrf"] = sentence_chrf([t.text for _, _, t in rows], [r for _, r, _ in rows])
    return frame


def spearman(fit: pd.DataFrame, test: pd.DataFrame, names: list[str]) -> float:
    target = np.clip(fit["chrf"].to_numpy() / 100, 0, 1)
    mean, scale, w, b = fit_logistic(fit[names].to_numpy(), target, monotone=names.index(MONOTONE))
    scores = ((test[names].to_numpy() - mean) / scale) @ w + b
    # Spearman's rho: Pearson's of the ranks (pandas' own needs scipy)
    return float(pd.Series(scores).rank().corr(test["chrf"].reset_index(drop=True).rank()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", type=Path, required=True)
    parser.add_argument("--reverse", type=Path, required=True)
    parser.add_argument("--calibrate-on", type=Path, required=True)
    parser.add_argument("--tsv", type=Path, action="append", required=True)
    parser.add_argument("--limit", type=int, default=1000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    print(describe(args.threads), f"load {load_average()}")
    started = time.perf_counter()
    options = TranslateOptions(decode=DecodeConfig(beam_size=1), normalize=False)
    translator = open_translator(resolve(args.run), options, device="cpu", threads=args.threads)
    scorer = ReverseScorer(resolve(args.reverse), threads=args.threads)
    fit = table(translator, scorer, args.calibrate_on, args.limit)
    for tsv in args.tsv:
        test = table(translator, scorer, tsv, args.limit)
        figures = ", ".join(
            f"{name} {spearman(fit, test, names):.3f}" for name, names in SETS.items()
        )
        print(f"{tsv.name} ({len(test)} sentences, fitted on {len(fit)}): Spearman with sentence "
              f"chrF: {figures}")  # fmt: skip
    print(f"{time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
