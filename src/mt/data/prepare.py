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
   (tokenarrays.py);
5. the capitalised words of the training part are counted into lexicon.tsv (lexicon.py), so that
   translation can tell names, which it copies, from ordinary words.

The directory is built under a temporary sibling name and renamed into place, so an interrupted
run never leaves a half-prepared directory behind. `mt.data.prepared_dir.load_prepared` is how
`train`,
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
from mt.checksums import write_checksums
from mt.config import PREPARE, PrepareConfig
from mt.data.corpus import (
    PARTS,
    BadLine,
    CorpusInput,
    CorpusReport,
    Filters,
    read_corpus,
    report_summary,
    stream_corpus,
)
from mt.data.lexicon import lexicon_of_part, write_lexicon
from mt.data.partition import assign_parts, combine_hashes, pair_hashes, tokenizer_sample_mask
from mt.data.prepared_dir import ARRAY_PARTS, PART_FILES, SIDES
from mt.data.tokenarrays import TokenArrayWriter, open_column
from mt.data.tokenization import WordPieceCodec
from mt.errors import MtError
from mt.files import (
    LEXICON,
    PREPARE_JSON,
    PREPARED_FORMAT,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    write_json,
)

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
    duplicate: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def prepare_corpus(
    corpora: Path | CorpusInput | Sequence[CorpusInput],
    *,
    out: Path,
    config: PrepareConfig = PREPARE,
    selection: Path | None = None,
    test: Path | None = None,
    force: bool = False,
    stages: Stages | None = None,
) -> PrepareResult:
    """Clean, filter, de-duplicate and split `corpora`, train tokenizers on (a sample of) the
    training part, encode it, and write `out`; `selection` and `test` files replace the split's
    held-out parts."""
    started = time.perf_counter()
    inputs = _inputs(corpora)
    if (selection is None) != (test is None):
        raise MtError("give both --selection and --test, or neither")
    _check_out(out, force=force)
    tmp = out.with_name(f".{out.name}.preparing-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        held_out = _held_out(selection, test)
        info, total = _build(inputs, tmp, config, held_out, stages or NoStages())
        if held_out:
            info["held_out_files"] = {"selection": str(selection), "test": str(test)}
        info["elapsed_seconds"] = round(time.perf_counter() - started, 2)
        write_json(tmp / PREPARE_JSON, info)
        write_checksums(tmp, _array_digests(info["token_arrays"]))
        _check_out(out, force=force)  # another run may have created it meanwhile
        replace_directory(tmp, out)
    except OSError as error:
        shutil.rmtree(tmp, ignore_errors=True)
        raise MtError(f"cannot write {out}: {error}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return PrepareResult(out=out, info=info, bad_lines=total.bad_lines, bad_count=total.bad_count)


def _build(
    inputs: list[CorpusInput],
    tmp: Path,
    config: PrepareConfig,
    held_out: dict[str, Any],
    stages: Stages,
) -> tuple[dict[str, Any], CorpusReport]:
    """The five stages in order, each writing into `tmp`; prepare.json's content and the counts."""
    name = _names(inputs)
    spool = _read_all(inputs, tmp, strict=config.strict, filters=_filters(config), stages=stages)
    total = _deduplicate(spool)
    if total.pairs == 0:
        raise MtError(f"{name}: no valid English-Spanish pair{report_summary(total)}")
    part, excluded = assign_parts(
        np.concatenate(spool.english_hashes),
        spool.duplicate,
        fractions=config.split,
        seed=config.seed,
        max_pairs=(config.max_selection, config.max_test),
        held_english=_english_hashes(held_out),
        name=name,
    )
    sample = tokenizer_sample_mask(part, size=config.tokenizer_sample, seed=config.seed)
    stages.start("split", len(part))
    texts = _write_parts(spool.path, tmp, part=part, sample=sample, stages=stages)
    spool.path.unlink()
    for held, pairs in held_out.items():
        _write_pairs(tmp / PART_FILES[held], pairs.pairs)
    source, target = _train_tokenizers(texts, config)
    del texts
    source.save(tmp / SOURCE_TOKENIZER)
    target.save(tmp / TARGET_TOKENIZER)
    arrays, lengths, parts, too_long = _encode_parts(
        tmp, source=source, target=target, max_length=config.max_length, stages=stages
    )
    if config.max_length:
        total.filtered[_too_long(config.max_length)] = too_long
        total.pairs -= too_long
    if parts["train"]["pairs"] == 0:
        raise MtError(f"{name}: no training pair left with --max-length {config.max_length}")
    stages.start("lexicon", parts["train"]["pairs"])
    lexicon = lexicon_of_part(tmp / PART_FILES["train"], advance=stages.advance)
    write_lexicon(tmp / LEXICON, lexicon)
    info = _info(inputs, spool.reports, config, total, held_out=bool(held_out))
    info["counts"] = {**total.counts(), "excluded_from_train": excluded, "parts": parts}
    info["vocabulary"] = {
        "shared_vocab": bool(config.shared_vocab),
        "requested_source": config.shared_vocab or config.src_vocab,
        "requested_target": config.shared_vocab or config.tgt_vocab,
        "source": source.vocab_size,
        "target": target.vocab_size,
        "tokenizer_sample": int(min(config.tokenizer_sample, parts["train"]["pairs"])),
    }
    info["lengths"], info["token_arrays"] = lengths, arrays
    return info, total


def _filters(config: PrepareConfig) -> Filters:
    """The raw-text filters applied while reading (`max_length` waits for the tokenizers)."""
    return Filters(
        max_words=config.max_words,
        max_ratio=config.max_ratio,
        drop_identical=config.drop_identical,
    )


def _info(
    inputs: Sequence[CorpusInput],
    reports: Sequence[CorpusReport],
    config: PrepareConfig,
    total: CorpusReport,
    *,
    held_out: bool,
) -> dict[str, Any]:
    return {
        "format_version": PREPARED_FORMAT,
        "corpus": _names(inputs),
        "corpora": [
            {"name": source_input.name, **report.counts()}
            for source_input, report in zip(inputs, reports, strict=True)
        ],
        "seed": config.seed,
        "split": None if held_out else list(config.split),
        "max_selection": None if held_out else config.max_selection,
        "max_test": None if held_out else config.max_test,
        "held_out_files": None,
        "filters": {
            "max_words": config.max_words,
            "max_ratio": config.max_ratio,
            "drop_identical": config.drop_identical,
            "max_length": config.max_length,
        },
        "bad_line_examples": [str(bad) for bad in total.bad_lines[:_EXAMPLES]],
    }


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


def _deduplicate(spool: _Spool) -> CorpusReport:
    """Mark later copies of a pair as duplicates (`spool.duplicate`); the counts of all corpora."""
    spool.duplicate = pd.Series(np.concatenate(spool.pair_hashes)).duplicated().to_numpy()
    bounds = np.cumsum([0, *spool.pairs_per_corpus])
    for report, (a, b) in zip(spool.reports, itertools.pairwise(bounds), strict=True):
        kept = int((~spool.duplicate[a:b]).sum())
        report.duplicates, report.pairs = report.pairs - kept, kept
    return _total_report(spool.reports)


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
    texts: tuple[list[str], list[str]], config: PrepareConfig
) -> tuple[WordPieceCodec, WordPieceCodec]:
    english, spanish = texts
    if config.shared_vocab:
        shared = WordPieceCodec.train(english + spanish, config.shared_vocab)
        return shared, shared
    return (
        WordPieceCodec.train(english, config.src_vocab),
        WordPieceCodec.train(spanish, config.tgt_vocab),
    )


def _too_long(max_length: int) -> str:
    return f"more than {max_length} labels"


def _encode_parts(
    tmp: Path, *, source: WordPieceCodec, target: WordPieceCodec, max_length: int, stages: Stages
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], int]:
    """Token arrays of train and selection, word-piece length statistics of every part, the pair
    counts of every part, and how many pairs `max_length` left out."""
    arrays: dict[str, Any] = {"parts": {}}
    lengths: dict[str, Any] = {}
    parts: dict[str, Any] = {}
    too_long = 0
    counts = {name: _count_lines(tmp / PART_FILES[name]) for name in PARTS}
    stages.start("encode", sum(counts.values()))
    for name in PARTS:
        encoded = _EncodedPart(tmp, name, source, target)
        encoded.run(max_length, stages)
        too_long += encoded.too_long
        if max_length:
            counts[name] = int(encoded.entries["source"]["sentences"])
        lengths[name] = {
            side: _length_stats(open_column(tmp, entry).sizes())
            for side, entry in encoded.entries.items()
        }
        parts[name] = {"pairs": counts[name], "distinct_english": encoded.distinct_english()}
        if name in ARRAY_PARTS:
            arrays["parts"][name] = encoded.entries
        else:  # the test part is read as text by `mt evaluate`: its arrays were for the figures
            for entry in encoded.entries.values():
                (tmp / entry["ids"]).unlink()
                (tmp / entry["offsets"]).unlink()
    arrays["dtype"] = {side: arrays["parts"]["train"][side]["dtype"] for side in SIDES}
    return arrays, lengths, parts, too_long


class _EncodedPart:
    """One part's TSV encoded into token arrays. The word-piece filter (`--max-length`) is its own
    step on the encoded ids: a pair it leaves out leaves the part's TSV too, so the text and the
    arrays stay row for row the same."""

    def __init__(
        self, tmp: Path, name: str, source: WordPieceCodec, target: WordPieceCodec
    ) -> None:
        self.part_file = tmp / PART_FILES[name]
        self.codecs = (source, target)
        self.writers = {
            side: TokenArrayWriter(tmp, f"{name}.{suffix}", vocab_size=codec.vocab_size)
            for (side, suffix), codec in zip(SIDES.items(), self.codecs, strict=True)
        }
        self.entries: dict[str, Any] = {}
        self.english_hashes: list[np.ndarray] = []
        self.too_long = 0

    def run(self, max_length: int, stages: Stages) -> None:
        kept_file = self.part_file.with_suffix(".kept")
        try:
            with contextlib.ExitStack() as stack:
                kept = (
                    stack.enter_context(kept_file.open("w", encoding="utf-8", newline="\n"))
                    if max_length
                    else None
                )
                for lines in _line_chunks(self.part_file):
                    stages.advance(len(lines))
                    lines, en_ids, es_ids = self._encode(lines, max_length)
                    if kept is not None:
                        kept.write("".join(lines))
                    self.english_hashes.append(
                        pair_hashes([line.split("\t", 1)[0] for line in lines])
                    )
                    self.writers["source"].add(en_ids)
                    self.writers["target"].add(es_ids)
            self.entries = {side: writer.finish() for side, writer in self.writers.items()}
        except BaseException:
            for writer in self.writers.values():
                writer.abort()
            raise
        if max_length:
            kept_file.replace(self.part_file)

    def _encode(self, lines: list[str], max_length: int) -> tuple[list[str], list, list]:
        split = [line.rstrip("\n").split("\t", 1) for line in lines]
        en_ids = self.codecs[0].encode_batch([pair[0] for pair in split])
        es_ids = self.codecs[1].encode_batch([pair[1] for pair in split])
        if not max_length:
            return lines, en_ids, es_ids
        fits = [
            len(a) <= max_length and len(b) <= max_length
            for a, b in zip(en_ids, es_ids, strict=True)
        ]
        self.too_long += fits.count(False)
        kept = (list(itertools.compress(items, fits)) for items in (lines, en_ids, es_ids))
        return next(kept), next(kept), next(kept)

    def distinct_english(self) -> int:
        hashes = self.english_hashes
        return len(np.unique(np.concatenate(hashes))) if hashes else 0


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


def _check_out(out: Path, *, force: bool) -> None:
    check_replaceable(
        out,
        force=force,
        is_ours=lambda directory: (directory / PREPARE_JSON).is_file(),
        refusal=f"is not a prepared directory (no {PREPARE_JSON}); refusing to replace it",
    )


def _array_digests(arrays: dict[str, Any]) -> dict[str, str]:
    """The arrays' sums, taken while they were written, so the listing need not read them again."""
    return {
        name: digest
        for part in arrays["parts"].values()
        for entry in part.values()
        for name, digest in entry["sha256"].items()
    }
