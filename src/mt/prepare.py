"""`mt prepare`: corpus files -> a prepared directory (cleaned parts, tokenizers, token arrays).

The corpora are read as streams, so memory does not grow with their size except for two 8-byte
hashes a pair (duplicates and the English sentence of each pair) and the offsets of the encoded
training part:

1. read: every corpus is cleaned and filtered chunk by chunk and spooled to one temporary file,
   keeping only the hashes in NumPy arrays;
2. split: duplicates and the split by English sentence are decided on the hashes alone
   (partition.py), with the selection and test parts capped; the spool is then written out part
   by part;
3. tokenizers are trained on a seeded sample of the training part (all of it, in file order,
   when it is smaller than the sample);
4. every part is encoded in batches (pairs over `--max-length` leave it here); the training and
   selection parts are written as the token arrays that `mt train` reads row by row
   (tokenarrays.py).

The directory is built under a temporary sibling name and renamed into place, so an interrupted
run never leaves a half-prepared directory behind. `mt.prepared.load_prepared` is how `train`,
`translate` and `evaluate` read it back.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import pandas as pd

from mt.atomic import check_replaceable, replace_directory
from mt.config import PREPARE_DEFAULTS
from mt.corpus import (
    DEFAULT_SEED,
    DEFAULT_SPLIT,
    PARTS,
    BadLine,
    CorpusInput,
    CorpusReport,
    Filters,
    read_corpus,
    report_summary,
    stream_corpus,
)
from mt.errors import MtError
from mt.files import PREPARE_JSON, PREPARED_FORMAT, SOURCE_TOKENIZER, TARGET_TOKENIZER, write_json
from mt.partition import assign_parts, combine_hashes, pair_hashes, tokenizer_sample_mask
from mt.prepared import ARRAY_PARTS, CHECKSUMS, PART_FILES, SIDES
from mt.tokenarrays import TokenArrayWriter, open_column, sha256
from mt.tokenization import WordPieceCodec

DEFAULT_SRC_VOCAB = 4562
DEFAULT_TGT_VOCAB = 6134
DEFAULT_MAX_HELD_OUT = PREPARE_DEFAULTS.max_held_out
DEFAULT_TOKENIZER_SAMPLE = PREPARE_DEFAULTS.tokenizer_sample
_EXAMPLES = 20  # bad lines quoted in prepare.json
_CHUNK = 100_000  # pairs read, written or encoded at a time


class Stages(Protocol):
    """Where prepare reports its progress (a rich bar in the CLI, nothing in tests)."""

    def start(self, stage: str, total: int | None) -> None: ...

    def advance(self, pairs: int) -> None: ...


class NoStages:
    def start(self, stage: str, total: int | None) -> None:
        pass

    def advance(self, pairs: int) -> None:
        pass


@dataclass(frozen=True)
class PrepareResult:
    out: Path
    info: dict[str, Any]
    bad_lines: list[BadLine]
    bad_count: int


@dataclass
class _Spool:
    """What reading leaves: the cleaned pairs in one file and their hashes in file order."""

    path: Path
    pair_hashes: list[np.ndarray] = field(default_factory=list)
    english_hashes: list[np.ndarray] = field(default_factory=list)
    reports: list[CorpusReport] = field(default_factory=list)
    pairs_per_corpus: list[int] = field(default_factory=list)


def prepare_corpus(
    corpora: Path | CorpusInput | Sequence[CorpusInput],
    *,
    out: Path,
    fractions: tuple[float, float, float] = DEFAULT_SPLIT,
    seed: int = DEFAULT_SEED,
    selection: Path | None = None,
    test: Path | None = None,
    max_selection: int = DEFAULT_MAX_HELD_OUT,
    max_test: int = DEFAULT_MAX_HELD_OUT,
    src_vocab: int = DEFAULT_SRC_VOCAB,
    tgt_vocab: int = DEFAULT_TGT_VOCAB,
    shared_vocab: int = 0,
    tokenizer_sample: int = DEFAULT_TOKENIZER_SAMPLE,
    filters: Filters = Filters(),
    strict: bool = False,
    force: bool = False,
    stages: Stages | None = None,
) -> PrepareResult:
    """Clean, filter, de-duplicate and split `corpora`, train tokenizers on (a sample of) the
    training part, encode it, and write `out`."""
    started = time.perf_counter()
    inputs = _inputs(corpora)
    stages = stages or NoStages()
    _check_options(
        src_vocab=src_vocab,
        tgt_vocab=tgt_vocab,
        shared_vocab=shared_vocab,
        max_selection=max_selection,
        max_test=max_test,
        tokenizer_sample=tokenizer_sample,
        selection=selection,
        test=test,
    )
    _check_out(out, force=force)
    tmp = out.with_name(f".{out.name}.preparing-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        spool = _read_all(inputs, tmp, strict=strict, filters=filters, stages=stages)
        pair_hash = np.concatenate(spool.pair_hashes)
        english_hash = np.concatenate(spool.english_hashes)
        duplicate = pd.Series(pair_hash).duplicated(keep="first").to_numpy()
        for report, kept in zip(spool.reports, _kept_per_corpus(spool, duplicate), strict=True):
            report.duplicates, report.pairs = report.pairs - kept, kept  # later copies of a pair
        total = _total_report(spool.reports)
        if total.pairs == 0:
            raise MtError(f"{_names(inputs)}: no valid English-Spanish pair{report_summary(total)}")
        held_out = _held_out(selection, test)
        part, excluded = assign_parts(
            english_hash,
            duplicate,
            fractions=fractions,
            seed=seed,
            max_pairs=(max_selection, max_test),
            held_english=_english_hashes(held_out),
            name=_names(inputs),
        )
        sample = tokenizer_sample_mask(part, size=tokenizer_sample, seed=seed)
        stages.start("split", len(part))
        texts = _write_parts(spool.path, tmp, part=part, sample=sample, stages=stages)
        spool.path.unlink()
        if held_out:
            for name, pairs in held_out.items():
                _write_pairs(tmp / PART_FILES[name], pairs.pairs)
        source, target = _train_tokenizers(texts, src_vocab, tgt_vocab, shared_vocab)
        del texts
        source.save(tmp / SOURCE_TOKENIZER)
        target.save(tmp / TARGET_TOKENIZER)
        arrays, lengths, parts, too_long = _encode_parts(
            tmp, source=source, target=target, max_length=filters.max_length, stages=stages
        )
        if filters.max_length:
            total.filtered[_too_long(filters.max_length)] = too_long
            total.pairs -= too_long
        if parts["train"]["pairs"] == 0:
            raise MtError(
                f"{_names(inputs)}: no training pair left with --max-length {filters.max_length}"
            )
        info: dict[str, Any] = {
            "format_version": PREPARED_FORMAT,
            "corpus": _names(inputs),
            "corpora": [
                {"name": source_input.name, **report.counts()}
                for source_input, report in zip(inputs, spool.reports, strict=True)
            ],
            "seed": seed,
            "split": None if selection else list(fractions),
            "max_selection": None if selection else max_selection,
            "max_test": None if selection else max_test,
            "held_out_files": {"selection": str(selection), "test": str(test)}
            if selection
            else None,
            "filters": {
                "max_words": filters.max_words,
                "max_ratio": filters.max_ratio,
                "drop_identical": filters.drop_identical,
                "max_length": filters.max_length,
            },
            "counts": {**total.counts(), "excluded_from_train": excluded, "parts": parts},
            "bad_line_examples": [str(bad) for bad in total.bad_lines[:_EXAMPLES]],
            "vocabulary": {
                "shared_vocab": bool(shared_vocab),
                "requested_source": shared_vocab or src_vocab,
                "requested_target": shared_vocab or tgt_vocab,
                "source": source.vocab_size,
                "target": target.vocab_size,
                "tokenizer_sample": int(min(tokenizer_sample, parts["train"]["pairs"])),
            },
            "lengths": lengths,
            "token_arrays": arrays,
        }
        info["elapsed_seconds"] = round(time.perf_counter() - started, 2)
        write_json(tmp / PREPARE_JSON, info)
        _write_checksums(tmp, arrays)
        _check_out(out, force=force)  # another run may have created it meanwhile
        replace_directory(tmp, out)
    except OSError as error:
        shutil.rmtree(tmp, ignore_errors=True)
        raise MtError(f"cannot write {out}: {error}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return PrepareResult(out=out, info=info, bad_lines=total.bad_lines, bad_count=total.bad_count)


def _inputs(corpora: Path | CorpusInput | Sequence[CorpusInput]) -> list[CorpusInput]:
    if isinstance(corpora, Path):
        return [CorpusInput(path=corpora)]
    if isinstance(corpora, CorpusInput):
        return [corpora]
    if not corpora:
        raise MtError("no corpus given: name a TSV/CSV file or --source-file/--target-file")
    return list(corpora)


def _names(inputs: Sequence[CorpusInput]) -> str:
    return ", ".join(source.name for source in inputs)


def _check_options(
    *,
    src_vocab: int,
    tgt_vocab: int,
    shared_vocab: int,
    max_selection: int,
    max_test: int,
    tokenizer_sample: int,
    selection: Path | None,
    test: Path | None,
) -> None:
    for name, size in (("--src-vocab", src_vocab), ("--tgt-vocab", tgt_vocab)):
        if size <= 4 and not shared_vocab:
            raise MtError(f"{name} must be more than 4, got {size}")
    if shared_vocab < 0 or 0 < shared_vocab <= 4:
        raise MtError(f"--shared-vocab must be more than 4 (or 0 for none), got {shared_vocab}")
    for name, value in (("--max-selection", max_selection), ("--max-test", max_test)):
        if value <= 0:
            raise MtError(f"{name} must be a positive number of pairs, got {value}")
    if tokenizer_sample <= 0:
        raise MtError(
            f"--tokenizer-sample must be a positive number of pairs, got {tokenizer_sample}"
        )
    if (selection is None) != (test is None):
        raise MtError("give both --selection and --test, or neither")


# ----- 1. read -----------------------------------------------------------------------------------


def _read_all(
    inputs: Sequence[CorpusInput], tmp: Path, *, strict: bool, filters: Filters, stages: Stages
) -> _Spool:
    spool = _Spool(path=tmp / ".spool.tsv")
    stages.start("read", None)
    with spool.path.open("w", encoding="utf-8", newline="\n") as file:
        for source in inputs:
            report = CorpusReport(path=source.name)
            pairs = 0
            for chunk in stream_corpus(source, report, strict=strict, filters=filters):
                file.write(
                    "".join(f"{en}\t{es}\n" for en, es in zip(chunk.en, chunk.es, strict=True))
                )
                english = pair_hashes(chunk.en)
                spool.english_hashes.append(english)
                spool.pair_hashes.append(combine_hashes(english, pair_hashes(chunk.es)))
                pairs += len(chunk.en)
                stages.advance(len(chunk.en))
            spool.reports.append(report)
            spool.pairs_per_corpus.append(pairs)
    if not spool.pair_hashes:
        spool.pair_hashes.append(np.zeros(0, dtype=np.uint64))
        spool.english_hashes.append(np.zeros(0, dtype=np.uint64))
    return spool


def _total_report(reports: Sequence[CorpusReport]) -> CorpusReport:
    total = CorpusReport(path=", ".join(report.path for report in reports))
    for report in reports:
        total.merge(report)
    return total


def _kept_per_corpus(spool: _Spool, duplicate: np.ndarray) -> list[int]:
    bounds = np.cumsum([0, *spool.pairs_per_corpus])
    return [int((~duplicate[a:b]).sum()) for a, b in itertools.pairwise(bounds)]


# ----- 2. split ----------------------------------------------------------------------------------


def _held_out(selection: Path | None, test: Path | None) -> dict[str, Any]:
    if selection is None or test is None:
        return {}
    return {
        "selection": read_corpus(selection, strict=True),
        "test": read_corpus(test, strict=True),
    }


def _english_hashes(held_out: dict[str, Any]) -> np.ndarray | None:
    if not held_out:
        return None
    return np.concatenate(
        [pair_hashes([en for en, _ in corpus.pairs]) for corpus in held_out.values()]
    )


def _write_parts(
    spool: Path, tmp: Path, *, part: np.ndarray, sample: np.ndarray, stages: Stages
) -> tuple[list[str], list[str]]:
    """The spool cut into the part files; returns the tokenizer sample's English and Spanish."""
    english: list[str] = []
    spanish: list[str] = []
    files = {
        label: (tmp / PART_FILES[name]).open("w", encoding="utf-8", newline="\n")
        for label, name in enumerate(PARTS)
    }
    try:
        position = 0
        for lines in _line_chunks(spool):
            labels = part[position : position + len(lines)].tolist()
            chosen = np.flatnonzero(sample[position : position + len(lines)]).tolist()
            for label, file in files.items():
                file.write(
                    "".join(line for line, p in zip(lines, labels, strict=True) if p == label)
                )
            for index in chosen:
                en, _, es = lines[index].rstrip("\n").partition("\t")
                english.append(en)
                spanish.append(es)
            position += len(lines)
            stages.advance(len(lines))
    finally:
        for file in files.values():
            file.close()
    return english, spanish


def _line_chunks(path: Path, size: int = _CHUNK) -> Iterator[list[str]]:
    with path.open(encoding="utf-8", newline="\n") as file:
        while lines := list(itertools.islice(file, size)):
            yield lines


def _write_pairs(path: Path, pairs: Sequence[tuple[str, str]]) -> None:
    path.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")


# ----- 3. tokenizers and 4. token arrays ---------------------------------------------------------


def _train_tokenizers(
    texts: tuple[list[str], list[str]], src_vocab: int, tgt_vocab: int, shared_vocab: int
) -> tuple[WordPieceCodec, WordPieceCodec]:
    english, spanish = texts
    if shared_vocab:
        shared = WordPieceCodec.train(english + spanish, shared_vocab)
        return shared, shared
    return WordPieceCodec.train(english, src_vocab), WordPieceCodec.train(spanish, tgt_vocab)


def _too_long(max_length: int) -> str:
    return f"more than {max_length} labels"


def _encode_parts(
    tmp: Path, *, source: WordPieceCodec, target: WordPieceCodec, max_length: int, stages: Stages
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], int]:
    """Token arrays of train and selection, word-piece length statistics of every part, the pair
    counts of every part, and how many pairs `max_length` left out (their lines leave the part's
    TSV too, so the text and the arrays stay row for row the same)."""
    arrays: dict[str, Any] = {"parts": {}}
    lengths: dict[str, Any] = {}
    parts: dict[str, Any] = {}
    too_long = 0
    counts = {name: _count_lines(tmp / PART_FILES[name]) for name in PARTS}
    stages.start("encode", sum(counts.values()))
    for name in PARTS:
        writers = {
            side: TokenArrayWriter(tmp, f"{name}.{suffix}", vocab_size=codec.vocab_size)
            for (side, suffix), codec in zip(SIDES.items(), (source, target), strict=True)
        }
        part_file = tmp / PART_FILES[name]
        kept_file = part_file.with_suffix(".kept") if max_length else None
        english_hashes = []
        try:
            with contextlib.ExitStack() as stack:
                kept = (
                    stack.enter_context(kept_file.open("w", encoding="utf-8", newline="\n"))
                    if kept_file
                    else None
                )
                for lines in _line_chunks(part_file):
                    split = [line.rstrip("\n").split("\t", 1) for line in lines]
                    en_ids = source.encode_batch([pair[0] for pair in split])
                    es_ids = target.encode_batch([pair[1] for pair in split])
                    stages.advance(len(lines))
                    if kept is not None:
                        fits = [
                            len(a) <= max_length and len(b) <= max_length
                            for a, b in zip(en_ids, es_ids, strict=True)
                        ]
                        too_long += fits.count(False)
                        split, lines, en_ids, es_ids = (
                            list(itertools.compress(items, fits))
                            for items in (split, lines, en_ids, es_ids)
                        )
                        kept.write("".join(lines))
                    english_hashes.append(pair_hashes([pair[0] for pair in split]))
                    writers["source"].add(en_ids)
                    writers["target"].add(es_ids)
            entries = {side: writer.finish() for side, writer in writers.items()}
        except BaseException:
            for writer in writers.values():
                writer.abort()
            raise
        if kept_file:
            kept_file.replace(part_file)
            counts[name] = int(entries["source"]["sentences"])
        lengths[name] = {
            side: _length_stats(open_column(tmp, entry).sizes()) for side, entry in entries.items()
        }
        distinct = len(np.unique(np.concatenate(english_hashes))) if english_hashes else 0
        parts[name] = {"pairs": counts[name], "distinct_english": distinct}
        if name in ARRAY_PARTS:
            arrays["parts"][name] = entries
        else:  # the test part is read as text by `mt evaluate`: its arrays were for the figures
            for entry in entries.values():
                (tmp / entry["ids"]).unlink()
                (tmp / entry["offsets"]).unlink()
    arrays["dtype"] = {side: arrays["parts"]["train"][side]["dtype"] for side in SIDES}
    return arrays, lengths, parts, too_long


def _count_lines(path: Path) -> int:
    with path.open("rb") as file:
        return sum(block.count(b"\n") for block in iter(lambda: file.read(1 << 20), b""))


def _length_stats(counts: np.ndarray) -> dict[str, float]:
    """Word-pieces per sentence (no BOS/EOS)."""
    if len(counts) == 0:
        return {"mean": 0.0, "p95": 0.0, "p99": 0.0, "max": 0}
    return {
        "mean": round(float(counts.mean()), 2),
        "p95": float(np.percentile(counts, 95)),
        "p99": float(np.percentile(counts, 99)),
        "max": int(counts.max()),
    }


def _write_checksums(tmp: Path, arrays: dict[str, Any]) -> None:
    """`sha256sum -c checksums.sha256` checks every file; the arrays' sums were taken while they
    were written."""
    known = {
        name: digest
        for part in arrays["parts"].values()
        for entry in part.values()
        for name, digest in entry["sha256"].items()
    }
    names = sorted(path.name for path in tmp.iterdir() if path.is_file())
    lines = [f"{known.get(name) or sha256(tmp / name)}  {name}\n" for name in names]
    (tmp / CHECKSUMS).write_text("".join(lines), encoding="utf-8")


def _check_out(out: Path, *, force: bool) -> None:
    check_replaceable(
        out,
        force=force,
        is_ours=lambda directory: (directory / PREPARE_JSON).is_file(),
        refusal=f"is not a prepared directory (no {PREPARE_JSON}); refusing to replace it",
    )
