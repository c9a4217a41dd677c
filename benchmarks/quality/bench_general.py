"""`make bench-general`: a run (or export) side by side with Apertium, the rule-based translator
Debian packages, on the same lines of general text, the Tatoeba test part and the domains.

Sets of the test part (scored once, for the record; no choice is made on them):
- flores: FLORES-200 dev, all 996 pairs (Wikipedia-style; never trained on);
- news: newssyscomb2009, a whole WMT news set held out of training (mt.recipes.domain_split);
- tico, xquad: the held-out documents of TICO-19 and XQuAD (mt.recipes.general_split);
- tatoeba: the first --tatoeba-limit pairs of the Tatoeba test part that `make bench` scores
  (its --limit 1000 figure is the Tatoeba-only baseline);
- python-docs, tldr, libreoffice, news-500: the domains' test samples of bench_domain.py
  (--limit 500, seed 0), the lines today's `make model` was scored on.

`--part dev` scores the development counterparts (news-test2008, the dev documents of TICO-19 and
XQuAD, the Tatoeba selection part, the domains' dev samples): the part choices are made on. FLORES
is left out there, so that no choice is made on a figure reported.

Words (issue 66, mt.evaluate.words): per set, of the English content words whose Wiktionary
translation (--lexicon) the reference holds, the share each system's output carries, by how often
the model's training English has the word (its words.tsv: never, 1-9, 10+), on the same words for
mt and Apertium. An absent --lexicon leaves the words out with a line.

Targets (test part): mt >= Apertium + 3 BLEU on flores and news; mt >= Apertium on tico and xquad;
tatoeba >= --tatoeba-base - 1; each domain >= its --domain-base figure; of the words the training
English never has, mt carries at least Apertium's share on flores and news. Exit status 1 on a
miss.

    python -m benchmarks.quality.bench_general --run runs/model --tatoeba runs/tatoeba-split
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, report
from benchmarks.quality.bench_domain import samples
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate import words
from mt.evaluate.scores import corpus_scores
from mt.recipes.domain_split import split_parts
from mt.recipes.general_split import pairs_of
from mt.storage.files import WORD_STATS

APERTIUM = "apertium -u eng-spa"
LEXICON = harness.GENERAL.parent / "lexicon" / "en-es.wiktionary.txt"
"""../shared/data/lexicon's English-Spanish Wiktionary dictionary (CC BY-SA 3.0 / GFDL)."""
DOMAIN_BASE = {"python-docs": 54.3, "tldr": 66.7, "libreoffice": 40.4, "news-500": 10.7}
"""Today's `make model` (60 minutes, 2026-11-24, docs/domain.md), the same test samples, beam 5."""
TATOEBA_BASE = 43.7
"""The Tatoeba-only `make bench` run on the first 1,000 test pairs, beam 5 (2026-11-25,
docs/performance.md)."""


RULE_SETS = ("news", "tico", "xquad")
"""The dev sets whose mean BLEU a new version must raise (docs/release.md, "When a new version
ships")."""


def general_mean(bleu: Mapping[str, float]) -> float:
    """The mean BLEU of RULE_SETS, from a set name -> BLEU mapping that has them."""
    return sum(bleu[name] for name in RULE_SETS) / len(RULE_SETS)


def add_sets(parser: argparse.ArgumentParser) -> None:
    """--tatoeba, --general and --domains: where `sets` reads its parts from."""
    parser.add_argument(
        "--tatoeba", type=Path, required=True, help="Tatoeba prepared alone (make bench's split)"
    )
    parser.add_argument("--general", type=Path, default=harness.GENERAL)
    harness.add_domains(parser)


def sets(general: Path, domains: Path, tatoeba: Path, part: str, limit: int) -> dict[str, list]:
    """(english, spanish) pairs of each set of `part`."""
    chosen: dict[str, list] = {}
    if part == "test":
        chosen["flores"] = pairs_of(general, "flores", "test")
    news = getattr(split_parts("news", domains), part)  # one whole WMT set
    chosen["news"] = [(pair.english, pair.spanish) for pair in news]
    for name in ("tico", "xquad"):
        chosen[name] = pairs_of(general, name, part)
    tatoeba_part = "test.tsv" if part == "test" else "selection.tsv"
    chosen["tatoeba"] = read_pairs(tatoeba / tatoeba_part)[:limit]
    domain_samples = samples(domains, tatoeba, 500, 0, part)
    for name in ("python-docs", "tldr", "libreoffice"):
        chosen[name] = domain_samples[name]
    chosen["news-500"] = domain_samples["news"]
    return chosen


def apertium(lines: list[str], command: str) -> list[str]:
    """One pass of the whole list through the engine, one output line per input line."""
    flat = [" ".join(line.split()) for line in lines]
    result = subprocess.run(
        shlex.split(command), input="\n".join(flat) + "\n", capture_output=True, text=True
    )
    if result.returncode != 0:
        raise SystemExit(f"{command}: exit {result.returncode}: {result.stderr.strip()[:200]}")
    outputs = result.stdout.split("\n")[: len(flat)]
    if len(outputs) != len(flat):
        raise SystemExit(f"{command}: {len(outputs)} lines back for {len(flat)}")
    return [" ".join(line.split()) for line in outputs]


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser)
    add_sets(parser)
    harness.add_part(parser)
    harness.add_beam(parser, 5)
    parser.add_argument("--tatoeba-limit", type=int, default=1000)
    harness.add_limit(parser, 0, help="pairs a set at most (a try)")
    parser.add_argument("--tatoeba-base", type=float, default=TATOEBA_BASE)
    parser.add_argument("--apertium", default=APERTIUM, help="the peer's command line")
    parser.add_argument(
        "--lexicon", type=Path, default=LEXICON, help="the Wiktionary dictionary the words need"
    )
    harness.add_threads(parser, torch.get_num_threads())
    harness.add_out(parser, Path("bench/general"), help="PART.json goes here")
    args = parser.parse_args(argv)
    for needed in (args.general / "tico19.tsv", args.domains, args.tatoeba / "test.tsv"):
        if not needed.exists():
            raise SystemExit(f"bench-general: {needed} is absent (see ../shared and the Makefile)")
    console = Console()
    console.print(harness.machine_line(args.threads))
    chosen = sets(args.general, args.domains, args.tatoeba, args.part, args.tatoeba_limit)
    if args.limit:
        chosen = {name: pairs[: args.limit] for name, pairs in chosen.items()}
    info = resolve(args.run)
    translator = open_translator(
        info,
        TranslateOptions(decode=DecodeConfig(beam_size=args.beam, batch_size=32)),
        threads=args.threads,
    )
    table_of_words = None
    if args.lexicon.is_file():
        table_of_words = words.open_word_table(
            dictionary=args.lexicon, word_stats=info.directory / WORD_STATS
        )
    else:
        console.print(f"words: {args.lexicon} is absent (see ../shared): left out")
    figures: dict[str, dict] = {}
    memo: dict[str, str] = {}  # a line in two sets (news-500 is a sample of news) is decoded once
    table = Table(title=f"{args.run}, {args.part} part: BLEU / chrF (beam {args.beam})")
    for column in ("set", "pairs", "mt", "Apertium", "mt - Apertium", "mt sent/s"):
        table.add_column(column, justify="left" if column == "set" else "right")
    for name, pairs in chosen.items():
        english = [source for source, _ in pairs]
        references = [[target] for _, target in pairs]
        fresh = list(dict.fromkeys(line for line in english if line not in memo))
        started = time.perf_counter()
        memo.update(zip(fresh, (t.text for t in translator.translate(fresh)), strict=True))
        seconds = time.perf_counter() - started
        ours = [memo[line] for line in english]
        theirs = apertium(english, args.apertium)
        mine, peer = corpus_scores(ours, references), corpus_scores(theirs, references)
        figures[name] = {
            "pairs": len(pairs),
            "mt": {"bleu": mine.bleu, "chrf": mine.chrf},
            "apertium": {"bleu": peer.bleu, "chrf": peer.chrf},
            "mt_sentences_per_second": len(fresh) / seconds if fresh else None,
        }
        if table_of_words is not None:
            figures[name]["words"] = words_carried(table_of_words, pairs, mt=ours, apertium=theirs)
        table.add_row(
            name, str(len(pairs)), f"{mine.bleu:.1f} / {mine.chrf:.1f}",
            f"{peer.bleu:.1f} / {peer.chrf:.1f}", f"{mine.bleu - peer.bleu:+.1f}",
            f"{len(fresh) / seconds:.0f}" if fresh else "",
        )  # fmt: skip
        console.print(f"{name}: mt {mine.bleu:.2f}, Apertium {peer.bleu:.2f}")
    console.print(table)
    if table_of_words is not None:
        console.print(words_table(figures, title=f"{args.run}, {args.part} part"))
    targets = []
    if args.part == "test":
        margin = {name: f["mt"]["bleu"] - f["apertium"]["bleu"] for name, f in figures.items()}
        targets = [
            Target("flores: mt - Apertium BLEU", margin["flores"], ">=", 3.0),
            Target("news: mt - Apertium BLEU", margin["news"], ">=", 3.0),
            Target("tico: mt - Apertium BLEU", margin["tico"], ">=", 0.0),
            Target("xquad: mt - Apertium BLEU", margin["xquad"], ">=", 0.0),
            Target("tatoeba BLEU", figures["tatoeba"]["mt"]["bleu"], ">=", args.tatoeba_base - 1.0),
            *(
                Target(f"{name} BLEU (make model: {base})", figures[name]["mt"]["bleu"], ">=", base)
                for name, base in DOMAIN_BASE.items()
            ),
        ]  # fmt: skip
        targets += [
            Target(f"{name}: never-seen words carried, mt - Apertium", margin, ">=", 0.0)
            for name in ("flores", "news")
            if (margin := never_margin(figures[name])) is not None
        ]
    figures_out = {"run": str(args.run), "part": args.part, "beam": args.beam, "sets": figures}
    return report(args.out / f"{args.part}.json", figures_out, targets, threads=args.threads)


def words_carried(
    table: words.WordTable, pairs: list, *, mt: list[str], apertium: list[str]
) -> dict[str, dict]:
    """Per bucket, the attested words of the set's lines and how many of them each system's
    output carries, with the share; the words are found once, from source and reference."""
    attested = [words.attested(source, target, table=table) for source, target in pairs]
    tallies = {"mt": words.tally(attested, mt), "apertium": words.tally(attested, apertium)}
    return {
        bucket: {
            "words": tallies["mt"][bucket].words,
            **{
                system: {"carried": found[bucket].carried, "share": found[bucket].share}
                for system, found in tallies.items()
            },
        }
        for bucket in words.BUCKETS
    }


def never_margin(found: dict) -> float | None:
    """mt's share of the never-seen words carried less Apertium's, in points; None without
    words or without a never-seen one."""
    never = found.get("words", {}).get(words.NEVER)
    if not never or not never["words"]:
        return None
    return 100 * (never["mt"]["share"] - never["apertium"]["share"])


def words_table(figures: dict[str, dict], *, title: str) -> Table:
    table = Table(title=f"{title}: dictionary-attested words carried, % mt / Apertium (words)")
    table.add_column("set")
    for bucket in words.BUCKETS:
        table.add_column(f"{bucket} in training", justify="right")
    for name, found in figures.items():
        table.add_row(name, *(share_cell(found["words"][bucket]) for bucket in words.BUCKETS))
    return table


def share_cell(row: dict) -> str:
    if not row["words"]:
        return "-"
    return f"{100 * row['mt']['share']:.1f} / {100 * row['apertium']['share']:.1f} ({row['words']})"


if __name__ == "__main__":
    sys.exit(main())
