"""Flags that tell the user which translations to check, and why.

- `copy`: the output repeats the source's words, though the source has English words to
  translate (a lowercase word of 3 or more letters; names, numbers and code alone may be copied).
- `repetition`: a loop, an n-gram of 1 to 4 words repeated back to back (a word 4 times, a longer
  n-gram 3 times) where the source has no such repeat.
- `cut`: the length limit ended the output before the model chose to end it.
- `not_english`: the input is confidently another language (py3langid, whose model ships in its
  wheel, restricted to English and the languages most often pasted by mistake); short inputs need
  a high probability, so "Hello" or a name is never flagged.
"""

from __future__ import annotations

import functools
import re

COPY = "copy"
REPETITION = "repetition"
CUT = "cut"
NOT_ENGLISH = "not_english"
FLAGS = (COPY, REPETITION, CUT, NOT_ENGLISH)

LANGUAGES = ("en", "es", "fr", "de", "it", "pt", "nl", "ca")
"""What py3langid chooses among: a wider set misreads short English as Latin or Swahili."""
NOT_ENGLISH_PROBABILITY = 0.95
MIN_LETTERS_FOR_LANGUAGE = 12

_WORD = re.compile(r"\w+", re.UNICODE)
_TRANSLATABLE = re.compile(r"\b[a-z]{3,}\b")
COPY_OVERLAP = 0.8
"""Share of the output's words found in the source above which an output is a copy."""


def words(text: str) -> list[str]:
    return [word.casefold() for word in _WORD.findall(text)]


def copies_source(source: str, output: str) -> bool:
    """The output is (mostly) the source's words, and the source has words worth translating."""
    if not _TRANSLATABLE.search(source):
        return False
    out = words(output)
    if not out:
        return False
    source_words = set(words(source))
    shared = sum(word in source_words for word in out) / len(out)
    return shared >= COPY_OVERLAP


def longest_loop(tokens: list[str]) -> tuple[int, int]:
    """(n, times): the n-gram (n <= 4) repeated back to back the most times (shortest n on ties)."""
    best = (1, 1)
    for n in range(1, 5):
        for start in range(len(tokens) - n + 1):
            gram = tokens[start : start + n]
            times = 1
            while tokens[start + times * n : start + (times + 1) * n] == gram:
                times += 1
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
    language, probability = _identifier().classify(source)
    return language != "en" and probability >= NOT_ENGLISH_PROBABILITY


def flags_for(source: str, output: str, *, cut: bool) -> tuple[str, ...]:
    """The flags of one translated line, in FLAGS order."""
    if not source.strip():
        return ()
    found = []
    if copies_source(source, output):
        found.append(COPY)
    if repeats(source, output):
        found.append(REPETITION)
    if cut:
        found.append(CUT)
    if not_english(source):
        found.append(NOT_ENGLISH)
    return tuple(found)
