"""`mt backtranslate`: monolingual Spanish -> `english<TAB>spanish` pairs for `mt prepare
--synthetic`, streamed, in constant memory, resumable at any moment.

The sentences: every paragraph split into sentences (mt.text.sentences), cleaned as prepare
cleans, kept when it has `min_words` to `max_words` words, reads as Spanish
(mt.quality.flags) and was not seen before (an 8-byte hash each, the only memory that grows).
The same inputs and filters always give the same sentences in the same order.

Resuming: the pairs are written in input order, a chunk at a time, flushed and fsynced. Killed
at any moment, the same command truncates a half-written last line, skips as many sentences as
there are lines and goes on. A sidecar (OUT + SIDECAR_SUFFIX) records the inputs, engine,
search and filters, so another command never appends to the file.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mt.data.readers.monolingual import monolingual_paragraphs
from mt.data.readers.streams import iter_blocks, open_binary
from mt.decode.line_engines import LineEngine
from mt.errors import MtError
from mt.quality.flags import language_of, surely_spanish
from mt.storage.files import read_json, write_json
from mt.text.cleaning import clean_text
from mt.text.sentences import sentence_spans

SIDECAR_SUFFIX = ".backtranslate.json"
SIDECAR_FORMAT = 1
LANGUAGE = "es"


@dataclass(frozen=True)
class SentenceFilters:
    """Which sentences are worth translating."""

    min_words: int = 3  # "—Sí." teaches nothing
    max_words: int = 80  # longer ones are cut at training anyway
    language_check: bool = True  # py3langid must call it Spanish

    def __post_init__(self) -> None:
        if not 0 < self.min_words <= self.max_words:
            raise MtError(
                f"--min-words {self.min_words} and --max-words {self.max_words}: need "
                "0 < min <= max"
            )


@dataclass
class Progress:
    """What the driver tells its caller after each chunk (and at the start)."""

    lines: int = 0  # input lines read, of `total_lines`
    total_lines: int = 0
    written: int = 0  # sentences in the output file
    resumed: int = 0  # of them, found there at the start
    dropped: dict[str, int] | None = None  # sentences left out, by reason


@dataclass(frozen=True)
class BacktranslateResult:
    out: Path
    sentences: int
    resumed: int
    dropped: dict[str, int]
    seconds: float


def sentence_stream(
    paths: Sequence[Path], filters: SentenceFilters, progress: Progress
) -> Iterator[str]:
    """The kept sentences of `paths`, in order; counts lines read and sentences dropped."""
    # pysbd compiles a pattern per abbreviation, more for Spanish than the 512 `re` caches: with
    # room for them splitting takes half the time (docs/performance.md). Only while it runs.
    re._MAXCACHE = max(re._MAXCACHE, 4096)  # type: ignore[attr-defined]
    seen: set[int] = set()
    dropped = progress.dropped = {"short": 0, "long": 0, "not_spanish": 0, "duplicate": 0}
    for path in paths:
        for _, paragraph in monolingual_paragraphs(path):
            progress.lines += 1
            for start, end in sentence_spans(paragraph, language=LANGUAGE):
                sentence = clean_text(paragraph[start:end])
                reason = _unfit(sentence, filters, seen)
                if reason is None:
                    yield sentence
                elif reason:
                    dropped[reason] += 1


def _unfit(sentence: str, filters: SentenceFilters, seen: set[int]) -> str | None:
    """Why `sentence` is left out, or None ("" for an empty one, not counted)."""
    if not sentence:
        return ""
    words = len(sentence.split())
    if words < filters.min_words:
        return "short"
    if words > filters.max_words:
        return "long"
    key = int.from_bytes(hashlib.blake2b(sentence.encode(), digest_size=8).digest(), "little")
    if key in seen:
        return "duplicate"
    seen.add(key)
    unsure = filters.language_check and not surely_spanish(sentence)
    if unsure and language_of(sentence)[0] != LANGUAGE:
        return "not_spanish"
    return None


def count_lines(paths: Sequence[Path]) -> int:
    """Lines of the inputs, blank ones included, for the progress bar's total (a fast byte pass)."""
    total = 0
    for path in paths:
        with open_binary(path, what="monolingual file") as stream:
            total += sum(block.count(b"\n") for block in iter_blocks(stream, path=path))
    return total


def backtranslate(
    paths: Sequence[Path],
    *,
    out: Path,
    engine: LineEngine,
    search: dict[str, Any],
    filters: SentenceFilters = SentenceFilters(),
    chunk: int = 512,
    report: Callable[[Progress], None] = lambda progress: None,
) -> BacktranslateResult:
    """Translate the kept sentences of `paths` with `engine` into `out`, resuming it; `search` (the
    decode settings, {} for a command) goes into the sidecar; `report` hears of each chunk."""
    import time

    started = time.perf_counter()
    if not paths:
        raise MtError("no monolingual file given")
    settings = _settings(paths, engine, search, filters)
    progress = Progress(total_lines=count_lines(paths))
    done, finished = _resume_point(out, settings)
    if finished:  # the same command ran to its end before: nothing to do
        return BacktranslateResult(out=out, sentences=done, resumed=done, dropped={}, seconds=0.0)
    write_json(_sidecar(out), {**settings, "complete": False})
    progress.written = progress.resumed = done
    sentences = sentence_stream(paths, filters, progress)
    for _ in itertools.islice(sentences, done):
        pass
    report(progress)
    with out.open("ab") as file:
        for batch in engine.pairs(sentences, chunk):
            _write_chunk(file, batch)
            progress.written += len(batch)
            report(progress)
    write_json(_sidecar(out), {**settings, "complete": True, "sentences": progress.written})
    return BacktranslateResult(
        out=out,
        sentences=progress.written,
        resumed=progress.resumed,
        dropped=dict(progress.dropped or {}),
        seconds=time.perf_counter() - started,
    )


def _write_chunk(file: Any, pairs: Sequence[tuple[str, str]]) -> None:
    """The pairs appended as english<TAB>spanish, flushed and synced: they survive any kill."""
    text = "".join(f"{_one_line(en)}\t{es}\n" for es, en in pairs)
    file.write(text.encode("utf-8"))
    file.flush()
    os.fsync(file.fileno())


def _one_line(text: str) -> str:
    """A translation as one TSV field: no TAB, CR or LF inside, no outer spaces."""
    return " ".join(text.replace("\t", " ").split())


def _settings(
    paths: Sequence[Path], engine: LineEngine, search: dict[str, Any], filters: SentenceFilters
) -> dict[str, Any]:
    return {
        "format_version": SIDECAR_FORMAT,
        "inputs": [str(path.resolve()) for path in paths],
        "engine": engine.name,
        "search": search,
        "filters": asdict(filters),
    }


def _sidecar(out: Path) -> Path:
    return out.with_name(out.name + SIDECAR_SUFFIX)


def _resume_point(out: Path, settings: dict[str, Any]) -> tuple[int, bool]:
    """Sentences already in `out` (a half-written last line cut) and whether its sidecar says they
    are all; an `out` that another command wrote is refused, never appended to."""
    if not out.exists():
        return 0, False
    sidecar = _sidecar(out)
    if not sidecar.is_file():
        raise MtError(
            f"{out} exists and is not an unfinished `mt backtranslate` output (no {sidecar.name}); "
            "remove it or give another --out"
        )
    recorded = read_json(sidecar)
    recorded = recorded if isinstance(recorded, dict) else {}
    changed = [key for key in settings if recorded.get(key) != settings[key]]
    if changed:
        raise MtError(
            f"{out} was written by `mt backtranslate` with other {', '.join(changed)}; give the "
            "same inputs and options to resume it, or another --out"
        )
    lines = _complete_lines(out)
    return lines, bool(recorded.get("complete")) and recorded.get("sentences") == lines


def _complete_lines(out: Path) -> int:
    """Cut `out` after its last newline; the number of lines it then has."""
    lines = 0
    end = 0
    with out.open("r+b") as file:
        position = 0
        while block := file.read(1 << 22):
            lines += block.count(b"\n")
            last = block.rfind(b"\n")
            if last >= 0:
                end = position + last + 1
            position += len(block)
        if end != position:
            file.truncate(end)
            file.flush()
            os.fsync(file.fileno())
    return lines
