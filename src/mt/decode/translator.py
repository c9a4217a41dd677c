"""Translate streams of sentences with a trained run, in bounded chunks and in input order.

A Translator is a LoadedModel (opened once) and the pipeline of steps (mt.decode.steps) built
from frozen TranslateOptions. Each call returns Translations that carry their own counters; a
variant is `translator.with_options(dataclasses.replace(translator.options, ...))`, which shares
the model. `open_translator` and `translator_for` are the one way callers open a model.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from mt.catalog.modelinfo import DECODE_SWITCHES, ModelInfo
from mt.config import DecodeConfig
from mt.decode.ct2_engine import ExportedRun
from mt.decode.glossary import Glossary
from mt.decode.loaded import LoadedModel
from mt.decode.options import TranslateOptions
from mt.decode.results import Translation
from mt.decode.steps.pipeline import Pipeline
from mt.decode.unseen import unseen_nouns
from mt.errors import MtError
from mt.quality.confidence import Calibration, Uncalibrated

if TYPE_CHECKING:  # an export translates without torch (open_translator)
    import torch

    from mt.decode.engine import SearchEngine
    from mt.model.rundir import LoadedRun

CHUNK_LINES = 2000
"""Lines read before decoding: sorted by length for dense batches, and the bound on memory."""


class Translator:
    """A loaded model plus frozen options; translate() keeps order and streams chunk by chunk."""

    def __init__(self, model: LoadedModel, options: TranslateOptions) -> None:
        self.model = model
        info = model.run.info
        if options.decode.length_penalty is None:  # not asked for: the model's own
            decode = replace(options.decode, length_penalty=info.length_penalty)
            options = replace(options, decode=decode)
        unset = [name for name in DECODE_SWITCHES if getattr(options, name) is None]
        options = replace(options, **{name: info.switch(name) for name in unset})
        self.options = options
        self.pipeline = Pipeline.build(model, options)
        self.unseen = None
        if options.dictionary is not None or options.cognates:  # seen_words reads words.tsv
            self.unseen = unseen_nouns(
                options.dictionary,
                cognates=bool(options.cognates),
                seen=model.seen_words,
                model=info.label,
            )

    def with_options(self, options: TranslateOptions) -> Translator:
        """Another Translator on the same model (nothing is reloaded)."""
        return Translator(self.model, options)

    @property
    def run(self) -> LoadedRun | ExportedRun:
        return self.model.run

    @property
    def device(self) -> torch.device | str:
        return self.model.device

    @property
    def config(self) -> DecodeConfig:
        return self.options.decode

    @property
    def engine(self) -> SearchEngine:
        return self.pipeline.search.engine

    @property
    def calibration(self) -> Calibration | Uncalibrated:
        """What the confidence is computed with (Uncalibrated says so)."""
        return self.pipeline.judge.calibration

    @property
    def precision_reason(self) -> str:
        """What the search computes in and why, for logs, /model and `mt evaluate`."""
        return getattr(self.engine, "precision_reason", "CTranslate2's compute type")

    def translate(self, lines: Iterable[str]) -> Iterator[Translation]:
        """Each line cut into sentences, translated and joined back, CHUNK_LINES lines at a time."""
        iterator = iter(lines)
        chunks = iter(lambda: list(itertools.islice(iterator, CHUNK_LINES)), [])
        return self.translate_batches(chunks)

    def translate_batches(self, batches: Iterable[Sequence[str]]) -> Iterator[Translation]:
        """Like translate(), each batch decoded as it arrives (a live pipe waits for none)."""
        glossary = self.options.glossary
        for batch in batches:
            yield from self.translate_each(batch, [glossary] * len(batch))

    def translate_each(
        self, lines: Sequence[str], glossaries: Sequence[Glossary | None]
    ) -> list[Translation]:
        """The lines, each with its own glossary (the server's requests, batched together), and
        the never-seen nouns' terms after it (mt.decode.unseen) where they were asked for."""
        if self.unseen is not None:
            pairs = zip(lines, glossaries, strict=True)
            glossaries = [self.unseen.glossary(line, given) for line, given in pairs]
        return self.pipeline.apply(lines, glossaries)

    def attention(self, sentence: str) -> tuple[list[str], list[str], torch.Tensor]:
        """Source pieces, target pieces and the best translation's cross-attention (last layer)."""
        return self.pipeline.search.attention(sentence)


def open_translator(
    info: ModelInfo,
    options: TranslateOptions,
    *,
    device: str = "auto",
    checkpoint: str = "best",
    threads: int | None = None,
    compute_type: str = "default",
    ct2_model: Path | None = None,
) -> Translator:
    """The one way callers open a model they resolved: a run, or an `mt export` (CTranslate2, whose
    `compute_type` applies); an export, or a run's CTranslate2 copy `ct2_model`, needs no torch."""
    if threads is not None and threads < 1:
        raise MtError(f"--threads must be positive, got {threads}")
    if info.kind == "export" or ct2_model is not None:
        from mt.decode.ct2_engine import export_device, open_exported

        place = export_device(device)
        exported = open_exported(
            info, device=place, threads=threads, compute_type=compute_type, ct2_model=ct2_model
        )
        return translator_for(exported, options, place)
    from mt.decode.engine import open_run
    from mt.model.devices import resolve_device

    torch_device = resolve_device(device)
    run = open_run(
        info,
        checkpoint=checkpoint,
        device=torch_device,
        threads=threads,
        compute_type=compute_type,
    )
    return translator_for(run, options, torch_device)


def translator_for(
    run: LoadedRun | ExportedRun, options: TranslateOptions, device: torch.device | str
) -> Translator:
    """A Translator for a loaded run: what every caller uses."""
    return Translator(LoadedModel(run, device), options)
