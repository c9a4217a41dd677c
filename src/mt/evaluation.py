"""Measure a trained run: the thesis' teacher-forced metrics and the field's BLEU/chrF/TER."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from mt.config import DecodeConfig
from mt.corpus import read_corpus
from mt.errors import MtError
from mt.metrics import corpus_scores, evaluate_teacher_forced
from mt.prepare import load_prepared
from mt.rundir import LoadedRun, read_train_config
from mt.train import encode_parts
from mt.translation import Translator


@dataclass
class EvaluationReport:
    pairs: int
    cross_entropy: float
    accuracy: float
    bleu: float
    chrf: float
    ter: float
    signatures: dict[str, str]
    decode: dict[str, object]
    seconds: float
    sentences_per_second: float
    tokens_per_second: float
    multi_ref: dict[str, float] | None = None
    hypotheses: list[str] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, object]:
        data = asdict(self)
        data.pop("hypotheses")
        return data


def group_by_source(pairs: list[tuple[str, str]]) -> OrderedDict[str, list[str]]:
    """English sentence -> all of its Spanish translations, in first-seen order."""
    groups: OrderedDict[str, list[str]] = OrderedDict()
    for english, spanish in pairs:
        groups.setdefault(english, []).append(spanish)
    return groups


def evaluate_run(
    run: LoadedRun,
    pairs: list[tuple[str, str]],
    config: DecodeConfig,
    device: torch.device,
    *,
    multi_ref: bool = False,
) -> EvaluationReport:
    train_config, _ = read_train_config(run.directory)
    encoded = encode_parts(pairs, [], run.source, run.target, train_config).train
    teacher = evaluate_teacher_forced(run.model, encoded, train_config, device)

    translator = Translator(run, config, device)
    started = time.perf_counter()
    sources = [english for english, _ in pairs]
    unique = list(
        dict.fromkeys(sources)
    )  # an English sentence with several references: decode once
    translated = dict(zip(unique, (t.text for t in translator.translate(unique)), strict=True))
    seconds = time.perf_counter() - started
    hypotheses = [translated[english] for english in sources]
    scores = corpus_scores(hypotheses, [[spanish] for _, spanish in pairs])

    multi = None
    if multi_ref:
        groups = group_by_source(pairs)
        grouped = corpus_scores([translated[en] for en in groups], list(groups.values()))
        multi = {
            "sentences": len(groups),
            "bleu": grouped.bleu,
            "chrf": grouped.chrf,
            "ter": grouped.ter,
        }
    return EvaluationReport(
        pairs=len(pairs),
        cross_entropy=teacher.loss,
        accuracy=teacher.accuracy,
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
        tokens_per_second=translator.decoded_tokens / seconds if seconds else 0.0,
        multi_ref=multi,
        hypotheses=hypotheses,
    )


def evaluation_pairs(run: Path, split: str, tsv: Path | None) -> list[tuple[str, str]]:
    """Pairs to score: any TSV, or a part of the data the run was trained from."""
    if tsv is not None:
        return read_corpus(tsv).pairs
    if split not in ("test", "selection"):
        raise MtError(f"--split must be test or selection, got {split!r}")
    _, prepared_dir = read_train_config(run)
    return load_prepared(prepared_dir).read_part(split)
