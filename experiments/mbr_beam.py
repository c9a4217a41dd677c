"""Decided minimum Bayes risk over the beam is not built (docs/release.md, "Minimum Bayes risk
over the beam, tried").

The dev part of bench_general, translated as bench_general translates it (beam 5, the model's own
length penalty), with the beam's five finished hypotheses kept (n-best 5). Each line's output is
then chosen three ways: the search's best (what mt gives today); the hypothesis with the highest
mean sentence chrF against the other four (MBR, Kumar & Byrne 2004; Freitag et al. 2022 with
chrF as the utility); the same with sentence BLEU. Corpus BLEU and chrF of each, side by side.

    python -m experiments.mbr_beam --run en-es-general-12 --tatoeba runs/tatoeba-split \\
        --out bench/mbr
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from sacrebleu.metrics import BLEU, CHRF

from benchmarks import harness
from benchmarks.quality.bench_general import add_sets, general_mean, sets
from mt.catalog.modelinfo import DEFAULT_MODEL, resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default=DEFAULT_MODEL)
    add_sets(parser)
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("bench/mbr"))
    args = parser.parse_args(argv)
    print(harness.machine_line(args.threads))
    decode = DecodeConfig(beam_size=args.beam, n_best=args.beam, batch_size=32)
    translator = open_translator(
        resolve(args.run), TranslateOptions(decode=decode), threads=args.threads
    )
    chrf, bleu = CHRF(), BLEU(effective_order=True)
    utilities: dict[str, Callable[[str, str], float]] = {
        "mbr-chrf": lambda hyp, ref: chrf.sentence_score(hyp, [ref]).score,
        "mbr-bleu": lambda hyp, ref: bleu.sentence_score(hyp, [ref]).score,
    }
    figures: dict[str, dict[str, dict[str, float]]] = {}
    for name, pairs in sets(args.general, args.domains, args.tatoeba, "dev", 1000).items():
        english = [source for source, _ in pairs]
        candidates = [[text for text, _ in t.hypotheses] for t in translator.translate(english)]
        chosen = {"beam": [found[0] if found else "" for found in candidates]}
        for way, utility in utilities.items():
            chosen[way] = [_minimum_risk(found, utility) for found in candidates]
        references = [[target] for _, target in pairs]
        figures[name] = {}
        for way, output in chosen.items():
            scores = corpus_scores(output, references)
            figures[name][way] = {"bleu": scores.bleu, "chrf": scores.chrf}
        row = ", ".join(
            f"{way} {f['bleu']:.2f}/{f['chrf']:.2f}" for way, f in figures[name].items()
        )
        print(f"{name}: {row}", flush=True)
    for way in ("beam", *utilities):
        mean = general_mean({name: f[way]["bleu"] for name, f in figures.items()})
        print(f"{way}: general mean BLEU {mean:.2f}")
    args.out.mkdir(parents=True, exist_ok=True)
    out = {"run": args.run, "part": "dev", "beam": args.beam, "sets": figures}
    (args.out / "dev.json").write_text(json.dumps(out, indent=1) + "\n")
    return 0


def _minimum_risk(candidates: Sequence[str], utility: Callable[[str, str], float]) -> str:
    """The candidate with the highest mean utility against the others (the first of a tie)."""
    if len(candidates) < 2:
        return candidates[0] if candidates else ""
    expected = [
        sum(utility(hyp, other) for j, other in enumerate(candidates) if j != i)
        for i, hyp in enumerate(candidates)
    ]
    return candidates[expected.index(max(expected))]


if __name__ == "__main__":
    raise SystemExit(main())
