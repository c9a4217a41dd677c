"""Translate streams of sentences with a trained run, in bounded chunks and in input order."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch

from mt.config import NORMALIZE_INPUT, DecodeConfig
from mt.data.feed.augment import has_placeholders
from mt.data.feed.batching import encode_sources
from mt.data.tokenization import BOS, EOS, PAD, PLACEHOLDERS, UNK
from mt.decode.engine import engine_for
from mt.decode.glossary import (
    NAME_STAND_INS,
    Glossary,
    holds_all,
    inner,
    join_around,
    needs_translation,
    place,
    split_at_terms,
    with_terms,
)
from mt.decode.glossary import Slots as TermSlots
from mt.decode.glossary import restore as restore_terms
from mt.decode.placeholders import (
    Protectable,
    Slots,
    protect,
    protect_spans,
    restore,
    restore_spans,
)
from mt.decode.run_tables import lexicon_for, normalizer_for
from mt.decode.search import Hypothesis, length_limit
from mt.decode.segment import join_alternatives, segment
from mt.errors import MtError
from mt.model.rundir import LoadedRun
from mt.quality.confidence import Evidence, add_evidence, read_calibration
from mt.quality.flags import flags_for
from mt.text.cleaning import clean_text, without_surrogates
from mt.text.names import NameRule
from mt.text.spans import mask_spans

CHUNK_LINES = 2000
"""Lines read before decoding: sorted by length inside a chunk for dense batches, and the bound
on what is held in memory however long the input is."""


@dataclass
class TermCounts:
    """Glossary terms found in the sources, those that found no free stand-in (more terms in one
    sentence than stand-ins), and the pieces that needed more than one search to keep them."""

    found: int = 0
    unplaced: int = 0
    searched_again: int = 0  # pieces whose best hypothesis lost a stand-in
    translated_around: int = 0  # pieces translated stretch by stretch around their terms
    already_there: int = 0  # lines whose translation without stand-ins had every term


@dataclass(frozen=True)
class _Masked:
    """A piece as the model sees it: its stand-ins for names (`slots`) and glossary terms."""

    text: str
    slots: Slots
    terms: TermSlots
    unplaced: bool  # a glossary term found no free stand-in
    original: str
    glossary: Glossary | None


@dataclass(frozen=True)
class Translation:
    source: str
    hypotheses: tuple[tuple[str, float], ...]  # (detokenized text, score), best first
    pieces: int = 1  # sentences (and parts of too-long ones) translated for this line
    evidence: Evidence | None = None  # what the search saw of the best translation
    confidence: float | None = None  # in [0, 1] (mt.quality.confidence); None: not computed
    flags: tuple[str, ...] = ()  # mt.quality.flags: copy, repetition, cut, not_english

    @property
    def text(self) -> str:
        return self.hypotheses[0][0] if self.hypotheses else ""


class Translator:
    """A loaded run plus decode settings; translate() keeps order and streams chunk by chunk."""

    def __init__(
        self,
        run: LoadedRun,
        config: DecodeConfig,
        device: torch.device,
        warn: Callable[[str], None] = lambda message: None,
        split: bool = True,
        trained_src_len: int | None = None,
        placeholders: bool = True,
        protectable: Protectable | None = None,
        normalize: bool = False,
        keep: Sequence[str] = (),
    ) -> None:
        self.run = run
        self.config = config
        self.device = device
        self.warn = warn
        self.max_src_len = run.config.max_positions - 1
        self.decoded_tokens = 0
        # PyTorch in config.precision, or CTranslate2 for an `mt export`
        self.engine = engine_for(run, device, config.precision)
        self.split = split  # False (--no-split): a line is one piece unless the model can't take it
        # Split pieces fit the length the model was trained on (it has seen nothing longer).
        self.piece_len = min(trained_src_len or self.max_src_len, self.max_src_len)
        self.placeholders = placeholders  # protected spans, or unseen names through stand-ins
        # A model trained with --placeholders copies placeholder tokens: every protected span
        # goes through one. Older models keep the stand-ins (names and numbers, three at most).
        self.span_tokens = has_placeholders(run.source, run.target)
        if keep and not self.span_tokens:
            raise MtError(
                "--keep needs a model whose tokenizers have placeholder tokens (prepared and "
                "trained with them); this one has none"
            )
        self.keep = tuple(keep)
        self.lost_spans = 0  # protected spans whose token a translation lost (put back at the end)
        # Which words those are: by default the run's lexicon decides, read once here.
        self.protectable = protectable or NameRule(
            one_piece=self.one_piece, lexicon=lexicon_for(run.directory)
        )
        # calibration.json from `mt calibrate`, else the uncalibrated fallback (it says so)
        self.calibration = read_calibration(run.directory)
        # --normalize: casual input made to look like the training English (mt.text.normalize)
        self.normalizer: Callable[[str], str] | None = (
            normalizer_for(run.directory) if normalize else None
        )
        self.glossary: Glossary | None = None  # terms for translate(); translate_each() per line
        # Glossary terms go through the same tokens, or names the model copies without them.
        self.term_stand_ins = PLACEHOLDERS if self.span_tokens else NAME_STAND_INS
        self.terms = TermCounts()

    @property
    def precision_reason(self) -> str:
        """What the search computes in and why, for logs, /model and `mt evaluate`."""
        return getattr(self.engine, "precision_reason", "CTranslate2's compute type")

    def translate(self, lines: Iterable[str]) -> Iterator[Translation]:
        """Each line cut into sentences (mt.decode.segment), translated, and joined back with its
        spacing; lines are read CHUNK_LINES at a time so that batches are dense."""
        iterator = iter(lines)
        chunks = iter(lambda: list(itertools.islice(iterator, CHUNK_LINES)), [])
        return self.translate_batches(chunks)

    def translate_batches(self, batches: Iterable[Sequence[str]]) -> Iterator[Translation]:
        """Like translate(), but each batch is decoded as soon as it arrives: a live pipe's lines
        (mt.cli.textio) are not held back waiting for more."""
        for batch in batches:
            yield from self._translate_lines(list(batch), [self.glossary] * len(batch))

    def translate_each(
        self, lines: Sequence[str], glossaries: Sequence[Glossary | None]
    ) -> list[Translation]:
        """The lines, each with its own glossary (the server's requests, batched together)."""
        return self._translate_lines(list(lines), list(glossaries))

    def _translate_lines(
        self, lines: list[str], glossaries: list[Glossary | None]
    ) -> list[Translation]:
        """Lines with a glossary are first translated without it: where that translation already
        has every term's Spanish it is kept (`already_there`), and the terms are forced with
        stand-ins only in the others, so a model that knows the terms keeps its own phrasing."""
        # Only lines that hold a term: for the others the plain translation is the answer.
        terms = {
            i: glossary.find(line)
            for i, (line, glossary) in enumerate(zip(lines, glossaries, strict=True))
            if glossary is not None
        }
        asked = [i for i, found in terms.items() if found]
        if not asked:
            return self._translate_plain_or_forced(lines, glossaries)
        results = self._translate_plain_or_forced(lines, [None] * len(lines))
        forced = []
        for i in asked:
            glossary = glossaries[i]
            assert glossary is not None
            written = with_terms(lines[i], results[i].text, glossary)
            if written is None:
                forced.append(i)
                continue
            self.terms.found += len(terms[i])
            self.terms.already_there += 1
            hypotheses = results[i].hypotheses
            results[i] = replace(
                results[i], hypotheses=((written, hypotheses[0][1]), *hypotheses[1:])
            )
        redone = self._translate_plain_or_forced(
            [lines[i] for i in forced], [glossaries[i] for i in forced]
        )
        for i, translation in zip(forced, redone, strict=True):
            results[i] = translation
        return results

    def _translate_plain_or_forced(
        self, lines: list[str], glossaries: list[Glossary | None]
    ) -> list[Translation]:
        # Pieces fit the training length, or with --no-split what the model's positions allow;
        # cut_long sees to it, so no input is ever cut off.
        limit = self.piece_len if self.split else self.max_src_len
        lines = [without_surrogates(line) for line in lines]

        def fits(text: str) -> bool:
            # With placeholder tokens a span reaches the model as one token: a long URL must not
            # get its sentence cut (and itself cut in two) for the pieces it would spell.
            if self.placeholders and self.span_tokens:
                text = mask_spans(text, PLACEHOLDERS[0], self.keep)
            return len(self.run.source.encode(clean_text(text))) < limit

        segmented = [
            segment(line, split=self.split, fits=fits, normalize=self.normalizer) for line in lines
        ]
        pieces = [
            (piece, glossary)
            for line, glossary in zip(segmented, glossaries, strict=True)
            for piece in line.pieces
        ]
        masked = [self._protect(piece, glossary) for piece, glossary in pieces]
        done = self._translate_chunk([m.text for m in masked])
        done = self._keep_terms(done, masked)
        translated = iter(zip(done, masked, strict=True))
        results = []
        for line, cut in zip(lines, segmented, strict=True):
            parts, evidence = [], []
            for _ in cut.pieces:
                translation, m = next(translated)
                parts.append(self._restore(translation.hypotheses, m))
                if translation.evidence is not None:
                    evidence.append(translation.evidence)
            hypotheses = join_alternatives(cut, parts)
            results.append(self._judged(line, hypotheses, len(cut.pieces), add_evidence(evidence)))
        return results

    def _judged(self, line: str, hypotheses, pieces: int, evidence: Evidence | None) -> Translation:
        """A line's Translation with its confidence and flags."""
        text = hypotheses[0][0] if hypotheses else ""
        cut = evidence is not None and evidence.cut
        return Translation(
            line,
            hypotheses,
            pieces,
            evidence=evidence,
            confidence=self.calibration.confidence(evidence),
            flags=flags_for(line, text, cut=cut),
        )

    def _protect(self, piece: str, glossary: Glossary | None) -> _Masked:
        """Glossary terms first (their stand-ins are then taken), then protected spans (with
        placeholder tokens still free) or unseen names."""
        text, terms, unplaced = piece, (), 0
        if glossary is not None:
            text, terms, unplaced = place(piece, glossary, self.term_stand_ins)
            self.terms.found += len(terms) + unplaced
            self.terms.unplaced += unplaced
        slots: Slots = ()
        if self.placeholders and self.span_tokens:
            text, slots = protect_spans(text, self.protectable, self.keep)
        elif self.placeholders:
            text, slots = protect(text, self.protectable)
        return _Masked(text, slots, terms, unplaced > 0, piece, glossary)

    def _keep_terms(self, done: list[Translation], masked: list[_Masked]) -> list[Translation]:
        """Every term in the output. Where the best hypothesis lost a stand-in, the best one that
        holds them all, among the n-best or those of a beam search at least 5 wide; where none
        does, or a term had no stand-in, the text around the terms translated stretch by
        stretch (mt.decode.glossary.split_at_terms)."""
        done = list(done)
        again = [
            i for i, m in enumerate(masked) if m.terms and not holds_all(done[i].text, m.terms)
        ]
        if again:
            wide = max(self.config.beam_size, 5)
            config = replace(self.config, beam_size=wide, n_best=wide)
            retried = self._translate_chunk([done[i].source for i in again], config)
            self.terms.searched_again += len(again)
            for i, extra in zip(again, retried, strict=True):
                hyps = done[i].hypotheses
                keep = [h for h in hyps + extra.hypotheses if holds_all(h[0], masked[i].terms)]
                if keep:
                    done[i] = replace(done[i], hypotheses=(keep[0], *hyps[1:]))
        around = [
            i
            for i, m in enumerate(masked)
            if m.unplaced or (m.terms and not holds_all(done[i].text, m.terms))
        ]
        for i, text in zip(
            around, self._translate_around([masked[i] for i in around]), strict=True
        ):
            self.terms.translated_around += 1
            # already whole: its stretches were protected and restored on their own
            done[i] = replace(done[i], hypotheses=((text, done[i].hypotheses[0][1]),))
            masked[i] = replace(masked[i], text=text, slots=(), terms=())
        return done

    def _translate_around(self, masked: list[_Masked]) -> list[str]:
        """Each piece's stretches between its terms translated alone, the terms between them."""
        if not masked:
            return []
        plans = [split_at_terms(m.original, m.glossary) for m in masked]  # type: ignore[arg-type]
        wanted = [inner(s) for stretches, _ in plans for s in stretches if needs_translation(s)]
        done = iter(t.text for t in self._translate_lines(wanted, [None] * len(wanted)))
        joined = []
        for stretches, spanish in plans:
            texts = [next(done) for s in stretches if needs_translation(s)]
            joined.append(join_around(stretches, texts, spanish))
        return joined

    def _restore(
        self, hypotheses: tuple[tuple[str, float], ...], masked: _Masked
    ) -> tuple[tuple[str, float], ...]:
        """Glossary terms put back first, then protected spans (or stand-ins)."""
        texts = [restore_terms(text, masked.terms)[0] for text, _ in hypotheses]
        scores = [score for _, score in hypotheses]
        if not self.span_tokens:
            return tuple(zip((restore(t, masked.slots) for t in texts), scores, strict=True))
        restored = [restore_spans(text, masked.slots) for text in texts]
        self.lost_spans += restored[0].lost if restored else 0
        return tuple(zip((r.text for r in restored), scores, strict=True))

    def one_piece(self, word: str) -> bool:
        """Whether `word` is one piece of the source vocabulary, a word the model has learned."""
        return len(self.run.source.encode(word)) == 1

    def _translate_chunk(
        self, lines: list[str], config: DecodeConfig | None = None
    ) -> list[Translation]:
        config = config or self.config
        cleaned = [clean_text(line) for line in lines]
        ids = self.run.source.encode_batch(cleaned)
        sources = encode_sources(ids, self.max_src_len)
        results = [Translation(line, ()) for line in lines]
        order = sorted((i for i, text in enumerate(cleaned) if text), key=lambda i: len(sources[i]))
        for start in range(0, len(order), config.batch_size):
            rows = order[start : start + config.batch_size]
            found = self._search([sources[i] for i in rows], config)
            for row, hyps in zip(rows, found, strict=True):
                results[row] = Translation(
                    lines[row],
                    tuple((self.run.target.decode(h.tokens), h.score) for h in hyps),
                    evidence=self._evidence(sources[row], hyps[0], config) if hyps else None,
                )
        return results

    def _evidence(self, source: np.ndarray, best: Hypothesis, config: DecodeConfig) -> Evidence:
        """`source` ends in [EOS]; the limit is the search's, so reaching it means a cut."""
        limit = length_limit(
            len(source), config.max_len_a, config.max_len_b, self.run.config.max_positions
        )
        return Evidence(
            log_prob=best.log_prob,
            target_labels=len(best.tokens) + 1,
            source_pieces=len(source) - 1,
            unknown_pieces=int((source == UNK).sum()),
            cut=len(best.tokens) >= limit,
        )

    def _search(self, sources: list, config: DecodeConfig | None = None) -> list[list[Hypothesis]]:
        hypotheses = self.engine.search(sources, config or self.config)
        self.decoded_tokens += sum(len(h[0].tokens) + 1 for h in hypotheses if h)
        return hypotheses

    def attention(self, sentence: str) -> tuple[list[str], list[str], torch.Tensor]:
        """Source pieces, target pieces and the (target, source) cross-attention of the best
        translation, averaged over the heads of the last decoder layer."""
        text = clean_text(sentence)
        source_ids = encode_sources([self.run.source.encode(text)], self.max_src_len)[0]
        best = self._search([source_ids])[0][0]
        src = torch.as_tensor(source_ids)[None].to(self.device)
        tgt_in = torch.tensor([[BOS, *best.tokens]], device=self.device)
        weights = self.run.model.cross_attention_map(src, src != PAD, tgt_in)[0].cpu()
        source_pieces = [self.run.source.id_to_piece(int(i)) for i in source_ids]
        target_pieces = [self.run.target.id_to_piece(int(i)) for i in (*best.tokens, EOS)]
        return source_pieces, target_pieces, weights


def open_translator(
    model_dir: Path,
    config: DecodeConfig,
    *,
    device: str = "auto",
    checkpoint: str = "best",
    warn: Callable[[str], None] = lambda message: None,
    split: bool = True,
    threads: int | None = None,
    compute_type: str = "default",
    normalize: bool = NORMALIZE_INPUT,
    keep: Sequence[str] = (),
) -> Translator:
    """The one way callers (CLI, server, benchmarks) open a model directory for translation:
    a run directory, or an `mt export` directory (searched with CTranslate2, whose
    `compute_type` applies; `threads` sets the CPU threads of either engine); `keep` names
    are protected spans (--keep)."""
    from mt.decode.engine import open_run
    from mt.model.devices import resolve_device

    torch_device = resolve_device(device)
    run = open_run(
        model_dir,
        checkpoint=checkpoint,
        device=torch_device,
        threads=threads,
        compute_type=compute_type,
    )
    return translator_for(
        run, config, torch_device, warn=warn, split=split, normalize=normalize, keep=keep
    )


def translator_for(
    run: LoadedRun,
    config: DecodeConfig,
    device: torch.device,
    *,
    warn: Callable[[str], None] = lambda message: None,
    split: bool = True,
    normalize: bool = False,
    keep: Sequence[str] = (),
) -> Translator:
    """A Translator for a loaded run, cutting pieces at the length it was trained on: what
    `mt translate`, `mt evaluate`, the server and the benchmarks all use."""
    trained = _trained_src_len(run.directory)
    return Translator(
        run,
        config,
        device,
        warn,
        split=split,
        trained_src_len=trained,
        normalize=normalize,
        keep=keep,
    )


def _trained_src_len(model_dir: Path) -> int | None:
    """The source length limit the model was trained with, where its train.json says."""
    from mt.model.rundir import read_train_config

    try:
        return read_train_config(model_dir)[0].max_src_len
    except MtError:
        return None
