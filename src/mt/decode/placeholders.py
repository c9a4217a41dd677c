"""Names, numbers and protected spans the model cannot carry, swapped for stand-ins it copies.

A name or number that is not one source piece comes out mangled or translated ("4817" became
"tres"). Before translation each is swapped for a name the model copies ("Tom", "Mary", "John";
numbers too, as the model copies no digits), and swapped back after; when all are taken, a word
stays as it is. Which words are names is the `Protectable`'s to say (mt.text.names).

A model with placeholder tokens (trained with `--placeholders`) needs no names: `protect_spans`
replaces every protected span (mt.text.spans, --keep names) and every name by ｟1｠ to ｟16｠ in
order, and `restore_spans` puts them back; a lost one goes at the end of the sentence (a URL out
of place reads better than a URL gone), counted in `Restored.lost`. A document's tokens
(mt.decode.documents.units) are numbered again with the sentence's own and come back as
themselves; a glossary's (`fixed`) pass through for its own step to put back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from mt.data.tokenization import PLACEHOLDERS
from mt.decode.glossary import NAME_STAND_INS, starts_sentence
from mt.text.lexicon import CAPITALISED
from mt.text.spans import Span, find_spans

_NAME_OR_NUMBER = re.compile(
    "|".join(map(re.escape, PLACEHOLDERS[::-1]))  # a document's spans (｟16｠ before ｟1｠)
    + rf"|{CAPITALISED}"  # Kowalski, McDonald
    r"|(?<![\w.,:])\d+(?:[.,:]\d+)*(?!\w|[.,:]\d)"  # 4817, 12.75, 10:30, 1,000
)

Slots = tuple[tuple[str, str], ...]  # (stand-in, original)


class Protectable(Protocol):
    def __call__(self, word: str, *, initial: bool) -> bool:
        """Whether `word` gets a stand-in; `initial`: it begins a sentence."""
        ...


def protect(text: str, protectable: Protectable) -> tuple[str, Slots]:
    """`text` with each `protectable` capitalised word and number replaced by a stand-in, and the
    (stand-in, original) pairs; a word's first occurrence decides for all of them."""
    slots: dict[str, str] = {}  # original -> stand-in
    kept: set[str] = set()
    free = [s for s in NAME_STAND_INS if not re.search(rf"\b{s}\b", text)]

    def swap(match: re.Match) -> str:
        word = match.group()
        if word not in slots and word not in kept:
            initial = starts_sentence(text, match.start())
            if word not in PLACEHOLDERS and not protectable(word, initial=initial):
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
    text: str, protectable: Protectable, names: Sequence[str] = (), fixed: Sequence[str] = ()
) -> tuple[str, Slots]:
    """`text` with its protected spans, `names` (a --keep list) and `protectable` capitalised words
    replaced by placeholder tokens (up to sixteen distinct), and the (token, original) pairs.
    Tokens already there that are `fixed` (a glossary's) pass through; others are renumbered."""
    present = [Span(m.start(2), m.end(2), "token", m.group(2)) for m in _TOKEN.finditer(text)]
    spans = [span for span in find_spans(text, names) if not _overlaps(span, present)]
    for match in re.finditer(CAPITALISED, text):
        name = Span(match.start(), match.end(), "name", match.group())
        if _overlaps(name, spans + present):
            continue
        if protectable(match.group(), initial=starts_sentence(text, match.start())):
            spans.append(name)
    # Other tokens already there (a document's spans, numbered by paragraph) are numbered with
    # the sentence's own spans in order, as in training; past sixteen spans in all, as themselves.
    kept = [span for span in present if span.text in fixed]
    moved = [span for span in present if span.text not in fixed]
    if len({s.text for s in spans + moved} | {s.text for s in kept}) > len(PLACEHOLDERS):
        kept, moved = present, []
    free = [token for token in PLACEHOLDERS if token not in {span.text for span in kept}]
    carried = dict.fromkeys(span.text for span in kept if span.text not in fixed)
    spans += moved
    tokens: dict[str, str] = {}
    out, position = [], 0
    for span in sorted(spans, key=lambda span: span.start):
        if span.text not in tokens and len(tokens) < len(free):
            tokens[span.text] = free[len(tokens)]
        if span.text in tokens:
            out += [text[position : span.start], tokens[span.text]]
            position = span.end
    masked = "".join(out) + text[position:]
    slots = [(token, original) for original, token in tokens.items()]
    return masked, tuple(slots + [(token, token) for token in carried])


def _overlaps(span: Span, others: Sequence[Span]) -> bool:
    return any(span.start < other.end and other.start < span.end for other in others)


@dataclass(frozen=True)
class Restored:
    text: str
    lost: int  # spans whose token the translation left out, put back at the end


_FINAL_MARKS = re.compile(r"[.!?…:;]*[\"'”’»)\]]*$")
_OPENING = tuple("¡¿([«“‘")
_CLOSING = tuple(".,;:!?…)]»”’")
_TOKEN = re.compile("( ?)(" + "|".join(map(re.escape, PLACEHOLDERS[::-1])) + ")")  # ｟16｠ first


def restore_spans(translation: str, slots: Slots, source: str = "") -> Restored:
    """The translation with each token put back to its span, a lost span at the end (before the
    final marks), a stray token dropped; a span is lost as often as its token went missing from
    the `source`'s count ("🎉 🎉 🎉" that came back as one keeps all three)."""
    originals = dict(slots)
    lost = [
        original
        for token, original in slots
        for _ in range(max(source.count(token), 1) - translation.count(token))
    ]
    text = _TOKEN.sub(
        lambda match: match.group(1) + originals[match.group(2)],
        _without_strays(translation, originals),
    )
    if lost:
        end = _FINAL_MARKS.search(text)
        cut = end.start() if end else len(text)
        text = " ".join([text[:cut].rstrip(), *lost]).strip() + text[cut:]
    return Restored(text, len(lost))


def _without_strays(translation: str, originals: dict[str, str]) -> str:
    """The translation without the tokens that stood for nothing, spaced as if they had never
    been there."""
    strays = [token for token in PLACEHOLDERS if token in translation and token not in originals]
    if not strays:
        return translation
    pieces = re.split("|".join(map(re.escape, strays)), translation)
    text = pieces[0]
    for piece in pieces[1:]:
        if not text.strip() or text.endswith(_OPENING) or piece.lstrip(" ").startswith(_CLOSING):
            text, piece = text.rstrip(" "), piece.lstrip(" ")
        elif text.endswith(" ") and piece.startswith(" "):
            piece = piece.lstrip(" ")
        text += piece
    return text.rstrip(" ") if not pieces[-1].strip() else text
