"""`make bench-trust`: can the user tell which translations to check?

    python -m benchmarks.trust.bench_trust --run RUN --data PREPARED [--domains DIR] \
        [--sentences N] [--part test|dev]

RUN must hold calibration.json (`mt calibrate RUN`); without it the benchmark calibrates RUN first
(so give it a copy of a run you may write into). On a seeded sample of the test part and of each
domain test part (our split of DIR, mt.recipes.domain_split; default ../shared/data/domains)
it prints, per set (with --part dev, where choices are made: the selection part less the sentences
the calibration was fitted to, and each domain's dev part):
- Spearman's rank correlation between confidence and sentence chrF (sacrebleu);
- the share of bad translations (chrF < 30) among the least confident 10% and among the rest, and
  their ratio;
- the copy flag's recall on outputs that copy the source, where "copies the source" is measured
  apart from the flag's own measure (shared letters of words): the source is English prose with
  a word of 3+ letters (mt.text.prose: not a command, code or a bare name), and on the words
  there are to translate (outside protected spans, the source's names left out: copied by
  right) the output's chrF against the source, taken both ways (the lower), is >= 70, those
  words of the output read as English rather than Spanish (py3langid: a cognate translation,
  "corresponds" -> "corresponde", is as like its source by letters, but it is a translation),
  and the best reference's chrF is below 70 (where the reference copies too, copying is right);
  and the flag's rate on the others;
- the copy flag's recall on echoes (each source given back as its own output).
--show-copies prints each copy (caught or missed) and each other output the flag is raised on.
Decoding is greedy (beam 1) unless --beam-size says otherwise. The figures go to --out as JSON
with issue 27's targets checked on every set (Spearman >= 0.5, the least confident 10% holding
>= 3x the rest's bad share, >= 95% of echoes and of copies flagged); the exit status is 1 when one
is missed. Other figures (glossary terms, protected spans) are meant to join the same target:
`trust_rows`, `trust_figures` and `print_figures` are the pieces to call.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.data.prepared_dir import read_pairs
from mt.decode.options import TranslateOptions
from mt.decode.results import Translation
from mt.decode.translator import Translator, open_translator
from mt.evaluate.calibrate import (
    calibrate,
    grouped_references,
    sample_sources,
    save_calibration,
    sentence_chrf,
)
from mt.quality.flags import COPY, copies_source, names_of, reads_as_spanish, to_translate
from mt.recipes.domain_split import DOMAINS as DOMAINS_SPLIT
from mt.recipes.domain_split import dev_pairs, test_pairs

BAD_CHRF = 30.0
MIN_SPEARMAN = 0.5
MIN_BAD_RATIO = 3.0
MIN_COPY_RECALL = 0.95
LEAST_CONFIDENT = 0.10
COPY_CHRF = 70.0


@dataclass(frozen=True)
class Row:
    source: str
    output: str
    confidence: float
    chrf: float
    flags: tuple[str, ...]
    copies: bool  # the output copies the source (COPY_CHRF, still English), whatever the flag says
    like_source: bool  # by letters alone (COPY_CHRF): cognate translations too


def trust_rows(translator: Translator, references: dict[str, list[str]]) -> list[Row]:
    """Translate every source of `references` and score confidence, chrF and the copy check."""
    return scored_rows(references, list(translator.translate(list(references))))


def scored_rows(references: dict[str, list[str]], translations: list[Translation]) -> list[Row]:
    """Each translation of a source of `references` (in order) with its chrF and copy check."""
    sources = list(references)
    outputs = [t.text for t in translations]
    chrf = sentence_chrf(outputs, [references[s] for s in sources])

    # Measured on what there is to translate: not protected spans (URLs, code, paths, numbers)
    # nor the source's names, which are copied by right (mt.quality.flags.to_translate).
    names = {s: names_of(s) for s in sources}

    def words(text: str, source: str) -> str:
        return " ".join(to_translate(text, names[source]))

    asked = [words(s, s) for s in sources]
    answered = [words(o, s) for o, s in zip(outputs, sources, strict=True)]
    # Both ways: chrF weighs recall twice, and "Gestor de extensiones" holds all of "extension".
    against_source = [
        min(a, b)
        for a, b in zip(
            sentence_chrf(answered, [[a] for a in asked]),
            sentence_chrf(asked, [[a] for a in answered]),
            strict=True,
        )
    ]
    # The best reference's own likeness to the source: where even it copies (a label kept in
    # English), copying is right, and such lines do not count as copies.
    reference_likeness = sentence_chrf(
        asked, [[words(r, s) for r in references[s]] for s in sources]
    )
    rows = []
    for source, t, score, own, like, words in zip(
        sources, translations, chrf, against_source, reference_likeness, answered, strict=True
    ):
        alike = copies_english(source) and own >= COPY_CHRF and like < COPY_CHRF
        confidence = t.confidence if t.confidence is not None else 0.0
        copies = alike and not reads_as_spanish(words)
        rows.append(Row(source, t.text, confidence, score, t.flags, copies, alike))
    return rows


def copies_english(source: str) -> bool:
    """The source is English prose with words to translate, not a command or code
    (mt.text.prose, the flag's own condition on the source)."""
    return copies_source(source, source)


def ranks(values: np.ndarray) -> np.ndarray:
    """Ranks with ties given their average rank, as Spearman's correlation needs."""
    order = values.argsort(kind="stable")
    ranked = np.empty(len(values))
    ranked[order] = np.arange(len(values), dtype=float)
    for value in np.unique(values):
        tied = values == value
        ranked[tied] = ranked[tied].mean()
    return ranked


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def ranking_figures(confidence: np.ndarray, chrf: np.ndarray) -> dict[str, float]:
    """How well confidence ranks: Spearman with chrF, and the bad (chrF < BAD_CHRF) share among
    the least confident LEAST_CONFIDENT against the rest's."""
    bad = chrf < BAD_CHRF
    least = np.zeros(len(chrf), dtype=bool)
    least[confidence.argsort(kind="stable")[: max(1, round(LEAST_CONFIDENT * len(chrf)))]] = True
    bad_least, bad_rest = float(bad[least].mean()), float(bad[~least].mean())
    return {
        "spearman": spearman(confidence, chrf),
        "bad_least": bad_least,
        "bad_rest": bad_rest,
        "bad_ratio": bad_least / bad_rest if bad_rest else float("inf"),
    }


def trust_figures(rows: list[Row]) -> dict[str, float]:
    confidence = np.asarray([row.confidence for row in rows])
    chrf = np.asarray([row.chrf for row in rows])
    copies = np.asarray([row.copies for row in rows])
    alike = np.asarray([row.like_source for row in rows])
    flagged = np.asarray([COPY in row.flags for row in rows])
    return {
        "sentences": len(rows),
        **ranking_figures(confidence, chrf),
        "copies": int(copies.sum()),
        "copy_recall": float(flagged[copies].mean()) if copies.any() else float("nan"),
        "copy_false": float(flagged[~copies].mean()) if (~copies).any() else float("nan"),
        "alike": int(alike.sum()),
        "alike_recall": float(flagged[alike].mean()) if alike.any() else float("nan"),
    }


def echo_recall(sources: list[str]) -> tuple[int, float]:
    """Each source with English words given back as its translation: the share flagged."""
    english = [s for s in sources if copies_english(s)]
    return len(english), sum(copies_source(s, s) for s in english) / max(len(english), 1)


def print_figures(name: str, figures: dict[str, float], echo: tuple[int, float]) -> None:
    print(
        f"{name:<14} {figures['sentences']:>5}  spearman {figures['spearman']:.3f}  "
        f"bad(chrF<30) least-10% {figures['bad_least']:.1%} rest {figures['bad_rest']:.1%} "
        f"ratio {figures['bad_ratio']:.1f}x  copy recall {figures['copy_recall']:.1%} "
        f"(of {figures['copies']}; by letters alone {figures['alike_recall']:.1%} of "
        f"{figures['alike']}), on others {figures['copy_false']:.1%}  "
        f"echo recall {echo[1]:.1%} (of {echo[0]})"
    )


def show_copies(rows: list[Row]) -> None:
    """Each output that copies the source, and each other output the flag is raised on, to read
    what the flag catches and misses."""
    for row in rows:
        flagged = COPY in row.flags
        if row.copies or flagged:
            verdict = ("caught" if flagged else "MISSED") if row.copies else "flag on a non-copy"
            print(f"  {verdict}: {row.source!r} -> {row.output!r}")


def sets(
    data: Path, domains: Path, size: int, domain_size: int, seed: int, *, part: str = "test",
    calibrated_on: dict | None = None,
):  # fmt: skip
    """(name, references) for the test part and each domain test part, sampled with `seed`; with
    part "dev", the selection part and each domain's dev part, where choices are made.

    The selection part is also where `mt calibrate` fits the confidence, so its sample
    (`calibrated_on`: the calibration's "sentences" and "seed") is left out of the dev set: the
    confidence is measured on sentences it was not fitted to. (calibrate records the sentences it
    kept: as many as it dropped for want of evidence, usually none, can stay in.)
    """
    if part == "test":
        pool = grouped_references(read_pairs(data / "test.tsv"))
    else:
        pool = grouped_references(read_pairs(data / "selection.tsv"))
        if calibrated_on:
            fitted = set(sample_sources(pool, calibrated_on["sentences"], calibrated_on["seed"]))
            pool = {source: refs for source, refs in pool.items() if source not in fitted}
    name = "test" if part == "test" else "selection"
    yield name, {source: pool[source] for source in sample_sources(pool, size, seed)}
    pairs_of = test_pairs if part == "test" else dev_pairs
    for name in DOMAINS_SPLIT if domains.is_dir() else ():
        found = grouped_references([p for p in pairs_of(domains, name) if p[0].strip()])
        yield name, {s: found[s] for s in sample_sources(found, domain_size, seed)}


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser, help="a run (calibrated, or calibrated here: give a copy)")
    harness.add_data(parser, required=True)
    harness.add_domains(parser)
    harness.add_part(parser)
    harness.add_limit(parser, 1000, flag="--sentences", help="test or selection sample")
    harness.add_limit(parser, 300, flag="--domain-sentences", help="sample of each domain part")
    harness.add_beam(parser, 1, flag="--beam-size")
    harness.add_threads(parser)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--show-copies", action="store_true", help="print the copies and the flag's other hits"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="JSON; default bench/trust/results-PART.json"
    )
    args = parser.parse_args(argv)
    config = DecodeConfig(beam_size=args.beam_size, n_best=1)
    translator = open_translator(
        resolve(args.run), TranslateOptions(decode=config), device="cpu", threads=args.threads
    )
    if not translator.calibration.calibrated:
        print(f"{args.run} has no calibration.json: calibrating on its selection part first")
        calibration = calibrate(translator, args.data / "selection.tsv")
        save_calibration(translator, calibration)
        translator = translator.with_options(replace(translator.options, calibration=calibration))
    print(harness.machine_line(args.threads))
    print(f"run {args.run}, beam {args.beam_size}, calibration {translator.calibration.fitted}")
    if not args.domains.is_dir():
        print(
            f"{args.domains} is absent: the domain {args.part} parts are skipped", file=sys.stderr
        )
    fitted = translator.calibration.fitted or {}
    measured = {}
    for name, references in sets(
        args.data, args.domains, args.sentences, args.domain_sentences, args.seed,
        part=args.part, calibrated_on=fitted if "seed" in fitted else None,
    ):  # fmt: skip
        rows = trust_rows(translator, references)
        echo = echo_recall(list(references))
        measured[name] = {**trust_figures(rows), "echoes": echo[0], "echo_recall": echo[1]}
        print_figures(name, measured[name], echo)
        if args.show_copies:
            show_copies(rows)
    figures = {"run": str(args.run), "part": args.part, "calibration": fitted, "sets": measured}
    out = args.out or Path(f"bench/trust/results-{args.part}.json")
    return report(out, figures, trust_targets(measured), threads=args.threads)


def trust_targets(measured: dict[str, dict]) -> list[Target]:
    """Issue 27's targets, on every set: Spearman >= MIN_SPEARMAN, the least confident tenth
    holding MIN_BAD_RATIO x the rest's bad share, and the copy flag catching MIN_COPY_RECALL of
    the outputs that copy (pooled over the sets: copies are rare; no copy at all is not a recall)
    and of echoes."""
    checks = []
    for name, figures in measured.items():
        checks.append(Target(f"{name}: Spearman(confidence, chrF)", figures["spearman"], ">=",
                             MIN_SPEARMAN))  # fmt: skip
        checks.append(Target(f"{name}: bad share, least confident 10% / rest",
                             figures["bad_ratio"], ">=", MIN_BAD_RATIO))  # fmt: skip
        checks.append(Target(f"{name}: echoes flagged", figures["echo_recall"], ">=",
                             MIN_COPY_RECALL))  # fmt: skip
    copies = sum(figures["copies"] for figures in measured.values())
    caught = sum(f["copies"] * f["copy_recall"] for f in measured.values() if f["copies"])
    recall = caught / copies if copies else float("nan")
    checks.append(Target(f"copy flag recall ({copies} copies, all sets)", recall, ">=",
                         MIN_COPY_RECALL))  # fmt: skip
    return checks


if __name__ == "__main__":
    sys.exit(main())
