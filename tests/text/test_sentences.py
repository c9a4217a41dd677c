"""mt.text.sentences: a line whose every mark plainly ends a sentence is cut without pysbd, where
pysbd would cut it; any other line is pysbd's to decide."""

from __future__ import annotations

import threading
import time

import pytest

from mt.text import sentences
from mt.text.sentences import sentence_spans

PLAIN = [
    ("en", "I don't know. Tom does! Where is he?"),
    ("en", "  The cat sat.  The dog ran.  "),
    ("es", "El informe se publicó ayer. ¿Quién lo leyó? ¡Nadie lo sabe!"),
]
NOT_PLAIN = [
    ("en", "Mr. Smith arrived. He sat."),  # an abbreviation
    ("en", 'He said "Go home." Then he left.'),  # a quote
    ("en", "It costs 3.50 dollars. Pay now."),  # a mark inside a number
    ("es", "Lo dijo el Sr. López. Luego se fue."),
    ("es", "-¿Quién había de ser?, dijo ella. Nadie."),  # a mark before a comma
    ("en", "Visit www.example.com today. It is free."),
]


def pysbd_spans(line: str, language: str, monkeypatch: pytest.MonkeyPatch) -> list:
    with monkeypatch.context() as patch:
        patch.setattr(sentences, "_plain_ends", lambda *args: None)
        return sentence_spans(line, language=language)


@pytest.mark.parametrize(("language", "line"), PLAIN)
def test_a_plain_line_is_cut_without_pysbd_where_pysbd_cuts_it(
    language: str, line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stripped = line.rstrip()
    assert sentences._plain_ends(stripped, len(line) - len(line.lstrip()), language) is not None
    assert sentence_spans(line, language=language) == pysbd_spans(line, language, monkeypatch)
    assert len(sentence_spans(line, language=language)) >= 2


@pytest.mark.parametrize(("language", "line"), NOT_PLAIN)
def test_any_other_line_is_left_to_pysbd(
    language: str, line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sentences._plain_ends(line, 0, language) is None
    assert sentence_spans(line, language=language) == pysbd_spans(line, language, monkeypatch)


def test_threads_splitting_at_once_get_what_one_thread_gets() -> None:
    # Quotes and an abbreviation send every line to pysbd, whose Segmenter holds its text.
    lines = [f'He said "stop {n}." Dr. Lee left at {n} p.m. "Why?" she asked.' for n in range(40)]
    expected = [sentence_spans(line) for line in lines]
    found: dict[int, list[list[tuple[int, int]]]] = {}

    def split(index: int) -> None:
        found[index] = [sentence_spans(line) for line in lines * 5]

    workers = [threading.Thread(target=split, args=(i,)) for i in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert all(found[i] == expected * 5 for i in range(4))


@pytest.mark.parametrize("line", ["a. " * 33_000, "Mr. " * 25_000, "e.g. x " * 14_000])
def test_a_line_of_a_hundred_thousand_characters_is_split_in_bounded_time(line: str) -> None:
    """pysbd alone took 142 s for the first (it looks for each sentence from the start again)
    and 35 s for the second (each abbreviation rewrites the whole text)."""
    started = time.perf_counter()
    spans = sentence_spans(line)
    assert time.perf_counter() - started < 20  # about a second each on 2 shared cores
    assert spans[0][0] == 0 and spans[-1][1] == len(line.rstrip())
