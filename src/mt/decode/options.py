"""How to translate, decided once: the frozen options a Translator's steps are built from. A
variant is another Translator from `dataclasses.replace(options, ...)` (`Translator.with_options`),
which shares the model already opened.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from mt.config import DECODE, NORMALIZE_INPUT, DecodeConfig
from mt.decode.glossary import Glossary
from mt.decode.placeholders import Protectable
from mt.quality.confidence import Calibration, Uncalibrated


@dataclass(frozen=True)
class TranslateOptions:
    """What `mt translate`, `evaluate`, `serve` and `calibrate` decide about a translation."""

    decode: DecodeConfig = DECODE  # the search
    split: bool = True  # False (--no-split): a line is one piece unless the model can't take it
    # --normalize: casual input made to look like the training English (mt.text.normalize), with
    # `normalizer` when given (benchmarks, tests), else the run's own (its words.tsv)
    normalize: bool = NORMALIZE_INPUT
    normalizer: Callable[[str], str] | None = None
    placeholders: bool = True  # protected spans, or unseen names through stand-ins
    keep: tuple[str, ...] = ()  # --keep names, protected like URLs (placeholder tokens only)
    protectable: Protectable | None = None  # which words are names; None: the run's lexicon
    glossary: Glossary | None = None  # terms for translate(); translate_each() takes them per line
    # --dictionary: nouns (mt.text.bilingual.read_noun_senses) for the words the training never had,
    # placed as glossary terms after the glossary's own (mt.decode.unseen)
    dictionary: Mapping[str, Sequence[str]] | None = None
    # --cognates: a never-seen noun's Spanish cognate where the dictionary has none
    # (mt.text.cognates); None: the model's own (its decode.json), which the Translator fills in
    cognates: bool | None = None
    # --first-words: a sentence's first word in lower case where the model knows that spelling
    # better (mt.text.first_words); None: the model's own (its decode.json)
    first_words: bool | None = None
    # --titles: with first_words, a sentence in title case gets each capitalised word the first
    # word's treatment (mt.text.first_words); None: the model's own (its decode.json)
    titles: bool | None = None
    # None: the model directory's calibration.json (or the uncalibrated fallback, which says so)
    calibration: Calibration | Uncalibrated | None = None
    # False: no not_english flag, for output that shows no flags (`mt translate`'s plain text),
    # which then starts without loading the language classifier (docs/performance.md)
    check_language: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.keep, tuple):
            raise TypeError(f"keep must be a tuple of names, got {type(self.keep).__name__}")
