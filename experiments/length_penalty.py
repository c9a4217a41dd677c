"""Decided the length penalty a shipped model decodes with, on the dev part (docs/release.md,
"Link 7": α 1.4 in en-es-general-8's decode.json).

The default α 0 was chosen on the Tatoeba selection part (docs/recipe.md), whose sentences are
short; general text is not. The dev part of bench_general (news-test2008, TICO-19 and XQuAD dev,
the Tatoeba selection part, the domains' dev samples), translated as bench_general translates it
(beam 5), once for each α: BLEU, chrF and the output's length against the reference's, side by
side. The outputs are written too, so that a choice can be read, not only scored.

    python -m experiments.length_penalty --run en-es-general-7 --tatoeba runs/tatoeba-split \\
        --alphas 0 0.6 1.0 --out bench/length-penalty
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.quality.bench_general import add_sets, general_mean, sets
from mt.catalog.modelinfo import DEFAULT_MODEL, resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores
from mt.export.int8_copy import int8_copy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", default=DEFAULT_MODEL)
    add_sets(parser)
    parser.add_argument("--alphas", type=float, nargs="+", default=[0.0, 0.6, 1.0])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--rescore", action="store_true", help="score the outputs in --out again, no decoding"
    )
    parser.add_argument(
        "--int8",
        action="store_true",
        help="search a shipped model's int8 CTranslate2 copy, as `mt translate` does on a CPU",
    )
    parser.add_argument("--out", type=Path, default=Path("bench/length-penalty"))
    args = parser.parse_args(argv)
    print(harness.machine_line(args.threads))
    chosen = sets(args.general, args.domains, args.tatoeba, "dev", 1000)
    figures: dict[str, dict[str, dict[str, float]]] = {}
    args.out.mkdir(parents=True, exist_ok=True)
    for alpha in args.alphas:
        decode = DecodeConfig(beam_size=5, batch_size=32, length_penalty=alpha)
        if not args.rescore:
            info = resolve(args.run)
            copy = int8_copy(info) if args.int8 else None
            options = TranslateOptions(decode=decode)
            translator = open_translator(info, options, threads=args.threads, ct2_model=copy)
        started = time.perf_counter()
        row: dict[str, dict[str, float]] = {}
        for name, pairs in chosen.items():
            written = args.out / f"{name}.alpha-{alpha:g}.txt"
            if args.rescore:
                output = written.read_text().splitlines()
            else:
                english = [source for source, _ in pairs]
                output = [" ".join(t.text.split()) for t in translator.translate(english)]
                written.write_text("\n".join(output) + "\n")
            scores = corpus_scores(output, [[target] for _, target in pairs])
            half = len(pairs) // 2
            row[name] = {
                "bleu": scores.bleu,
                "chrf": scores.chrf,
                "length": _ratio(output, pairs),
                # the set's halves in its order (documents stay whole): does a choice hold on both?
                "halves": [
                    corpus_scores(output[part], [[t] for _, t in pairs[part]]).bleu
                    for part in (slice(0, half), slice(half, None))
                ],
            }
        seconds = time.perf_counter() - started
        mean = general_mean({name: f["bleu"] for name, f in row.items()})
        halves = [general_mean({name: f["halves"][h] for name, f in row.items()}) for h in (0, 1)]
        figures[f"{alpha:g}"] = row
        each = (f"{name} {f['bleu']:.2f} (len {f['length']:.3f})" for name, f in row.items())
        print(
            f"alpha {alpha:g}: general mean {mean:.2f} (halves {halves[0]:.2f} / {halves[1]:.2f}); "
            + ", ".join(each)
            + ("" if args.rescore else f"; {seconds:.0f} s"),
            flush=True,
        )
    engine = "int8 CTranslate2 copy" if args.int8 else "PyTorch"
    out = {"run": args.run, "part": "dev", "beam": 5, "engine": engine, "alphas": figures}
    (args.out / ("dev-rescored.json" if args.rescore else "dev.json")).write_text(
        json.dumps(out, indent=1) + "\n"
    )
    return 0


def _ratio(output: list[str], pairs: list[tuple[str, str]]) -> float:
    """Words out against words in the references: under 1, the output is the shorter."""
    return sum(len(line.split()) for line in output) / sum(len(t.split()) for _, t in pairs)


if __name__ == "__main__":
    raise SystemExit(main())
