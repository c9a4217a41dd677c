"""Issue 30: do the name-and-number stand-ins still copy ordinary English words into the Spanish?

    python benchmarks/bench_standins.py --run bench/run [--data PREPARED] [--limit 3000]

On the first --limit pairs of the run's prepared test part (sentences unseen in training) and on
their casual variant (lower-cased, final punctuation dropped), greedy and beam 5, with three rules
for which words get stand-ins: none (placeholders off), the old rule (every capitalised word and
number that is not one source piece) and the fixed one (mt.decode.names with the run's lexicon,
or the lexicon of its prepared directory for a run made before lexicons). For each it prints
- wrong copies: the share of outputs holding a capitalised source word that the reference does
  not hold ("Allow me presentaron a mí."; target at most 1%);
- name copy rate: of the capitalised source words that the reference holds too (names, mostly),
  the share the output holds (keep at least 99%);
- BLEU (target: the fixed rule at least 1.0 above none).
Words match whole and with their case; on the casual variant, whose words are all lower case, the
capitalised words are the clean sentence's and match in any case. The machine and its load are
printed, as it may be shared; nothing is written.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass
from pathlib import Path

import torch
from machine import describe, load_average
from rich.console import Console
from rich.table import Table

from mt.config import DecodeConfig
from mt.data.lexicon import CAPITALISED
from mt.data.noise import casual
from mt.data.prepared_dir import read_pairs
from mt.decode.placeholders import Protectable
from mt.decode.scores import corpus_scores
from mt.decode.translator import Translator, open_translator
from mt.model.rundir import read_train_config

SEARCHES = {"greedy": 1, "beam 5": 5}
EXAMPLES = 5  # wrong copies quoted for the fixed rule


@dataclass(frozen=True)
class Figures:
    wrong_copies: int  # outputs holding a capitalised source word that the reference lacks
    names: int  # capitalised source words that the reference holds
    names_copied: int  # of those, held by the output too
    bleu: float
    seconds: float
    examples: tuple[tuple[str, str], ...]  # (source, output) with a wrong copy


def has_word(text: str, word: str, *, any_case: bool) -> bool:
    flags = re.IGNORECASE if any_case else 0
    return re.search(rf"(?<!\w){re.escape(word)}(?!\w)", text, flags) is not None


def figures(
    clean: list[str], outputs: list[str], refs: list[str], *, any_case: bool, seconds: float
) -> Figures:
    """Wrong copies and name copies of `outputs`, whose capitalised words are those of the clean
    sources (the casual variant has none of its own)."""
    wrong, names, copied, examples = 0, 0, 0, []
    for source, output, ref in zip(clean, outputs, refs, strict=True):
        words = set(re.findall(CAPITALISED, source))
        named = {w for w in words if has_word(ref, w, any_case=any_case)}
        names += len(named)
        copied += sum(has_word(output, w, any_case=any_case) for w in named)
        if any(has_word(output, w, any_case=any_case) for w in words - named):
            wrong += 1
            examples.append((source, output))
    bleu = corpus_scores(outputs, [[r] for r in refs]).bleu
    return Figures(wrong, names, copied, bleu, seconds, tuple(examples[:EXAMPLES]))


def old_rule(translator: Translator) -> Protectable:
    """The rule before issue 30: every capitalised word and number not one source piece."""

    def protectable(word: str, *, initial: bool) -> bool:
        return not translator.one_piece(word)

    return protectable


def measure(translator: Translator, rule: str, sources: list[str]) -> tuple[list[str], float]:
    """The outputs under `rule` ("none", "old", "fixed") and the seconds they took."""
    fixed = translator.protectable
    translator.placeholders = rule != "none"
    translator.protectable = old_rule(translator) if rule == "old" else fixed
    started = time.perf_counter()
    try:
        return [t.text for t in translator.translate(sources)], time.perf_counter() - started
    finally:
        translator.placeholders, translator.protectable = True, fixed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=Path("bench/run"))
    parser.add_argument("--data", type=Path, default=None, help="default: the run's train.json")
    parser.add_argument("--limit", type=int, default=3000, help="first test pairs")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    console = Console()
    torch.set_num_threads(args.threads)
    console.print(f"{describe(args.threads)}, device {args.device}, load average: {load_average()}")
    data = args.data or read_train_config(args.run)[1]
    pairs = read_pairs(data / "test.tsv")[: args.limit]
    clean, refs = [en for en, _ in pairs], [es for _, es in pairs]
    variants = {"clean": clean, "casual": [casual(s, lower=True, punctuation="") for s in clean]}

    started = time.perf_counter()
    translator = open_translator(args.run, DecodeConfig(beam_size=1), device=args.device)
    lexicon = translator.protectable.lexicon
    console.print(
        f"{args.run}: lexicon of {len(lexicon.words):,} words from {lexicon.pairs:,} training "
        f"pairs, opened in {time.perf_counter() - started:.1f} s; {len(pairs):,} test pairs of "
        f"{data}"
    )
    table = Table(title=f"stand-ins on the first {len(pairs):,} test pairs")
    for column in ("input", "search", "stand-ins", "wrong copies", "names copied", "BLEU", "s"):
        table.add_column(column, justify="left" if column in ("input", "stand-ins") else "right")
    results: dict[tuple[str, str, str], Figures] = {}
    for variant, sources in variants.items():
        for search, beam in SEARCHES.items():
            translator.config = DecodeConfig(beam_size=beam)
            for rule in ("none", "old", "fixed"):
                outputs, seconds = measure(translator, rule, sources)
                found = figures(clean, outputs, refs, any_case=variant == "casual", seconds=seconds)
                results[variant, search, rule] = found
                table.add_row(
                    variant,
                    search,
                    rule,
                    f"{100 * found.wrong_copies / len(pairs):.2f}% ({found.wrong_copies})",
                    f"{100 * found.names_copied / max(found.names, 1):.2f}% of {found.names}",
                    f"{found.bleu:.2f}",
                    f"{seconds:.0f}",
                )
    console.print(table)
    for (variant, search, rule), found in results.items():
        if rule == "fixed":
            none = results[variant, search, "none"].bleu
            console.print(f"{variant}, {search}: fixed - none = {found.bleu - none:+.2f} BLEU")
    console.print("wrong copies left with the fixed rule (clean, beam 5):")
    for source, output in results["clean", "beam 5", "fixed"].examples:
        console.print(f"  {source}  ->  {output}", highlight=False)
    console.print(f"load average at the end: {load_average()}")


if __name__ == "__main__":
    main()
