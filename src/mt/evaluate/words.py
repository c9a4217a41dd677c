"""Words, measured (issue 66): of the English content words whose dictionary translation is in
the reference, the share a translation carries too, by how often the model's training English
has the word. BLEU hides where a model loses; this says whether it is the words it never saw.

A line's **attested words** are its English content words (4 letters or more, not among the
COMMON_ENGLISH most frequent of mt.text.dictionary), each once a line, that the bilingual
dictionary (mt.text.bilingual) translates into a word the reference holds; such a word is
**carried** when the translation holds one of those translations too. The words are found once
from the source and the reference, so every system is asked the same words.

Matching: English words as mt.text.wordstats.words_of finds them, lower case, a possessive 's
dropped, a regular plural read as its headword ("cities": "city"); Spanish words as
mt.text.words.ANY_WORD finds them, lower case, accents dropped but ñ kept, as written or with a
plural ending ("vacunas" carries "vacuna"); a dictionary translation of several words is none.

Buckets come from the model's words.tsv: a spelling's counts, summed over its capitalisations
(spellings seen once are not kept there, so "never" means at most once).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from mt.text.bilingual import english_singulars, read_bilingual
from mt.text.dictionary import english_words
from mt.text.spanish_words import without_accents
from mt.text.words import ANY_WORD
from mt.text.wordstats import WordStats, read_word_stats, words_of

COMMON_ENGLISH = 300
"""The most frequent English words that are never content words (issue 66's figure)."""
MIN_LETTERS = 4
NEVER, SOME, OFTEN = "never", "1-9", "10+"
BUCKETS = (NEVER, SOME, OFTEN)
OFTEN_COUNT = 10


@dataclass(frozen=True)
class WordTable:
    """What the measure looks words up in: the dictionary, the common words, the training counts."""

    translations: Mapping[str, frozenset[str]]  # English word -> single Spanish words, folded
    common: frozenset[str]
    counts: Mapping[str, int]  # lower-case spelling -> times in the training English


@dataclass(frozen=True)
class Attested:
    """One content word of a line whose dictionary translation the reference holds."""

    word: str
    bucket: str
    translations: frozenset[str]  # those of its translations the reference holds, folded


@dataclass(frozen=True)
class Tally:
    words: int
    carried: int

    @property
    def share(self) -> float | None:
        return self.carried / self.words if self.words else None


def open_word_table(*, dictionary: Path, word_stats: Path) -> WordTable:
    """The table of a dictionary file and a model's words.tsv, with the common English words."""
    return word_table(
        read_bilingual(dictionary),
        common=common_english(),
        counts=training_counts(read_word_stats(word_stats)),
    )


def word_table(
    dictionary: Mapping[str, Iterable[str]], *, common: Iterable[str], counts: Mapping[str, int]
) -> WordTable:
    """The dictionary keyed by lower-case headword ("Turkey" and "turkey" become one entry), each
    kept with its one-word translations, folded; headwords of more than one word are left out."""
    translations: dict[str, set[str]] = {}
    for headword, spanish in dictionary.items():
        english = headword.lower()
        if not english.isalpha():
            continue
        single = {found[0] for t in spanish if len(found := ANY_WORD.findall(fold(t))) == 1}
        if single:
            translations.setdefault(english, set()).update(single)
    return WordTable(
        translations={word: frozenset(spanish) for word, spanish in translations.items()},
        common=frozenset(word.lower() for word in common),
        counts=counts,
    )


@functools.cache
def common_english(count: int = COMMON_ENGLISH) -> frozenset[str]:
    """The `count` most frequent words of pyspellchecker's English list (ties by spelling)."""
    frequent = sorted(english_words().common.items(), key=lambda item: (-item[1], item[0]))
    return frozenset(word for word, _ in frequent[:count])


def training_counts(stats: WordStats) -> dict[str, int]:
    """How often the training English has each word, whatever its capitals."""
    counts: Counter[str] = Counter()
    for spelling, seen in stats.spellings.items():
        counts[spelling.lower()] += seen.first + seen.later
    return dict(counts)


def bucket_of(count: int) -> str:
    if count == 0:
        return NEVER
    return SOME if count < OFTEN_COUNT else OFTEN


def fold(text: str) -> str:
    """Lower case without acute accents or diaeresis; ñ kept."""
    return without_accents(text.lower())


def spanish_words(text: str) -> frozenset[str]:
    return frozenset(ANY_WORD.findall(fold(text)))


def attested(source: str, reference: str, *, table: WordTable) -> list[Attested]:
    """The line's content words whose translation the reference holds, in source order."""
    held = spanish_words(reference)
    found: dict[str, Attested] = {}
    for word in _content_words(source, table.common):
        headword = _headword(word, table.translations)
        if word in found or headword is None or headword in table.common:
            continue
        matched = frozenset(t for t in table.translations[headword] if _forms(t) & held)
        if matched:
            found[word] = Attested(word, bucket_of(table.counts.get(word, 0)), matched)
    return list(found.values())


def carried(word: Attested, hypothesis_words: frozenset[str]) -> bool:
    """Whether a translation (its spanish_words) holds one of the word's matched translations."""
    return any(_forms(t) & hypothesis_words for t in word.translations)


def tally(lines: Sequence[list[Attested]], hypotheses: Sequence[str]) -> dict[str, Tally]:
    """Attested and carried words by bucket, every bucket present, over parallel lines."""
    if len(lines) != len(hypotheses):
        raise ValueError(f"{len(lines)} lines of attested words for {len(hypotheses)} outputs")
    words: Counter[str] = Counter()
    kept: Counter[str] = Counter()
    for found, hypothesis in zip(lines, hypotheses, strict=True):
        held = spanish_words(hypothesis)
        for word in found:
            words[word.bucket] += 1
            kept[word.bucket] += carried(word, held)
    return {bucket: Tally(words[bucket], kept[bucket]) for bucket in BUCKETS}


def _content_words(source: str, common: frozenset[str]) -> list[str]:
    words = (w.lower().removesuffix("'s") for w in words_of(source))
    return [w for w in words if len(w) >= MIN_LETTERS and w.isalpha() and w not in common]


def _headword(word: str, translations: Mapping[str, frozenset[str]]) -> str | None:
    """The word, else the singular of a regular plural, if the dictionary has it."""
    if word in translations:
        return word
    return next((stem for stem in english_singulars(word) if stem in translations), None)


def _forms(translation: str) -> set[str]:
    """A Spanish word and its regular plurals (casa: casas; ciudad: ciudades; vez: veces)."""
    forms = {translation, translation + "s", translation + "es"}
    if translation.endswith("z"):
        forms.add(translation[:-1] + "ces")
    return forms
