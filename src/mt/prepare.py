"""`mt prepare`: corpus files -> a prepared directory (cleaned parts, tokenizers, token arrays).

The corpora are read as streams, so memory does not grow with their size except for two 8-byte
hashes a pair (duplicates and the English sentence of each pair) and the offsets of the encoded
training part:

1. read: every corpus is cleaned and filtered chunk by chunk and spooled to one temporary file,
   keeping only the hashes in NumPy arrays;
2. split: duplicates and the split by English sentence are decided on the hashes alone (the same
   split as grouping the strings: groups in order of first appearance, shuffled with the seed),
   with the selection and test parts capped; the spool is then written out part by part;
3. tokenizers are trained on a seeded sample of the training part (all of it, in file order,
   when it is smaller than the sample);
4. the training and selection parts are encoded in batches into the token arrays that
   `mt train` memory-maps (see tokenarrays.py).

The directory is built under a temporary sibling name and renamed into place, so an interrupted
run never leaves a half-prepared directory behind. `load_prepared` is how `train`, `translate`
and `evaluate` read it back.
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
from typing import TYPE_CHECKING, Any, Protocol

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
from mt.files import (
    PREPARE_JSON,
    PREPARED_FORMAT,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    check_format,
    read_json,
    write_json,
)
from mt.tokenarrays import TokenArrayWriter, open_column, sha256
from mt.tokenization import WordPieceCodec

if TYPE_CHECKING:
    from mt.batching import EncodedPairs

DEFAULT_SRC_VOCAB = 4562
DEFAULT_TGT_VOCAB = 6134
DEFAULT_MAX_HELD_OUT = PREPARE_DEFAULTS.max_held_out
DEFAULT_TOKENIZER_SAMPLE = PREPARE_DEFAULTS.tokenizer_sample
PART_FILES = {part: f"{part}.tsv" for part in PARTS}
ARRAY_PARTS = ("train", "selection")
SIDES = {"source": "en", "target": "es"}
CHECKSUMS = "checksums.sha256"
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
class Prepared:
    """A prepared directory read back: its summary, both tokenizers and its three parts."""

    root: Path
    info: dict[str, Any]
    source: WordPieceCodec
    target: WordPieceCodec

    def path(self, part: str) -> Path:
        return self.root / PART_FILES[part]

    def read_part(self, part: str) -> list[tuple[str, str]]:
        """The (english, spanish) pairs of "train", "selection" or "test"."""
        if part not in PART_FILES:
            raise MtError(f"unknown part {part!r}; choose one of {', '.join(PARTS)}")
        return read_pairs(self.path(part))

    def encoded(self, part: str, *, max_src_len: int, max_tgt_len: int) -> EncodedPairs:
        """The token arrays of "train" or "selection", read row by row from their files."""
        from mt.batching import EncodedPairs  # torch: only training needs it

        entries = self.info["token_arrays"]["parts"][part]
        return EncodedPairs(
            source=open_column(self.root, entries["source"]),
            target=open_column(self.root, entries["target"]),
            max_src_len=max_src_len,
            max_tgt_len=max_tgt_len,
        )


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
        part, excluded = _assign_parts(
            english_hash,
            duplicate,
            fractions=fractions,
            seed=seed,
            max_pairs=(max_selection, max_test),
            held_out=held_out,
            name=_names(inputs),
        )
        sample = _tokenizer_sample(part, size=tokenizer_sample, seed=seed)
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
                spool.pair_hashes.append(_combine(english, pair_hashes(chunk.es)))
                pairs += len(chunk.en)
                stages.advance(len(chunk.en))
            spool.reports.append(report)
            spool.pairs_per_corpus.append(pairs)
    if not spool.pair_hashes:
        spool.pair_hashes.append(np.zeros(0, dtype=np.uint64))
        spool.english_hashes.append(np.zeros(0, dtype=np.uint64))
    return spool


def pair_hashes(texts: Sequence[str]) -> np.ndarray:
    """A 64-bit hash of each text, the same in every run (pandas' fixed-key SipHash)."""
    return pd.util.hash_array(np.asarray(texts, dtype=object), categorize=False)


def _combine(english: np.ndarray, spanish: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return english * np.uint64(0x9E3779B97F4A7C15) ^ spanish


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


def _assign_parts(
    english_hash: np.ndarray,
    duplicate: np.ndarray,
    *,
    fractions: tuple[float, float, float],
    seed: int,
    max_pairs: tuple[int, int],
    held_out: dict[str, Any],
    name: str,
) -> tuple[np.ndarray, int]:
    """Part of every spooled pair: 0 train, 1 selection, 2 test, -1 dropped (a duplicate, or
    with held-out files, a pair whose English is in one); and how many were excluded so."""
    part = np.full(len(english_hash), -1, dtype=np.int8)
    kept = ~duplicate
    if held_out:
        held = np.concatenate(
            [pair_hashes([en for en, _ in corpus.pairs]) for corpus in held_out.values()]
        )
        excluded = kept & np.isin(english_hash, held)
        part[kept & ~excluded] = 0
        if not (part == 0).any():
            raise MtError(
                f"{name}: no training pair left: every English sentence is in "
                "the --selection or --test file"
            )
        return part, int(excluded.sum())
    codes, uniques = pd.factorize(english_hash[kept])
    groups = len(uniques)
    n_selection = round(fractions[1] * groups)
    n_test = round(fractions[2] * groups)
    n_train = groups - n_selection - n_test
    if min(n_train, n_selection, n_test) <= 0:
        raise MtError(
            f"{name}: too small to split: {groups} distinct English sentences "
            f"give {n_train}/{n_selection}/{n_test} for train/selection/test; "
            "add pairs or give --selection and --test files"
        )
    pairs_of_group = np.bincount(codes, minlength=groups)
    part_of_group = np.zeros(groups, dtype=np.int8)
    order = np.random.default_rng(seed).permutation(groups)
    candidates = (order[n_train : n_train + n_selection], order[n_train + n_selection :])
    for label, (chosen, cap) in enumerate(zip(candidates, max_pairs, strict=True), start=1):
        # Whole English sentences, in shuffled order, while the part holds at most `cap` pairs;
        # the groups left over train.
        fits = np.cumsum(pairs_of_group[chosen]) <= cap
        part_of_group[chosen[fits]] = label
    part[kept] = part_of_group[codes]
    return part, 0


def _tokenizer_sample(part: np.ndarray, *, size: int, seed: int) -> np.ndarray:
    """Which spooled pairs the tokenizers learn from: every training pair when there are at most
    `size`, else a seeded sample of `size` of them (kept in file order)."""
    train = np.flatnonzero(part == 0)
    chosen = np.zeros(len(part), dtype=bool)
    if len(train) <= size:
        chosen[train] = True
    else:
        picks = np.random.default_rng([seed, 0x746F6B]).choice(len(train), size, replace=False)
        chosen[train[picks]] = True
    return chosen


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


# ----- reading back ------------------------------------------------------------------------------


def _check_out(out: Path, *, force: bool) -> None:
    check_replaceable(
        out,
        force=force,
        is_ours=lambda directory: (directory / PREPARE_JSON).is_file(),
        refusal=f"is not a prepared directory (no {PREPARE_JSON}); refusing to replace it",
    )


def read_pairs(path: Path) -> list[tuple[str, str]]:
    """Pairs from a 2-column TSV that `mt prepare` wrote."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise MtError(f"{path} is missing; run `mt prepare` again") from None
    except (OSError, UnicodeDecodeError) as error:
        raise MtError(f"cannot read {path}: {error}") from None
    pairs = []
    for number, line in enumerate(text.split("\n")[:-1], start=1):
        english, tab, spanish = line.partition("\t")
        if not tab or "\t" in spanish:
            raise MtError(f"{path} line {number}: expected english<TAB>spanish; run `mt prepare`")
        pairs.append((english, spanish))
    return pairs


def load_prepared(root: Path) -> Prepared:
    """Read a directory written by `mt prepare`; a clear error names anything missing."""
    if not root.is_dir():
        raise MtError(
            f"prepared directory {root} does not exist; run `mt prepare CORPUS --out {root}`"
        )
    needed = [PREPARE_JSON, SOURCE_TOKENIZER, TARGET_TOKENIZER, *PART_FILES.values()]
    missing = [name for name in needed if not (root / name).is_file()]
    if missing:
        raise MtError(
            f"prepared directory {root} is incomplete: missing {', '.join(missing)}; "
            "run `mt prepare`"
        )
    info = read_json(root / PREPARE_JSON)
    version = info.get("format_version") if isinstance(info, dict) else None
    what = f"{root / PREPARE_JSON}: prepared"
    check_format(version, PREPARED_FORMAT, what=what, advice="run `mt prepare` again")
    return Prepared(
        root=root,
        info=info,
        source=WordPieceCodec.load(root / SOURCE_TOKENIZER),
        target=WordPieceCodec.load(root / TARGET_TOKENIZER),
    )


def summary_rows(info: dict[str, Any]) -> list[tuple[str, str]]:
    """prepare.json as (what, value) rows for the table `mt prepare` prints."""
    counts = info["counts"]
    vocab = info["vocabulary"]
    dropped = ", ".join(f"{n:,} {reason}" for reason, n in counts["dropped"].items()) or "0"
    filtered = ", ".join(f"{n:,} {reason}" for reason, n in counts.get("filtered", {}).items())
    cleaned = ", ".join(
        f"{counts[key]} {label}"
        for key, label in (
            ("nfc_changed", "NFC"),
            ("zero_width_removed", "zero-width"),
            ("no_break_spaces_mapped", "no-break space"),
            ("whitespace_collapsed", "whitespace"),
            ("stripped", "stripped"),
        )
        if counts[key]
    )
    rows = [
        ("corpus", info["corpus"]),
        ("lines read", f"{counts['lines']:,}"),
        ("dropped", dropped),
        ("lines cleaned", cleaned or "0"),
        ("filtered", filtered or "0"),
        ("duplicate pairs", f"{counts['duplicates']:,}"),
        ("pairs", f"{counts['pairs']:,}"),
    ]
    for part, numbers in counts["parts"].items():
        lengths = info["lengths"][part]
        rows.append(
            (
                part,
                f"{numbers['pairs']:,} pairs, {numbers['distinct_english']:,} English; "
                f"labels en {_stats(lengths['source'])} | es {_stats(lengths['target'])}",
            )
        )
    shared = " (shared)" if vocab["shared_vocab"] else ""
    rows.append(("vocabulary", f"en {vocab['source']:,}, es {vocab['target']:,}{shared}"))
    return rows


def _stats(numbers: dict[str, float]) -> str:
    return f"{numbers['mean']:.1f}/{numbers['p95']:.0f}/{numbers['p99']:.0f}/{numbers['max']}"
