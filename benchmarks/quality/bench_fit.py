"""`make bench-fit`: how well a model holds what it was taught (issue 75), beside the short
phrases people type first.

- train-2000: a fixed sample (seed 0) of 2,000 English lines of at most 6 words that `make model`
  trains on (the Tatoeba corpus less the held-out selection and test English), each scored
  against every translation the corpus gives it (multi-reference BLEU and chrF);
- phrases: the Tatoeba dev lines `make model` holds out (the first 1,000 of the selection part)
  that are short phrases of greetings, thanks, wishes, requests and travel, each as written and
  again without its end marks (references alike), against every translation the corpus gives.

The first run named is the one measured; with --versus, the other: the targets are train-2000
BLEU >= the other's + --train-gain and phrases BLEU >= the other's + --phrase-gain. Exit status
1 on a miss.

    python -m benchmarks.quality.bench_fit --run runs/student --versus en-es-general-12
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from pathlib import Path

import sacrebleu
import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator

SAMPLE = 2000
MAX_TRAIN_WORDS = 6
MAX_PHRASE_WORDS = 8
HELD_OUT = 1000
"""mt.recipes.model_parts.SELECTION_TATOEBA: the selection lines `make model` keeps out."""
KINDS = {
    "greeting": r"\b(hello|hi|hey|good (morning|afternoon|evening|night)|goodbye|bye|"
    r"how are you|nice to meet you|welcome|see you)\b",
    "thanks": r"\b(thank|thanks|you're welcome)\b",
    "wish": r"\b(happy (birthday|new year|holidays|anniversary|easter)|merry|congratulations|"
    r"good luck|have a (nice|good|great)|get well|cheers|bon voyage|enjoy (your|the))\b",
    "request": r"^(please\b|could you|can you|would you|will you|let me|help\b|wait\b|stop\b|"
    r"come\b|listen\b|excuse me|sorry)|\bplease\b",
    "travel": r"\b(where is|where's|where are|station|airport|hotel|ticket|bus|taxi|train|"
    r"how much|bathroom|toilet|restaurant|map|passport|room|luggage|street)\b",
}
_END_MARKS = re.compile(r"^[¡¿]+|[.!?¡¿…]+$")


def by_english(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Every translation the corpus gives each English line, in corpus order."""
    references: dict[str, list[str]] = defaultdict(list)
    for english, spanish in pairs:
        if spanish not in references[english]:
            references[english].append(spanish)
    return references


def train_sample(corpus: dict[str, list[str]], held_out: set[str]) -> list[str]:
    """SAMPLE trained-on English lines of at most MAX_TRAIN_WORDS words, fixed by seed 0."""
    short = sorted(
        line for line in corpus if line not in held_out and len(line.split()) <= MAX_TRAIN_WORDS
    )
    return random.Random(0).sample(short, min(SAMPLE, len(short)))


def kind_of(line: str) -> str | None:
    """The kind of short phrase `line` is, or None."""
    if len(line.split()) > MAX_PHRASE_WORDS:
        return None
    lowered = line.lower()
    return next((kind for kind, pattern in KINDS.items() if re.search(pattern, lowered)), None)


def unmarked(text: str) -> str:
    """`text` without its opening ¡¿ and closing end marks, as people type a phrase."""
    return _END_MARKS.sub("", text.strip()).strip()


def phrase_set(dev: list[str], corpus: dict[str, list[str]]) -> list[tuple[str, list[str]]]:
    """(English, references) of each dev phrase, as written and then without end marks (where
    it has any)."""
    chosen = [line for line in dict.fromkeys(dev) if kind_of(line)]
    written = [(line, corpus[line]) for line in chosen]
    bare = [
        (unmarked(line), [unmarked(ref) for ref in corpus[line]])
        for line in chosen
        if unmarked(line) != line
    ]
    return written + bare


def multi_reference(hypotheses: list[str], references: list[list[str]]) -> dict[str, float]:
    """Corpus BLEU and chrF against each line's references (as many as it has)."""
    width = max(len(refs) for refs in references)
    streams = [[refs[i] if i < len(refs) else None for refs in references] for i in range(width)]
    return {
        "bleu": sacrebleu.corpus_bleu(hypotheses, streams).score,
        "chrf": sacrebleu.corpus_chrf(hypotheses, streams).score,
    }


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser)
    parser.add_argument("--versus", help="the model to beat (a run or a shipped name)")
    parser.add_argument("--corpus", type=Path, default=Path("data/spa-eng.tsv"))
    parser.add_argument("--tatoeba", type=Path, default=Path("runs/tatoeba-split"))
    parser.add_argument("--parts", type=Path, default=Path("runs/model-parts"))
    parser.add_argument("--train-gain", type=float, default=10.0)
    parser.add_argument("--phrase-gain", type=float, default=5.0)
    harness.add_beam(parser, 5)
    harness.add_threads(parser, torch.get_num_threads())
    harness.add_out(parser, Path("bench/fit"), help="results.json goes here")
    args = parser.parse_args(argv)
    for needed in (args.corpus, args.tatoeba / "selection.tsv", args.parts / "test.tsv"):
        if not needed.exists():
            raise SystemExit(
                f"bench-fit: {needed} is absent (make corpus; make model --to-step parts)"
            )
    console = Console()
    console.print(harness.machine_line(args.threads))
    corpus = by_english(read_pairs(args.corpus))
    held = {
        en for part in ("selection", "test") for en, _ in read_pairs(args.parts / f"{part}.tsv")
    }
    dev = [english for english, _ in read_pairs(args.tatoeba / "selection.tsv")[:HELD_OUT]]
    sets = {
        "train-2000": [(line, corpus[line]) for line in train_sample(corpus, held)],
        "phrases": phrase_set(dev, corpus),
    }
    models = [args.run, *([args.versus] if args.versus else [])]
    figures: dict[str, dict] = {}
    table = Table(title=f"fit: multi-reference BLEU / chrF (beam {args.beam})")
    table.add_column("set")
    table.add_column("lines", justify="right")
    for model in models:
        table.add_column(str(model), justify="right")
    options = TranslateOptions(decode=DecodeConfig(beam_size=args.beam, batch_size=32))
    for model in models:
        translator = open_translator(resolve(model), options, threads=args.threads)
        for name, items in sets.items():
            output = [t.text for t in translator.translate([line for line, _ in items])]
            scores = multi_reference(output, [refs for _, refs in items])
            figures.setdefault(name, {"lines": len(items)})[str(model)] = scores
            console.print(f"{model} {name}: BLEU {scores['bleu']:.2f}, chrF {scores['chrf']:.2f}")
    for name, row in figures.items():
        cells = [f"{row[str(m)]['bleu']:.1f} / {row[str(m)]['chrf']:.1f}" for m in models]
        table.add_row(name, str(row["lines"]), *cells)
    console.print(table)
    targets = []
    if args.versus:
        ours, theirs = str(args.run), str(args.versus)
        for name, gain in (("train-2000", args.train_gain), ("phrases", args.phrase_gain)):
            lead = figures[name][ours]["bleu"] - figures[name][theirs]["bleu"]
            targets.append(Target(f"{name}: BLEU over {theirs}", lead, ">=", gain))
    return report(args.out / "results.json", {"sets": figures}, targets, threads=args.threads)


if __name__ == "__main__":
    raise SystemExit(main())
