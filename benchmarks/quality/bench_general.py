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

Targets (test part): mt >= Apertium + 3 BLEU on flores and news; mt >= Apertium on tico and xquad;
tatoeba >= --tatoeba-base - 1; each domain >= its --domain-base figure. Exit status 1 on a miss.

    python -m benchmarks.quality.bench_general --run runs/model --tatoeba runs/tatoeba-split
"""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, report
from benchmarks.quality.bench_domain import samples
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores
from mt.modelinfo import resolve
from mt.recipes.domain_split import split_parts
from mt.recipes.general_split import pairs_of

APERTIUM = "apertium -u eng-spa"
DOMAIN_BASE = {"python-docs": 54.3, "tldr": 66.7, "libreoffice": 40.4, "news-500": 10.7}
"""Today's `make model` (60 minutes, 2026-11-24, docs/domain.md), the same test samples, beam 5."""
TATOEBA_BASE = 43.7
"""The Tatoeba-only `make bench` run on the first 1,000 test pairs, beam 5 (2026-11-25,
docs/performance.md)."""


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
    parser.add_argument(
        "--tatoeba", type=Path, required=True, help="Tatoeba prepared alone (make bench's split)"
    )
    parser.add_argument("--general", type=Path, default=harness.GENERAL)
    harness.add_domains(parser)
    harness.add_part(parser)
    harness.add_beam(parser, 5)
    parser.add_argument("--tatoeba-limit", type=int, default=1000)
    harness.add_limit(parser, 0, help="pairs a set at most (a try)")
    parser.add_argument("--tatoeba-base", type=float, default=TATOEBA_BASE)
    parser.add_argument("--apertium", default=APERTIUM, help="the peer's command line")
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
    translator = open_translator(
        resolve(args.run),
        TranslateOptions(decode=DecodeConfig(beam_size=args.beam, batch_size=32)),
        threads=args.threads,
    )
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
        table.add_row(
            name, str(len(pairs)), f"{mine.bleu:.1f} / {mine.chrf:.1f}",
            f"{peer.bleu:.1f} / {peer.chrf:.1f}", f"{mine.bleu - peer.bleu:+.1f}",
            f"{len(fresh) / seconds:.0f}" if fresh else "",
        )  # fmt: skip
        console.print(f"{name}: mt {mine.bleu:.2f}, Apertium {peer.bleu:.2f}")
    console.print(table)
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
    figures_out = {"run": str(args.run), "part": args.part, "beam": args.beam, "sets": figures}
    return report(args.out / f"{args.part}.json", figures_out, targets, threads=args.threads)


if __name__ == "__main__":
    sys.exit(main())
