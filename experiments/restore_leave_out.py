"""Decided version 7's rules for capitals and a question's mark (docs/text.md, "Version 7").

How often the normaliser gives back a Tatoeba sentence typed in lower case without its final
mark, on thousands of sentences rather than the 1,000 held-out dev pairs (issue 51: real typing).

    python -m experiments.restore_leave_out --train runs/human-data/train.tsv \\
        --corpus data/spa-eng.tsv [--folds 5] [--per-fold 2000] [--show 40]

The training English written by people (each distinct sentence once, as words.tsv counts it) is
cut in --folds by a seeded shuffle of its Tatoeba sentences; for each fold the word statistics are
counted without it, and --per-fold of its sentences are lower-cased, lose their final marks and
are normalised. A sentence is given back when the result equals it. The misses are sorted into
kinds (a wrong final mark, a wrong capital, a line the normaliser left as typed, other) and the
commonest shown: what a change to the normaliser's rules must fix, measured without the dev or
test pairs of bench_real_typing. Only the casing and the mark: translation is not run.
"""

from __future__ import annotations

import argparse
import random
from collections import Counter
from pathlib import Path

from mt.data.prepare.synthetic import is_synthetic
from mt.data.prepared_dir import read_pairs
from mt.text import normalize as normalize_module
from mt.text.casual import without_final_punctuation
from mt.text.normalize import Normalizer
from mt.text.wordstats import build_word_stats


def kind_of_miss(original: str, restored: str, typed: str) -> str:
    if restored == typed:
        return "left as typed"
    if restored[:-1] == original[:-1] and restored[-1:] != original[-1:]:
        return f"mark {original[-1:]} -> {restored[-1:]}"
    if restored.lower() == original.lower():
        pairs = zip(restored, original, strict=True)
        added = any(r.isupper() and not o.isupper() for r, o in pairs)
        return "capital added" if added else "capital missed"
    return "other"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--per-fold", type=int, default=2000)
    parser.add_argument("--show", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--max-words", type=int, default=0, help="only sentences this short (the held-out pairs')"
    )
    parser.add_argument(
        "--capitalised", type=float, default=None, help="normalize.CAPITALISED to try instead"
    )
    args = parser.parse_args(argv)
    if args.capitalised is not None:
        normalize_module.CAPITALISED = args.capitalised

    tatoeba = {english for english, _ in read_pairs(args.corpus)}
    human = list(dict.fromkeys(e for e, _ in read_pairs(args.train) if not is_synthetic(e)))
    everyday = [e for e in human if e in tatoeba]
    if args.max_words:
        everyday = [e for e in everyday if len(e.split()) <= args.max_words]
    random.Random(args.seed).shuffle(everyday)
    print(f"{len(human):,} distinct training sentences by people, {len(everyday):,} of Tatoeba")
    kinds: Counter[str] = Counter()
    examples: dict[str, list[tuple[str, str]]] = {}
    given_back = total = 0
    for fold in range(args.folds):
        held = set(everyday[fold :: args.folds])
        normalize = Normalizer.from_stats(build_word_stats(e for e in human if e not in held))
        for original in everyday[fold :: args.folds][: args.per_fold]:
            typed = without_final_punctuation(original.lower())
            restored = normalize(typed)
            total += 1
            if restored == original:
                given_back += 1
                continue
            kind = kind_of_miss(original, restored, typed)
            kinds[kind] += 1
            examples.setdefault(kind, []).append((original, restored))
    print(f"given back: {given_back:,} of {total:,} ({given_back / total:.2%})")
    for kind, count in kinds.most_common():
        print(f"{count:6,}  {kind}")
    for kind, _ in kinds.most_common():
        print(f"\n## {kind}")
        for original, restored in examples[kind][: args.show]:
            print(f"  {original!r:60} -> {restored!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
