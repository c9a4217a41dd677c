"""A model opened once for translation, shared by every Translator made from it: the search engine
for each precision asked for, the lexicon, calibration.json and the normaliser's word statistics
are read here, once, so a variant (`Translator.with_options`) costs no reload.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from mt.data.tokenization import PLACEHOLDERS, has_placeholders
from mt.decode.ct2_engine import ExportedRun
from mt.decode.glossary import NAME_STAND_INS
from mt.decode.run_tables import (
    first_word_candidates_for,
    lexicon_for,
    normalizer_for,
    seen_words_for,
)
from mt.quality.confidence import Calibration, Uncalibrated, read_calibration
from mt.text.first_words import FirstWords
from mt.text.names import NameRule
from mt.text.normalize import Normalizer, careful

if TYPE_CHECKING:  # an export translates without torch: only a run imports it
    import torch

    from mt.decode.engine import SearchEngine
    from mt.model.rundir import LoadedRun


class LoadedModel:
    """A run (or export) and its device; `engine` (tests): the search at every precision."""

    def __init__(
        self,
        run: LoadedRun | ExportedRun,
        device: torch.device | str,
        *,
        engine: SearchEngine | None = None,
    ) -> None:
        self.run = run
        self.device = device
        # which way it translates: English-only steps (normalising, the copy and language
        # flags) are for English sources, and sentences split by the source's rules
        self.direction = run.info.direction
        self.max_src_len = run.config.max_positions - 1
        # Split pieces fit the length the model was trained on (it has seen nothing longer).
        self.piece_len = min(run.info.max_src_len, self.max_src_len)
        # A model trained with --placeholders copies placeholder tokens: every protected span
        # goes through one. Older models keep the stand-ins (names and numbers, three at most).
        self.span_tokens = has_placeholders(run.source, run.target)
        # Glossary terms go through the same tokens, or names the model copies without them.
        self.term_stand_ins: tuple[str, ...] = PLACEHOLDERS if self.span_tokens else NAME_STAND_INS
        self._given_engine = engine
        self._engines: dict[str, SearchEngine] = {}

    def engine(self, precision: str) -> SearchEngine:
        """PyTorch in `precision` (resolved, "auto" probed once), or CTranslate2 for an export."""
        if self._given_engine is not None:
            return self._given_engine
        if isinstance(self.run, ExportedRun):
            return self.run.engine
        if precision not in self._engines:
            from mt.decode.engine import engine_for

            self._engines[precision] = engine_for(self.run, self.device, precision)
        return self._engines[precision]

    def pieces(self, word: str) -> int:
        """How many pieces of the source vocabulary spell `word`."""
        return len(self.run.source.encode(word))

    def one_piece(self, word: str) -> bool:
        """Whether `word` is one piece of the source vocabulary, a word the model has learned."""
        return self.pieces(word) == 1

    @cached_property
    def name_rule(self) -> NameRule:
        """Which words are names: the run's lexicon decides."""
        return NameRule(one_piece=self.one_piece, lexicon=lexicon_for(self.run.directory))

    @cached_property
    def calibration(self) -> Calibration | Uncalibrated:
        """calibration.json from `mt calibrate`, else the uncalibrated fallback (it says so)."""
        return read_calibration(self.run.info.calibration_directory)

    def normalise(self, sentence: str) -> str:
        """`sentence` through the run's normaliser; a careful one before the statistics are read."""
        return sentence if careful(sentence) else self.normalizer(sentence)

    @cached_property
    def seen_words(self) -> frozenset[str]:
        """The words its training English has, in lower case (the rest: mt.decode.unseen)."""
        return seen_words_for(self.run.directory)

    @cached_property
    def normalizer(self) -> Normalizer:
        """The run's normaliser for --normalize, from its word statistics."""
        return normalizer_for(self.run.directory)

    @cached_property
    def first_words(self) -> FirstWords:
        """Which sentence-initial words reach the model in lower case (mt.text.first_words):
        its word statistics, its source pieces and its lexicon decide."""
        return FirstWords(
            first_word_candidates_for(self.run.directory),
            pieces=self.pieces,
            lexicon=self.name_rule.lexicon,
        )
