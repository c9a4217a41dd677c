"""Where the sentences of casual text start and how they end (mt.text.normalize's case and
punctuation steps): a capital at each start, and the final mark the training English gives the
sentences that start alike."""

from __future__ import annotations

import re
from collections.abc import Mapping, Set

from mt.text.words import WORD
from mt.text.wordstats import Start, start_keys, words_of

QUESTION = 0.5  # share of a start's training sentences that must be questions
EXCLAMATION = 0.5  # the same for "!" ("what a", "wake up"), where they are not questions
MIN_START = 3  # training sentences a start needs before its shares are trusted
TAG_WORDS = 2
"""A last clause of up to this many words ("aren't you") may make a question by its first word
alone; a longer one needs its first two."""
RELATIVES = frozenset(("which", "who", "whom", "whose", "where", "when"))
"""After a comma these start a relative clause ("..., which is ASCII compatible"), no question."""
WORD_WINDOW = 64
"""Characters read back from a full stop for the word it follows: a line of 30,000 "mr. " must
not read everything before each of them."""
_SENTENCE_END = re.compile(r"[.!?]+[\"'”’)\]]*\s+(?=\S)")
_ABBREVIATIONS = frozenset(("mr", "mrs", "ms", "dr", "st", "vs", "etc", "prof", "no", "approx"))


def usual_mark(counts: Start) -> str:
    """The final mark of most training sentences with this start: "?", "!" or "."."""
    if counts.questions >= QUESTION * counts.sentences:
        return "?"
    return "!" if counts.exclamations >= EXCLAMATION * counts.sentences else "."


def punctuated(text: str, marks: Mapping[str, str], numbers: Set[str] = frozenset()) -> str:
    """`text` with the mark of its last sentence's start (`marks`: start -> usual_mark) where it
    ends in a letter, a digit or one of `numbers` (a number span's stand-in: "are you 18")."""
    stripped = text.rstrip()
    if not stripped or not (stripped[-1].isalnum() or stripped[-1] in numbers):
        return text
    sentence = stripped[[0, *sentence_starts(stripped)][-1] :]
    mark = _mark_of(start_keys(words_of(sentence)), marks)
    # A last clause may make a question of a sentence, never the reverse: a tag ("you're
    # tired, aren't you"), a condition ("if you won, what would you do").
    if mark != "?" and "," in sentence:
        words = words_of(sentence.rsplit(",", 1)[-1])
        keys = start_keys(words)
        keys = keys if len(words) <= TAG_WORDS else keys[-1:]  # its first two words
        if words and words[0].lower() not in RELATIVES and _mark_of(keys, marks) == "?":
            mark = "?"
    return stripped + mark + text[len(stripped) :]


def _mark_of(keys: list[str], marks: Mapping[str, str]) -> str:
    """The mark of the most telling start the training knows (start_keys' order), else "."."""
    return next((marks[k] for k in reversed(keys) if k in marks), ".")


def capitalise_starts(text: str, *, aside: int) -> str:
    """The first letter of the line and of each sentence after it a capital, unless a character
    from `aside` on (a protected span's stand-in) comes first."""
    starts = [0, *sentence_starts(text)]
    ends = [*starts[1:], len(text)]
    return "".join(_capitalise_first(text[a:b], aside) for a, b in zip(starts, ends, strict=True))


def _capitalise_first(text: str, aside: int) -> str:
    match = WORD.search(text)
    if match is None or not match.group()[0].islower():
        return text
    if any(ord(c) >= aside for c in text[: match.start()]):
        return text
    return text[: match.start()] + text[match.start()].upper() + text[match.start() + 1 :]


def sentence_starts(text: str) -> list[int]:
    """Where each sentence of `text` after its first starts: after a full stop, question or
    exclamation mark that is no abbreviation's ("e.g. this", "mr. smith") nor an initial's."""
    return [end.end() for end in _SENTENCE_END.finditer(text) if _ends_sentence(end)]


def _ends_sentence(end: re.Match[str]) -> bool:
    before = end.string[max(0, end.start() - WORD_WINDOW) : end.start()].rsplit(maxsplit=1)
    word = before[-1].lower().rstrip(".") if before else ""
    initial = len(word) == 1 and word.isalpha() and word not in "ai"
    return end.group()[0] != "." or not ("." in word or word in _ABBREVIATIONS or initial)
