"""Names and numbers the model never learned, carried through translation unchanged.

A name or number that is not one piece of the source vocabulary reaches the model as a string of
sub-word pieces it has rarely or never seen, and comes out mangled or translated ("4817" became
"tres" with the bench model, which copies no digits at all). Before translation each such word is
swapped for a name the model saw thousands of times and copies ("Tom", "Mary", "John"), and the
stand-in in the translation is swapped back. Numbers take name stand-ins too, because the bench
model copies those and not digit stand-ins such as "30" (benchmarks/bench_text.py measures it).
Stand-ins already in the sentence are not used; when all are taken, a word is left as it is.

Which words are names is not decided here: `protect` asks the `Protectable` it is given about
every capitalised word and number (mt.text.names is the one the Translator gives), so that the
swapping can be tested apart from the judgement.

A model whose tokenizers have the placeholder tokens (trained with `--placeholders`) needs no
stand-ins: `protect_spans` replaces every protected span (mt.text.spans: URLs, code, paths,
format placeholders, numbers, --keep names) and every name the `Protectable` picks by a token,
｟1｠ to ｟16｠ in order of appearance, and `restore_spans` puts them back. A span whose token the
translation lost is put back at the end of the sentence (before its final mark): a URL out of
place reads better than a URL gone, and `Restored.lost` counts them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from mt.data.tokenization import PLACEHOLDERS
from mt.decode.glossary import NAME_STAND_INS
from mt.text.lexicon import CAPITALISED
from mt.text.spans import Span, find_spans

_NAME_OR_NUMBER = re.compile(
    rf"{CAPITALISED}"  # Kowalski, McDonald
    r"|(?<![\w.,:])\d+(?:[.,:]\d+)*(?!\w|[.,:]\d)"  # 4817, 12.75, 10:30, 1,000
)
# What may stand between a sentence's end (or the text's start) and its first word: "- ¿Allow".
_SENTENCE_START = re.compile(r"(?:^|[.!?…:]\s)[\s\"'“‘«¿¡(\[–—-]*$")

Slots = tuple[tuple[str, str], ...]  # (stand-in, original)


class Protectable(Protocol):
    def __call__(self, word: str, *, initial: bool) -> bool:
        """Whether `word`, a capitalised word or a number, gets a stand-in; `initial`: it begins
        a sentence (where every word is capitalised, name or not)."""
        ...


def protect(text: str, protectable: Protectable) -> tuple[str, Slots]:
    """`text` with each capitalised word and number that is `protectable` replaced by a stand-in,
    and the (stand-in, original) pairs. A word's first occurrence decides for all of them, so a
    word seen twice is swapped both times, with the same stand-in, or not at all."""
    slots: dict[str, str] = {}  # original -> stand-in
    kept: set[str] = set()
    free = [s for s in NAME_STAND_INS if not re.search(rf"\b{s}\b", text)]

    def swap(match: re.Match) -> str:
        word = match.group()
        if word not in slots and word not in kept:
            initial = _SENTENCE_START.search(text, 0, match.start()) is not None
            if not protectable(word, initial=initial):
                kept.add(word)
            elif free:
                slots[word] = free.pop(0)
        return slots.get(word, word)

    text = _NAME_OR_NUMBER.sub(swap, text)
    return text, tuple((stand_in, original) for original, stand_in in slots.items())


def restore(text: str, slots: Slots) -> str:
    """The translation with each stand-in put back to the original it stood for."""
    for stand_in, original in slots:
        text = re.sub(rf"\b{stand_in}\b", lambda _, o=original: o, text)
    return text


def protect_spans(
    text: str, protectable: Protectable, names: Sequence[str] = ()
) -> tuple[str, Slots]:
    """`text` with its protected spans, `names` (a --keep list) and the capitalised words that
    are `protectable` replaced by placeholder tokens, the same token for the same text; the
    (token, original) pairs. Past the sixteenth distinct span the rest stay as they are."""
    # Tokens already in the text (a glossary's terms took them) are neither spans nor free.
    present = [(m.start(), m.end()) for m in _TOKEN.finditer(text)]
    free = [token for token in PLACEHOLDERS if token not in text]
    spans = [
        span
        for span in find_spans(text, names)
        if not any(span.start < end and start < span.end for start, end in present)
    ]
    taken = [(span.start, span.end) for span in spans] + present
    for match in re.finditer(CAPITALISED, text):
        if any(match.start() < end and start < match.end() for start, end in taken):
            continue
        initial = _SENTENCE_START.search(text, 0, match.start()) is not None
        if protectable(match.group(), initial=initial):
            spans.append(Span(match.start(), match.end(), "name", match.group()))
    tokens: dict[str, str] = {}
    out, position = [], 0
    for span in sorted(spans, key=lambda span: span.start):
        if span.text not in tokens and len(tokens) < len(free):
            tokens[span.text] = free[len(tokens)]
        if span.text in tokens:
            out += [text[position : span.start], tokens[span.text]]
            position = span.end
    masked = "".join(out) + text[position:]
    return masked, tuple((token, original) for original, token in tokens.items())


@dataclass(frozen=True)
class Restored:
    text: str
    lost: int  # spans whose token the translation left out, put back at the end


_FINAL_MARKS = re.compile(r"[.!?…:;]*[\"'”’»)\]]*$")
_TOKEN = re.compile("( ?)(" + "|".join(map(re.escape, PLACEHOLDERS[::-1])) + ")")  # ｟16｠ first


def restore_spans(translation: str, slots: Slots) -> Restored:
    """The translation with each token put back to its span; a lost span goes at the end,
    before the final marks; a token that stood for nothing is dropped with its space."""
    originals = dict(slots)
    lost = [original for token, original in slots if token not in translation]

    def put_back(match: re.Match) -> str:
        original = originals.get(match.group(2))
        return "" if original is None else match.group(1) + original

    text = _TOKEN.sub(put_back, translation)
    if lost:
        end = _FINAL_MARKS.search(text)
        cut = end.start() if end else len(text)
        text = " ".join([text[:cut].rstrip(), *lost]).strip() + text[cut:]
    return Restored(text, len(lost))
