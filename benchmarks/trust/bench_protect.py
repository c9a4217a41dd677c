"""Protected spans: how often a run copies the URLs, code, numbers and names it must copy.

    python -m benchmarks.trust.bench_protect --run RUN [--data PREPARED] [--limit 300] [--beam 1]

On the test parts of python-docs and tldr (our by-document split of --domains, by default
../shared/data/domains: mt.recipes.domain_split) and the run's Tatoeba test part, it keeps the
pairs whose English has protected spans (mt.text.spans) that also stand verbatim in the reference,
samples --limit of them per set (seeded), and translates them twice: with protection (placeholder
tokens for a model trained with them, the stand-ins for an older one) and without. It prints, per
set and kind of span (url, code, path, placeholder, number, name, ...), the copy rate (the share of
those spans found verbatim in the output) and BLEU of both. Names are given as a user would give
them, with `--keep`: a list built from each set's training part (`keep_list`: capitalised words
that its Spanish copies), so a test sentence's names are "name (--keep)" when on the list and
"capitalised" (left to the model and the lexicon) when not. `measure_protection` returns the same
figures for other benchmarks (`make bench-trust`). The figures go to --json (benchmarks/harness.py).

Targets (docs/text.md), for a model trained with placeholder tokens: every kind of span, names on
the --keep list included, copied >= 99% of the time in each set, and BLEU with protection not
lower than without; it exits 1 when one is missed. A model without the tokens has none stated.
"""

from __future__ import annotations

import random
import re
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from mt.catalog.modelinfo import read_train_config, resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.results import total
from mt.decode.translator import Translator, open_translator
from mt.errors import MtError
from mt.evaluate.scores import corpus_scores
from mt.recipes.domain_split import split_parts, test_pairs
from mt.text.lexicon import CAPITALISED
from mt.text.spans import shared_spans

DOMAIN_SETS = ("python-docs", "tldr")
COPY_RATE = 0.99
"""The share of each kind of span a model trained with placeholder tokens must copy."""
UNLISTED = "capitalised"
"""Capitalised words not on the --keep list: left to the model and the lexicon, no target."""


@dataclass
class SetFigures:
    """One test set's figures: spans by kind as (copied with, copied without, total)."""

    name: str
    sentences: int
    spans: dict[str, list[int]] = field(default_factory=dict)
    bleu_protected: float = 0.0
    bleu_plain: float = 0.0
    lost: int = 0  # tokens the translation lost, put back at the end (placeholder models)

    def rate(self, kind: str | None, protected: bool = True) -> float:
        """Copy rate of one kind (None: all kinds), with or without protection."""
        rows = [v for k, v in self.spans.items() if kind is None or k == kind]
        total = sum(v[2] for v in rows)
        return sum(v[0 if protected else 1] for v in rows) / total if total else float("nan")


def protected_pairs(pairs: list[tuple[str, str]], limit: int, seed: int = 0):
    """A seeded sample of `limit` pairs whose English has spans the reference copies."""
    kept = [(en, es) for en, es in pairs if shared_spans(en, es)]
    random.Random(seed).shuffle(kept)
    return kept[:limit]


def copied(span: str, output: str, kind: str = "number") -> bool:
    """Whether `span` stands whole in `output`: a number not inside a longer one ("10" in "100",
    "3" in "1,3"), a word not inside a longer word; a span that begins or ends with a mark
    ("`source <url>`" before rST's "_", "$B" in "$A.$B$3") needs no border on that side."""
    before, after = (
        (r"(?<![\w.,:])", r"(?!\w|[.,:]\d)") if kind == "number" else (r"(?<!\w)", r"(?!\w)")
    )
    pattern = (before if span[:1].isalnum() else "") + re.escape(span)
    pattern += after if span[-1:].isalnum() else ""
    return re.search(pattern, output) is not None


def keep_list(pairs: list[tuple[str, str]], min_count: int = 3, share: float = 0.9) -> set[str]:
    """The names a user of this text would list for --keep: capitalised words, not first in
    their sentence, seen `min_count` times or more in the English and whole in the Spanish of
    at least `share` of those pairs (LibreOffice, Calc, Python, Tom)."""
    seen: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    for english, spanish in pairs:
        words = {m.group() for m in re.finditer(CAPITALISED, english) if m.start() > 0}
        spanish_words = set(re.findall(r"\w+", spanish))
        seen.update(words)
        kept.update(word for word in words if word in spanish_words)
    return {word for word, n in seen.items() if n >= min_count and kept[word] >= share * n}


def measure_set(
    translator: Translator, name: str, pairs: list[tuple[str, str]], keep: set[str]
) -> SetFigures:
    """Translate `pairs` with and without protection (`keep` as --keep); count the spans each
    output copies."""
    sources = [en for en, _ in pairs]
    names = tuple(sorted(keep)) if translator.model.span_tokens else ()
    options = replace(translator.options, placeholders=True, keep=names)
    translations = list(translator.with_options(options).translate(sources))
    protected = [t.text for t in translations]
    figures = SetFigures(name, len(pairs), lost=total(translations).lost_spans)
    plain_options = replace(translator.options, placeholders=False)
    plain = [t.text for t in translator.with_options(plain_options).translate(sources)]
    references = [[es] for _, es in pairs]
    figures.bleu_protected = corpus_scores(protected, references).bleu
    figures.bleu_plain = corpus_scores(plain, references).bleu
    for (en, es), with_, without in zip(pairs, protected, plain, strict=True):
        for span in shared_spans(en, es):
            kind = span.kind
            if kind == "name":
                kind = "name (--keep)" if span.text in keep else UNLISTED
            counts = figures.spans.setdefault(kind, [0, 0, 0])
            counts[0] += copied(span.text, with_, span.kind)
            counts[1] += copied(span.text, without, span.kind)
            counts[2] += 1
    return figures


def test_sets(
    run: Path, data: Path | None, domains: Path, limit: int
) -> dict[str, tuple[list, set[str]]]:
    """The sampled pairs of each set and its --keep list; a set whose file is missing is left
    out with a note."""
    sets: dict[str, tuple[list, set[str]]] = {}
    for name in DOMAIN_SETS if domains.is_dir() else ():
        train = split_parts(name, domains).train
        keep = keep_list([(pair.english, pair.spanish) for pair in train])
        sets[name] = protected_pairs(test_pairs(domains, name), limit), keep
    if not domains.is_dir():
        print(f"note: {domains} is absent: the domain sets are left out", file=sys.stderr)
    prepared = data or read_train_config(run)[1]
    if (prepared / "test.tsv").is_file():
        keep = keep_list(read_pairs(prepared / "train.tsv"))
        sets["tatoeba"] = protected_pairs(read_pairs(prepared / "test.tsv"), limit), keep
    else:
        print(f"note: no test part in {prepared}; Tatoeba left out", file=sys.stderr)
    return sets


def measure_protection(
    run: Path,
    *,
    data: Path | None = None,
    domains: Path = harness.DOMAINS,
    limit: int = 300,
    beam: int = 1,
    device: str = "cpu",
) -> tuple[bool, list[SetFigures]]:
    """Whether the run has placeholder tokens, and the figures of each test set."""
    translator = open_translator(
        resolve(run), TranslateOptions(decode=DecodeConfig(beam_size=beam)), device=device
    )
    sets = test_sets(run, data, domains, limit)
    return translator.model.span_tokens, [
        measure_set(translator, name, pairs, keep) for name, (pairs, keep) in sets.items()
    ]


def targets(tokens: bool, results: list[SetFigures]) -> list[harness.Target]:
    """The copy rate of each kind and the BLEU gain of each set, for a model with placeholder
    tokens (none for one without)."""
    if not tokens:
        return []
    checks = []
    for figures in results:
        checks += [
            harness.Target(f"{figures.name}: {kind} copied", figures.rate(kind), ">=", COPY_RATE)
            for kind in sorted(figures.spans)
            if kind != UNLISTED
        ]
        gain = figures.bleu_protected - figures.bleu_plain
        checks.append(harness.Target(f"{figures.name}: BLEU protected - plain", gain, ">=", 0))
    return checks


def print_tables(tokens: bool, results: list[SetFigures], console: Console) -> None:
    path = "placeholder tokens" if tokens else "stand-ins (model without placeholder tokens)"
    table = Table(title=f"copy rate of spans the reference copies; protection: {path}")
    for column in ("set", "kind", "spans", "copied, protected", "copied, plain"):
        table.add_column(column, justify="left" if column in ("set", "kind") else "right")
    for figures in results:
        for kind in [*sorted(figures.spans), None]:
            total = sum(v[2] for k, v in figures.spans.items() if kind is None or k == kind)
            table.add_row(
                figures.name,
                kind or "all",
                f"{total:,}",
                f"{figures.rate(kind):.1%}",
                f"{figures.rate(kind, protected=False):.1%}",
                end_section=kind is None,
            )
    console.print(table)
    bleu = Table(title="BLEU on the same sentences")
    for column in ("set", "sentences", "protected", "plain", "tokens lost"):
        bleu.add_column(column, justify="left" if column == "set" else "right")
    for f in results:
        bleu.add_row(
            f.name, str(f.sentences), f"{f.bleu_protected:.1f}", f"{f.bleu_plain:.1f}", str(f.lost)
        )
    console.print(bleu)


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser)
    harness.add_data(parser, help="prepared directory (default: the run's)")
    harness.add_domains(parser)
    harness.add_limit(parser, 300, help="pairs per set")
    harness.add_beam(parser, 1)
    harness.add_device(parser, "cpu")
    harness.add_threads(parser, torch.get_num_threads())
    harness.add_out(parser, Path("bench/protect/results.json"), flag="--json")
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    console = Console()
    console.print(harness.machine_line(args.threads))
    console.print(f"run: {args.run}; beam {args.beam}; up to {args.limit} pairs per set")
    try:
        tokens, results = measure_protection(
            args.run,
            data=args.data,
            domains=args.domains,
            limit=args.limit,
            beam=args.beam,
            device=args.device,
        )
    except MtError as error:
        sys.exit(f"error: {error}")
    print_tables(tokens, results, console)
    if not tokens:
        console.print("no target: the run has no placeholder tokens (docs/text.md)")
    figures = {"placeholder_tokens": tokens, "sets": [asdict(f) for f in results]}
    return harness.report(args.json, figures, targets(tokens, results), threads=args.threads)


if __name__ == "__main__":
    sys.exit(main())
