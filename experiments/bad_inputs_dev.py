"""Decided issue 76's bounds cost the careful, casual and real-typing figures nothing (docs/text.md)

Careful, casual and real typing through the shipped model on a fixed subset, for issue 76's
non-regression check (the full `make bench-text` needs a prepared selection part and hours on 2
cores): BLEU of each, and every output, so two trees can be compared line by line.

    PYTHONPATH=src python -m experiments.bad_inputs_dev --out before.json [--per-file 60]

The subset: the first --per-file pairs of every 40th line of Tatoeba (../shared/data/spa-eng.tsv)
and of each dev file of runs/model-split/dev and runs/model-general/dev; casual typing is
mt.text.casual's variant (seed 0), real typing benchmarks/text/real_typing.py's development half
(seed 0); greedy, the shipped model with its default options (normalisation on).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import sacrebleu

import mt
from benchmarks.text.real_typing import DEVELOPMENT, real_variants
from mt.text.casual import casual_variants

ROOT = Path(__file__).resolve().parent.parent


def _pairs(path: Path, limit: int, every: int) -> list[tuple[str, str]]:
    pairs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        parts = line.split("\t")
        if number % every == 0 and len(parts) >= 2 and parts[0].strip() and parts[1].strip():
            pairs.append((parts[0], parts[1]))
        if len(pairs) == limit:
            break
    return pairs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--per-file", type=int, default=60)
    parser.add_argument("--runs", type=Path, default=Path("/work/main/runs"))
    parser.add_argument("--tatoeba", type=Path, default=ROOT.parent / "shared/data/spa-eng.tsv")
    args = parser.parse_args()
    files = [(args.tatoeba, 40)] + [
        (path, 1) for path in sorted(args.runs.glob("model-*/dev/*.tsv"))
    ]
    pairs = [pair for path, every in files for pair in _pairs(path, args.per_file, every)]
    english = [source for source, _ in pairs]
    references = [target for _, target in pairs]
    translator = mt.load(beam_size=1)
    sets = {
        "careful": english,
        "casual": casual_variants(english, 0),
        "real typing": real_variants(english, 0, DEVELOPMENT),
    }
    report: dict[str, object] = {"pairs": len(pairs)}
    for name, lines in sets.items():
        outputs = translator.translate(lines)
        bleu = sacrebleu.corpus_bleu(outputs, [references]).score
        report[name] = {"bleu": round(bleu, 2), "outputs": outputs}
        print(f"{name}: {len(lines)} lines, BLEU {bleu:.2f}", flush=True)
    args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
