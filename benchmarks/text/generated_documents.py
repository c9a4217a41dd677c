"""Documents of a given size in each format, written around English sentences, for
bench_documents: the markup a real page has (headings, paragraphs with inline tags and links,
lists with code, and, as LibreOffice's help pages have, a run of lines with inline tags and no
block element between them), so that every path of the document layer is timed at scale.

The sentences come from the caller (lines of ../shared/data, read in place and never written to
the repository) or from `synthetic_sentences`, made up here from a small word list.
"""

from __future__ import annotations

import html
import random
from collections.abc import Callable, Iterator, Sequence

FORMATS = ("html", "markdown", "po", "srt")

_SUBJECTS = ("The committee", "A small team", "Our new printer", "The city council", "My sister")
_VERBS = ("approved", "described", "repaired", "opened", "finished", "wanted")
_OBJECTS = ("the report", "a long letter", "the old bridge", "three new schools", "the garden")
_ENDS = ("last week", "on Monday", "before the rain", "in the morning", "after a short delay")


def synthetic_sentences(count: int, seed: int = 1) -> list[str]:
    """`count` plain English sentences made up from a small word list (seeded)."""
    rng = random.Random(seed)
    return [
        f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} {rng.choice(_ENDS)}."
        for _ in range(count)
    ]


def _split_words(sentence: str) -> tuple[str, str]:
    """The sentence's first two words and the rest, for an inline tag around the first."""
    words = sentence.split(" ")
    return " ".join(words[:2]), " ".join(words[2:])


def _html_blocks(take: Callable[[], str], index: int) -> str:
    e = lambda text: html.escape(text, quote=False)  # noqa: E731
    kind = index % 4
    if kind == 0:
        return f"<h2>{e(take())}</h2>\n"
    if kind == 1:
        head, rest = _split_words(take())
        return (
            f"<p>{e(take())} <b>{e(head)}</b> {e(rest)} "
            f'<a href="https://example.org/page/{index}">{e(take())}</a></p>\n'
        )
    if kind == 2:
        return f"<ul>\n<li>{e(take())}</li>\n<li><code>x = {index}</code> {e(take())}</li>\n</ul>\n"
    lines = []
    for line in range(6):  # lines with inline tags and no block element: one run of text
        head, rest = _split_words(take())
        lines.append(
            f'<span class="emph">{e(head)}</span> {e(rest)}' if line % 2 else e(head + " " + rest)
        )
    return "<div>\n" + "\n".join(lines) + "\n</div>\n"


def _markdown_blocks(take: Callable[[], str], index: int) -> str:
    kind = index % 4
    if kind == 0:
        return f"## {take()}\n\n"
    if kind == 1:
        head, rest = _split_words(take())
        return f"{take()}\n**{head}** {rest}\n[{take()}](https://example.org/page/{index})\n\n"
    if kind == 2:
        return f"- {take()}\n- `x = {index}` {take()}\n\n"
    return "> " + "\n> ".join(take() for _ in range(4)) + "\n\n"


def _po_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _po_blocks(take: Callable[[], str], index: int) -> str:
    if index % 3 == 2:  # a msgid of three sentences, with a python-format placeholder
        msgid = f"{take()} {take()} %(name)s {take()}"
        flag = "#, python-format\n"
    else:
        msgid, flag = take(), ""
    return f'#: module.py:{index}\n{flag}msgid {_po_string(msgid)}\nmsgstr ""\n\n'


def _srt_blocks(take: Callable[[], str], index: int) -> str:
    words = take().split(" ")
    half = (len(words) + 1) // 2
    start = index * 3
    timing = f"{start // 3600:02d}:{start // 60 % 60:02d}:{start % 60:02d},000"
    end = start + 2
    until = f"{end // 3600:02d}:{end // 60 % 60:02d}:{end % 60:02d},500"
    cue = " ".join(words[:half]) + ("\n" + " ".join(words[half:]) if words[half:] else "")
    return f"{index + 1}\n{timing} --> {until}\n{cue}\n\n"


_BLOCKS = {
    "html": _html_blocks,
    "markdown": _markdown_blocks,
    "po": _po_blocks,
    "srt": _srt_blocks,
}
_HEADS = {
    "html": "<!DOCTYPE html>\n<html><head><title>A generated page</title></head><body>\n",
    "markdown": "",
    "po": 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n',
    "srt": "",
}
_TAILS = {"html": "</body></html>\n", "markdown": "", "po": "", "srt": ""}


def generate(form: str, sentences: Sequence[str], size_bytes: int) -> tuple[str, int]:
    """(a `form` document of at least `size_bytes` UTF-8 bytes, the sentences it holds), the
    sentences taken in order and used once each; ValueError when they run out."""
    source: Iterator[str] = iter(sentences)
    used = 0

    def take() -> str:
        nonlocal used
        try:
            sentence = next(source)
        except StopIteration:
            raise ValueError(
                f"{len(sentences)} sentences are too few for a {size_bytes // 1024} KB {form} "
                "document"
            ) from None
        used += 1
        return sentence

    parts = [_HEADS[form]]
    size = len(parts[0].encode("utf-8"))
    index = 0
    while size < size_bytes:
        block = _BLOCKS[form](take, index)
        parts.append(block)
        size += len(block.encode("utf-8"))
        index += 1
    parts.append(_TAILS[form])
    return "".join(parts), used
