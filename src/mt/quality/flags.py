"""Flags that tell the user which translations to check, and why.

- `copy`: the output is (mostly) the source's words, though the source is English prose with
  words to translate (URLs, code, numbers and names are copied by right);
- `repetition`: an n-gram of 1 to 4 words repeated back to back, where the source has none;
- `cut`: the length limit ended the output before the model chose to;
- `not_english`: the input is confidently another language (py3langid, among LANGUAGES; never a
  short one such as "Hello"), or holds a run of another script (mt.text.kept);
- `kept`: the input holds pieces carried through untranslated (mt.text.kept).

`copy` and `not_english` read English sources only (`english_source`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from mt.text.kept import KINDS
from mt.text.prose import is_prose, outside_spans
from mt.text.spans import find_spans
from mt.text.words import ANY_WORD, WORD

COPY = "copy"
REPETITION = "repetition"
CUT = "cut"
NOT_ENGLISH = "not_english"
KEPT = "kept"

LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "nl", "ca")
"""What py3langid chooses among: a wider set misreads short English as Latin or Swahili."""
NOT_ENGLISH_PROBABILITY = 0.95
MIN_LETTERS_FOR_LANGUAGE = 12
_ENGLISH_MARKERS = """the and of are were that this these with you your what which would
    could should they their there from have been about where when how why
    who it to for my not be does did doesn't don't i'm it's"""
ENGLISH_MARKERS = frozenset(_ENGLISH_MARKERS.split())
"""Common English words that are not words of LANGUAGES' others ("has" and "me" are Spanish,
"will" German, "is", "was" and "we" Dutch, "do" Portuguese, "i" Italian)."""
SURELY_ENGLISH = 0.15
"""Share of a line's words that must be ENGLISH_MARKERS for it to pass as English unasked."""
_SPANISH_MARKERS = """los las y según también muy sus fue pero hasta más ya cuando donde dijo él
    ellos hay año años"""
SPANISH_MARKERS = frozenset(_SPANISH_MARKERS.split())
"""Common Spanish words that are not words of LANGUAGES' others ("del" is Italian and Catalan,
"por", "para" and "está" Portuguese, "una" and "con" Italian, "el" and "en" Catalan)."""
SURELY_SPANISH = 0.05
"""Share of a line's words that must be SPANISH_MARKERS for it to pass as Spanish unasked: on
22,749 sentences of UN News, 12,637 pass, and py3langid calls every one of them Spanish."""

COPY_OVERLAP = 0.75
"""Share of the output's letters in words found in the source from which an output is a copy."""
HALF_COPY_OVERLAP = 0.5
"""From this share, an output of COPY_MIN_LETTERS letters or more that does not read as Spanish is
a copy too: a heading left half in English ("Protecting document" -> "Protecting documento"),
which the share alone misses."""
COPY_MIN_LETTERS = 16
"""Fewer letters than this, and the language check is not asked: py3langid misreads short
Spanish ("¿Eres doctor?") as another language."""
# The three: the most copies caught with the flag on at most 1% of other outputs of every dev
# set (benchmarks/trust/bench_trust_choices.py, docs/trust.md).


@dataclass(frozen=True)
class CopyEvidence:
    """What the copy flag weighs for one output: letters, so "a" weighs less than "station"."""

    shared: float  # share of the output's letters in words of the source
    letters: int  # the output's letters, in the words there are to translate
    words: str  # those words, for the language check


@dataclass(frozen=True)
class CopyThresholds:
    """Where the copy flag is raised (chosen by benchmarks/trust/bench_trust_choices.py)."""

    overlap: float = COPY_OVERLAP
    half_overlap: float = HALF_COPY_OVERLAP
    min_letters: int = COPY_MIN_LETTERS

    def judge(
        self, evidence: CopyEvidence | None, spanish: Callable[[str], bool] | None = None
    ) -> bool:
        """A copy: `overlap` of the letters are the source's, or `half_overlap` of `min_letters`
        or more and the output does not read as Spanish (`spanish`, else reads_as_spanish)."""
        if evidence is None or evidence.shared < min(self.overlap, self.half_overlap):
            return False
        if evidence.shared >= self.overlap:
            return True
        if evidence.letters < self.min_letters:
            return False
        return not (spanish or reads_as_spanish)(evidence.words)


def words(text: str) -> list[str]:
    return [word.casefold() for word in ANY_WORD.findall(text)]


def names_of(source: str) -> set[str]:
    """The source's names, copied by right: capitalised words after the first, or a lone one
    ("Tom", or a label: the two cannot be told apart)."""
    found = ANY_WORD.findall(outside_spans(source))
    return {word for word in found[min(1, len(found) - 1) :] if word[:1].isupper()}


def to_translate(text: str, names: set[str]) -> list[str]:
    """The words of `text` that translating the source is about: outside protected spans
    (mt.text.spans), and not the source's `names` (`names_of`)."""
    return [word.casefold() for word in ANY_WORD.findall(outside_spans(text)) if word not in names]


def copy_evidence(source: str, output: str) -> CopyEvidence | None:
    """The output's letters that are the source's words, where the source is English prose with
    words worth translating (None elsewhere: copying is right, or there is nothing to weigh)."""
    if not is_prose(source):
        return None  # a command, code or a name: copying is what a good translation does
    names = names_of(source)
    source_words = to_translate(source, names)
    if not any(len(word) >= 3 and word.isalpha() for word in source_words):
        return None
    out = to_translate(output, names)
    letters = sum(len(word) for word in out)
    if not letters:
        return None
    known = set(source_words)
    shared = sum(len(word) for word in out if word in known) / letters
    return CopyEvidence(shared, letters, " ".join(out))


def copies_source(source: str, output: str, thresholds: CopyThresholds = CopyThresholds()) -> bool:
    """The output is (mostly) the source's words, where the source has words to translate."""
    return thresholds.judge(copy_evidence(source, output))


def longest_loop(tokens: list[str]) -> tuple[int, int]:
    """(n, times): the n-gram (n <= 4) repeated back to back the most times (shortest n on ties)."""
    best = (1, 1)
    for n in range(1, 5):
        # The n-grams starting n apart, from each of the n first places, compared with the one
        # before: one pass each, so a line of 50,000 "ha" costs no more than its reading.
        for first in range(n):
            times = 1
            for start in range(first + n, len(tokens) - n + 1, n):
                same = tokens[start : start + n] == tokens[start - n : start]
                times = times + 1 if same else 1
                if times > best[1]:
                    best = (n, times)
    return best


def _is_loop(tokens: list[str]) -> bool:
    n, times = longest_loop(tokens)
    return times >= (4 if n == 1 else 3)


def repeats(source: str, output: str) -> bool:
    """A repetition loop in the output that the source does not have."""
    return _is_loop(words(output)) and not _is_loop(words(source))


@functools.cache
def _identifier():
    """py3langid's identifier, loaded once (about 0.7 s) when first needed."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    identifier = LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    identifier.set_languages(list(LANGUAGES))
    return identifier


def not_english(source: str) -> bool:
    """Confidently another language; inputs with few letters are never flagged."""
    if sum(char.isalpha() for char in source) < MIN_LETTERS_FOR_LANGUAGE:
        return False
    if surely_english(source):  # spares the classifier, whose loading costs 0.7 s
        return False
    language, probability = language_of(source)
    return language != "en" and probability >= NOT_ENGLISH_PROBABILITY


def surely_english(source: str) -> bool:
    """Two or more distinct ENGLISH_MARKERS making up SURELY_ENGLISH of the words: English,
    without asking py3langid, which agrees on every such dev line (docs/performance.md)."""
    found = [word.lower().replace("’", "'") for word in WORD.findall(outside_spans(source))]
    return _marked(found, ENGLISH_MARKERS, SURELY_ENGLISH)


def surely_spanish(text: str) -> bool:
    """Two or more distinct SPANISH_MARKERS making up SURELY_SPANISH of the words: Spanish,
    without asking py3langid (`mt backtranslate`'s language check)."""
    return _marked([word.lower() for word in WORD.findall(text)], SPANISH_MARKERS, SURELY_SPANISH)


def _marked(words: list[str], markers: frozenset[str], share: float) -> bool:
    """Two or more distinct `markers` among `words`, making up `share` of them."""
    found = [word for word in words if word in markers]
    return len(set(found)) >= 2 and len(found) >= share * len(words)


def language_of(text: str) -> tuple[str, float]:
    """The likeliest of LANGUAGES for `text`, and its probability."""
    language, probability = _identifier().classify(text)
    return language, float(probability)


def reads_as_spanish(text: str) -> bool:
    """py3langid's likeliest language for `text` is Spanish."""
    return language_of(text)[0] == "es"


def flags_for(
    source: str,
    output: str,
    *,
    cut: bool,
    english_source: bool = True,
    check_language: bool = True,
) -> tuple[str, ...]:
    """The flags of one line; `check_language` False loads no classifier (0.7 s) for not_english."""
    if not source.strip():
        return ()
    found = []
    if english_source and copies_source(source, output):
        found.append(COPY)
    if repeats(source, output):
        found.append(REPETITION)
    if cut:
        found.append(CUT)
    kinds = {span.kind for span in find_spans(source)}
    foreign = "foreign" in kinds
    if english_source and (foreign or (check_language and not_english(source))):
        found.append(NOT_ENGLISH)
    if kinds & KINDS:
        found.append(KEPT)
    return tuple(found)
