"""Decided the confidence keeps its five features (docs/trust.md, "Other evidence").

Would more of the model's own evidence rank translations better than the confidence does now?

    python -m experiments.bench_confidence_features --run RUN \
        --calibrate-on PREPARED/selection.tsv --data PREPARED \
        [--domains ../shared/data/domains] [--threads 1]

The confidence (mt.quality.confidence) uses what the search already knows: the mean log-prob,
the length ratio, [UNK] pieces, the source length. Quality-estimation work (Fomicheva et al.,
"Unsupervised Quality Estimation for Neural Machine Translation", TACL 2020) also reads how the
log-prob is spread over the labels, the entropy of each step's distribution, Monte Carlo dropout,
and attention coverage. This benchmark measures whether those would help mt's models before the
translator pays for them: each output is translated greedily (as bench_trust does), then forced
through the PyTorch model again (one pass; five more with dropout on) to read

- label_std, label_min, label_low: spread of the labels' log-probs, the lowest, share below 0.1;
- entropy: mean entropy of the next-label distributions;
- dropout_log_prob, dropout_variance: mean log of the expected label probability over five
  dropout passes, and its variance (Fomicheva's D-TP and D-Var);
- coverage_deficit, coverage_excess: per source piece, how far the attention it got (last decoder
  layer, mean over heads, summed over the output) falls below or rises above 1;
- dropout_agreement: the source translated again greedily SAMPLES times with dropout on, the mean
  sentence chrF of those translations against the one given (Fomicheva's D-Lex-Sim, their
  strongest single feature: a model unsure of a sentence scatters its translations). It costs
  SAMPLES more searches, so it is measured here before any engine pays for it.

The line is forced as one sequence (the translator may have cut it into sentences), so these are
the line's figures, not the pieces'. Each feature set is fitted as `mt calibrate` fits (logistic
regression on mt.evaluate.calibrate's TARGET, the mean log-prob's weight kept >= 0) on the
calibration sentences and scored on bench_trust's sets (samples and seed): with --part dev, where
a choice of features is made, the selection part less the calibration sentences and each domain's
dev part; by default the test parts, for the record. Figures: Spearman with sentence chrF, and the
bad (chrF < 30) share of the least confident 10% over the rest's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from benchmarks.harness import describe, load_average
from benchmarks.trust.bench_trust import ranking_figures, sets, spearman
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.feed.batching import pad
from mt.data.prepared_dir import read_pairs
from mt.data.tokenization import BOS, EOS, PAD, encode_sources
from mt.decode.options import TranslateOptions
from mt.decode.translator import Translator, open_translator
from mt.evaluate.calibrate import (
    TARGET,
    TARGETS,
    grouped_references,
    sample_sources,
    sentence_chrf,
)
from mt.model.probes import model_mode
from mt.quality.confidence import FEATURES, MONOTONE, fit_logistic
from mt.text.cleaning import clean_text

EXTRA = (
    "label_std",
    "label_min",
    "label_low",
    "entropy",
    "dropout_log_prob",
    "dropout_variance",
    "coverage_deficit",
    "coverage_excess",
    "dropout_agreement",
)
NAMES = (*FEATURES, *EXTRA)
SETS = {
    "now": FEATURES,
    "+labels": (*FEATURES, "label_std", "label_min", "label_low"),
    "+entropy": (*FEATURES, "entropy"),
    "+dropout": (*FEATURES, "dropout_log_prob", "dropout_variance"),
    "+coverage": (*FEATURES, "coverage_deficit", "coverage_excess"),
    "+agreement": (*FEATURES, "dropout_agreement"),
    "all": NAMES,
}
DROPOUT_PASSES = 5
SAMPLES = 5
BATCH = 32


@torch.no_grad()
def forced_features(translator: Translator, sources: list[str], outputs: list[str]) -> np.ndarray:
    """EXTRA for each (source, output) line, from teacher-forced passes of the PyTorch model."""
    run, model = translator.run, translator.run.model
    rows = []
    limit = model.max_positions - 1  # labels after [BOS] that the positions hold
    for start in range(0, len(sources), BATCH):
        chunk = range(start, min(start + BATCH, len(sources)))
        src_ids = [run.source.encode(clean_text(sources[i])) for i in chunk]
        src = pad(encode_sources(src_ids, translator.model.max_src_len))
        tgt = [run.target.encode(clean_text(outputs[i]))[:limit] for i in chunk]
        tgt_in = pad([np.asarray([BOS, *t], dtype=np.int64) for t in tgt])
        tgt_out = pad([np.asarray([*t, EOS], dtype=np.int64) for t in tgt])
        mask = src != PAD
        lprobs = model(src, mask, tgt_in).float().log_softmax(-1)
        labels = lprobs.gather(-1, tgt_out[..., None])[..., 0]
        entropy = -(lprobs.exp() * lprobs).sum(-1)
        attention = model.cross_attention_map(src, mask, tgt_in).float()
        torch.manual_seed(0)
        with model_mode(model, training=True):
            sampled = torch.stack(
                [
                    model(src, mask, tgt_in).float().log_softmax(-1).gather(-1, tgt_out[..., None])
                    for _ in range(DROPOUT_PASSES)
                ]
            )[..., 0].exp()  # (passes, B, T) probabilities
        for row, t in enumerate(tgt):
            n, s = len(t) + 1, int(mask[row].sum()) - 1  # labels with [EOS]; source without
            lp = labels[row, :n].numpy()
            probs = sampled[:, row, :n].numpy()
            cover = attention[row, :n, :s].sum(0).numpy()
            rows.append(
                [
                    float(lp.std()),
                    float(lp.min()),
                    float((lp < np.log(0.1)).mean()),
                    float(entropy[row, :n].mean()),
                    float(np.log(probs.mean(0) + 1e-9).mean()),
                    float(probs.var(0).mean()),
                    float(np.clip(1 - cover, 0, None).mean()) if s else 0.0,
                    float(np.clip(cover - 1, 0, None).mean()) if s else 0.0,
                ]
            )
    return np.asarray(rows)


def features_and_chrf(
    translator: Translator, references: dict[str, list[str]]
) -> tuple[np.ndarray, np.ndarray]:
    """(N, len(NAMES)) features and the sentence chrF of each translated source."""
    sources = list(references)
    translations = list(translator.translate(sources))
    kept = [(s, t) for s, t in zip(sources, translations, strict=True) if t.evidence is not None]
    sources, outputs = [s for s, _ in kept], [t.text for _, t in kept]
    chrf = np.asarray(sentence_chrf(outputs, [references[s] for s in sources]))
    now = np.asarray([t.evidence.features() for _, t in kept])
    forced = forced_features(translator, sources, outputs)
    agreement = dropout_agreement(translator, sources, outputs)[:, None]
    return np.hstack([now, forced, agreement]), chrf


def dropout_agreement(translator: Translator, sources: list[str], outputs: list[str]) -> np.ndarray:
    """Mean sentence chrF / 100 of SAMPLES greedy translations with dropout on against `outputs`."""
    torch.manual_seed(0)
    with model_mode(translator.run.model, training=True):
        samples = [[t.text for t in translator.translate(sources)] for _ in range(SAMPLES)]
    references = [[output] for output in outputs]
    return np.mean([sentence_chrf(sample, references) for sample in samples], axis=0) / 100


def columns(names: tuple[str, ...]) -> list[int]:
    assert names[0] == MONOTONE  # fit_logistic keeps the first column's weight >= 0
    return [NAMES.index(name) for name in names]


def ranking(confidence: np.ndarray, chrf: np.ndarray) -> str:
    figures = ranking_figures(confidence, chrf)
    return f"{figures['spearman']:.3f} / {figures['bad_ratio']:.1f}x"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="a run directory (PyTorch)")
    parser.add_argument("--calibrate-on", type=Path, required=True, help="a selection.tsv")
    parser.add_argument("--data", type=Path, required=True, help="prepared: test or selection")
    parser.add_argument("--domains", type=Path, default=Path("../shared/data/domains"))
    parser.add_argument("--sentences", type=int, default=2000, help="calibration sample")
    parser.add_argument("--part", choices=("test", "dev"), default="test")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    translator = open_translator(
        resolve(args.run),
        TranslateOptions(decode=DecodeConfig(beam_size=1)),
        device="cpu",
        threads=args.threads,
    )
    print(f"machine: {describe(args.threads)}; load {load_average()}")
    references = grouped_references(read_pairs(args.calibrate_on))
    chosen = sample_sources(references, args.sentences, 0)
    x, chrf = features_and_chrf(translator, {s: references[s] for s in chosen})
    print(f"fitted on {len(chrf)} sentences of {args.calibrate_on}; Spearman of each feature:")
    print("  " + "  ".join(f"{n} {spearman(x[:, j], chrf):+.2f}" for j, n in enumerate(NAMES)))
    target = TARGETS[TARGET](chrf)
    models = {name: _fit(x[:, columns(names)], target) for name, names in SETS.items()}
    print("Spearman with chrF / least-confident-10% bad-share ratio, per feature set:")
    print(f"{'set':<12} {'n':>5}  " + "  ".join(f"{name:>14}" for name in SETS))
    same_part = args.calibrate_on.resolve() == (args.data / "selection.tsv").resolve()
    fitted = {"sentences": args.sentences, "seed": 0} if same_part else None
    for set_name, refs in sets(
        args.data, args.domains, 1000, 300, 1, part=args.part, calibrated_on=fitted
    ):
        x, chrf = features_and_chrf(translator, refs)
        cells = [ranking(models[name](x[:, columns(names)]), chrf) for name, names in SETS.items()]
        print(f"{set_name:<12} {len(chrf):>5}  " + "  ".join(f"{c:>14}" for c in cells))


def _fit(x: np.ndarray, target: np.ndarray):
    """mt calibrate's regression (mt.quality.confidence.fit_logistic) on these columns, the
    first being MONOTONE's: a function from features to confidence."""
    mean, scale, w, b = fit_logistic(x, target, monotone=0)
    return lambda q: 1.0 / (1.0 + np.exp(-(((q - mean) / scale) @ w + b)))


if __name__ == "__main__":
    main()
