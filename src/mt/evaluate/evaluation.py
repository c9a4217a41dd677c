"""Measure a model: the thesis' teacher-forced metrics and the field's BLEU/chrF/TER, the search
through the engine `mt translate` uses and the teacher-forced pass through PyTorch wherever the
model has weights (mt.evaluate.engines)."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from mt.catalog.modelinfo import ModelInfo
from mt.config import DecodeConfig
from mt.data.feed.batching import encode_parts
from mt.data.prepared_dir import load_prepared
from mt.decode.options import TranslateOptions
from mt.decode.results import Counts, total
from mt.decode.translator import Translator, translator_for
from mt.errors import MtError
from mt.evaluate.engines import TeacherForcing, search_name, teacher_forcing
from mt.evaluate.scores import corpus_scores
from mt.evaluate.testsets import EvaluationSet, read_aligned_set, read_tsv_set
from mt.model.rundir import LoadedRun


@dataclass
class EvaluationReport:
    pairs: int  # (source, reference) pairs the teacher-forced metrics saw
    cross_entropy: float
    accuracy: float | None  # None for an export: CTranslate2's scoring gives no accuracy
    bleu: float
    chrf: float
    ter: float
    signatures: dict[str, str]
    decode: dict[str, object]
    seconds: float
    sentences_per_second: float
    tokens_per_second: float
    multi_ref: dict[str, float] | None = None
    segments: int = 0  # lines scored, duplicates included
    references: int = 1  # references per segment
    skipped: int = 0  # bad lines left out by --skip-bad
    precision: str = ""  # what the search computed in, and why
    search: str = ""  # the engine that translated (mt.evaluate.engines.search_name)
    teacher_forced: str = ""  # the engine that computed cross-entropy and accuracy
    hypotheses: list[str] = field(default_factory=list, repr=False)
    counts: Counts = field(default_factory=Counts, repr=False)  # what translating took and met

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data.pop("hypotheses")
        data.pop("counts")
        return data


def evaluate_run(
    run: LoadedRun,
    pairs: list[tuple[str, str]],
    config: DecodeConfig,
    device: torch.device,
    *,
    multi_ref: bool = False,
) -> EvaluationReport:
    """Score (English, Spanish) pairs of a prepared part as segments of one reference, as given."""
    test_set = EvaluationSet.from_pairs("pairs", pairs)
    translator = translator_for(run, TranslateOptions(decode=config, normalize=False), device)
    return evaluate_set(
        translator, test_set, teacher=teacher_forcing(translator), multi_ref=multi_ref
    )


def evaluate_set(
    translator: Translator,
    test_set: EvaluationSet,
    *,
    teacher: TeacherForcing,
    multi_ref: bool = False,
) -> EvaluationReport:
    """Every segment scored as given (the figures match `sacrebleu`), translated as `mt translate`
    would, and `teacher` computing the teacher-forced figures in one pass."""
    pairs = test_set.pairs()
    run, config = translator.run, translator.config
    train_config = run.info.train
    encoded = encode_parts(pairs, [], run.source, run.target, train_config).train
    forced = teacher.score(encoded, train_config)

    started = time.perf_counter()
    unique = list(dict.fromkeys(test_set.sources))  # a repeated source is decoded once
    translations = list(translator.translate(unique))
    seconds = time.perf_counter() - started
    translated = dict(zip(unique, (t.text for t in translations), strict=True))
    counts = total(translations)
    hypotheses = [translated[source] for source in test_set.sources]
    scores = corpus_scores(hypotheses, test_set.references)

    multi = None
    if multi_ref:
        groups = test_set.grouped()
        grouped = corpus_scores([translated[src] for src in groups], list(groups.values()))
        multi = {
            "sentences": len(groups),
            "bleu": grouped.bleu,
            "chrf": grouped.chrf,
            "ter": grouped.ter,
        }
    return EvaluationReport(
        pairs=len(pairs),
        cross_entropy=forced.loss,
        accuracy=forced.accuracy,
        bleu=scores.bleu,
        chrf=scores.chrf,
        ter=scores.ter,
        signatures={
            "bleu": scores.bleu_signature,
            "chrf": scores.chrf_signature,
            "ter": scores.ter_signature,
        },
        decode=config.to_dict(),
        seconds=seconds,
        sentences_per_second=len(unique) / seconds if seconds else 0.0,
        tokens_per_second=counts.decoded_tokens / seconds if seconds else 0.0,
        multi_ref=multi,
        segments=len(test_set),
        references=test_set.reference_count(),
        skipped=len(test_set.skipped),
        precision=translator.precision_reason,
        search=search_name(translator),
        teacher_forced=teacher.name,
        hypotheses=hypotheses,
        counts=counts,
    )


def evaluation_set(
    info: ModelInfo,
    split: str,
    *,
    tsv: Path | None = None,
    source: Path | None = None,
    references: list[Path] | None = None,
    skip_bad: bool = False,
) -> EvaluationSet:
    """What to score: a TSV or aligned --src/--ref files as given, or a part of the run's data."""
    if tsv is not None and (source is not None or references):
        raise MtError("give either --tsv or --src/--ref, not both")
    if tsv is not None:  # english<TAB>spanish, whichever way the run translates
        return read_tsv_set(tsv, skip_bad=skip_bad, reverse=info.direction.reverse)
    if source is not None:
        return read_aligned_set(source, references or [], skip_bad=skip_bad)
    if references:
        raise MtError("--ref needs --src, the source file its lines translate")
    if split not in ("test", "selection"):
        raise MtError(f"--split must be test or selection, got {split!r}")
    if info.read_only and not info.prepared.is_dir():
        raise MtError(
            f"{info.label} was trained on data that is not installed with it: score a file with "
            "--tsv FILE or --src/--ref (its card says how its test sets were made)"
        )
    return EvaluationSet.from_pairs(split, load_prepared(info.prepared).read_part(split))
