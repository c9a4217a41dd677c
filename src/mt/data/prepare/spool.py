"""`mt prepare`'s first stage: every corpus read, cleaned and filtered chunk by chunk into one
spool file, with only two 8-byte hashes a pair kept in memory (for duplicates and for the split
by English sentence, which mt.data.prepare.pipeline decides on them)."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from mt.config import PrepareConfig
from mt.data.prepare.partition import combine_hashes, pair_hashes
from mt.data.prepare.stages import Stages
from mt.data.prepare.synthetic import tagged
from mt.data.readers.corpus import CorpusInput, CorpusReport, Filters, stream_corpus
from mt.data.readers.translator_files import is_translator_input


@dataclass
class Spool:
    """What reading leaves: the cleaned pairs in one file and their hashes in file order."""

    path: Path
    pair_hashes: list[np.ndarray] = field(default_factory=list)
    english_hashes: list[np.ndarray] = field(default_factory=list)
    reports: list[CorpusReport] = field(default_factory=list)
    pairs_per_corpus: list[int] = field(default_factory=list)
    synthetic: list[np.ndarray] = field(default_factory=list)  # per chunk: rows from --synthetic
    duplicate: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    excluded: int = 0  # pairs whose English is in a --selection or --test file


def read_all(
    inputs: Sequence[CorpusInput], real: int, tmp: Path, *, config: PrepareConfig, stages: Stages
) -> Spool:
    """Every pair written source first (Spanish with --reverse; a synthetic source tagged), its
    hashes taken from the English and Spanish as read."""
    spool = Spool(path=tmp / ".spool.tsv")
    stages.start("read", None)
    filters = filters_of(config)
    with spool.path.open("w", encoding="utf-8", newline="\n") as file:
        for number, source in enumerate(inputs):
            report = CorpusReport(path=source.name)
            pairs = 0
            chunks = stream_corpus(
                source,
                report,
                strict=config.strict,
                filters=filters,
                paragraphs=_splits_paragraphs(source, config),
            )
            for chunk in chunks:
                sources, targets = (chunk.es, chunk.en) if config.reverse else (chunk.en, chunk.es)
                if number >= real:
                    sources = [tagged(text) for text in sources]
                file.write("".join(f"{a}\t{b}\n" for a, b in zip(sources, targets, strict=True)))
                spool.synthetic.append(np.full(len(chunk.en), number >= real))
                english = pair_hashes(chunk.en)
                spool.english_hashes.append(english)
                spool.pair_hashes.append(combine_hashes(english, pair_hashes(chunk.es)))
                pairs += len(chunk.en)
                stages.advance(len(chunk.en))
            spool.reports.append(report)
            spool.pairs_per_corpus.append(pairs)
    if not spool.pair_hashes:
        spool.pair_hashes.append(np.zeros(0, dtype=np.uint64))
        spool.english_hashes.append(np.zeros(0, dtype=np.uint64))
        spool.synthetic.append(np.zeros(0, dtype=bool))
    return spool


def _splits_paragraphs(source: CorpusInput, config: PrepareConfig) -> bool:
    """--paragraphs auto: the pairs of translator files are documentation paragraphs."""
    if config.paragraphs == "auto":
        return source.path is not None and is_translator_input(source.path)
    return config.paragraphs == "all"


def _total_report(reports: Sequence[CorpusReport]) -> CorpusReport:
    total = CorpusReport(path=", ".join(report.path for report in reports))
    for report in reports:
        total.merge(report)
    return total


def deduplicate(spool: Spool) -> CorpusReport:
    """Mark later copies of a pair as duplicates (`spool.duplicate`); the counts of all corpora."""
    spool.duplicate = pd.Series(np.concatenate(spool.pair_hashes)).duplicated().to_numpy()
    bounds = np.cumsum([0, *spool.pairs_per_corpus])
    for report, (a, b) in zip(spool.reports, itertools.pairwise(bounds), strict=True):
        kept = int((~spool.duplicate[a:b]).sum())
        report.duplicates, report.pairs = report.pairs - kept, kept
    return _total_report(spool.reports)


def filters_of(config: PrepareConfig) -> Filters:
    """The raw-text filters applied while reading (`max_length` waits for the tokenizers)."""
    return Filters(
        max_words=config.max_words,
        max_ratio=config.max_ratio,
        drop_identical=config.drop_identical,
    )
