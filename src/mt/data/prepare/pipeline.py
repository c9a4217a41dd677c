"""`mt prepare`: corpus files -> a prepared directory (cleaned parts, tokenizers, token arrays).

Corpora are streamed, so memory grows only by two 8-byte hashes a pair and the training part's
offsets: read and spool (spool.py), split on the hashes (partition.py), train tokenizers on a
seeded sample, encode every part (token arrays for train and selection, tokenarrays.py), count
lexicon.tsv (lexicon.py) and words.tsv (wordstats.py) from the training English.

With `--reverse` the parts are written Spanish first, still split by English sentence, so both
directions share their parts; the English-only tables are then empty. `--synthetic` files are
tagged, kept to the training part and capped (synthetic.py). The directory is built under a
temporary sibling name and renamed into place, so an interrupted run leaves nothing half-made.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mt.catalog.direction import FORWARD, REVERSE, Direction
from mt.config import PREPARE, PrepareConfig
from mt.data.prepare.base_run import BaseRun, read_base_run
from mt.data.prepare.paragraphs import WholeParagraphs
from mt.data.prepare.part_arrays import encode_parts, line_chunks, too_long_reason
from mt.data.prepare.partition import (
    pair_hashes,
    tokenizer_sample_mask,
)
from mt.data.prepare.spool import deduplicate, read_all
from mt.data.prepare.stages import NoStages, Stages
from mt.data.prepare.synthetic import is_synthetic, split_parts, untagged, with_tag
from mt.data.prepare.vocabularies import choose_tokenizers, vocabulary_info
from mt.data.prepared_dir import PART_FILES
from mt.data.readers.corpus import (
    PARTS,
    BadLine,
    CorpusInput,
    CorpusReport,
    read_corpus,
    report_summary,
)
from mt.data.tokenization import SYNTHETIC_TAG
from mt.errors import MtError
from mt.storage.atomic import building_beside, check_replaceable, replace_directory
from mt.storage.checksums import write_checksums
from mt.storage.files import (
    LEXICON,
    PREPARE_JSON,
    PREPARED_FORMAT,
    WORD_STATS,
    write_json,
)
from mt.text.lexicon import NO_LEXICON, lexicon_of_part, write_lexicon
from mt.text.wordstats import NO_WORD_STATS, word_stats_of_part, write_word_stats

_EXAMPLES = 20  # bad lines quoted in prepare.json


@dataclass(frozen=True)
class PrepareResult:
    out: Path
    info: dict[str, Any]
    bad_lines: list[BadLine]
    bad_count: int


def prepare_corpus(
    corpora: Path | CorpusInput | Sequence[CorpusInput],
    *,
    out: Path,
    config: PrepareConfig = PREPARE,
    selection: Path | None = None,
    test: Path | None = None,
    force: bool = False,
    stages: Stages | None = None,
    tokenizers_from: str | Path | None = None,
    synthetic: Sequence[CorpusInput] = (),
) -> PrepareResult:
    """`corpora` prepared into `out`; `selection` and `test` files replace the split's held-out
    parts, and `tokenizers_from`'s tokenizers (a run or a shipped model) replace trained ones."""
    started = time.perf_counter()
    inputs = _inputs(corpora)
    real = len(inputs)
    inputs += list(synthetic)
    if (selection is None) != (test is None):
        raise MtError("give both --selection and --test, or neither")
    base = None
    if tokenizers_from is not None:
        base = read_base_run(tokenizers_from, option="--tokenizers-from")
        _check_direction(base, REVERSE if config.reverse else FORWARD)
    _check_out(out, force=force)
    with building_beside(out, doing="preparing") as tmp:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        held_out = _held_out(selection, test)
        info, total = _build(inputs, real, tmp, config, held_out, stages or NoStages(), base)
        if held_out:
            info["held_out_files"] = {"selection": str(selection), "test": str(test)}
        info["elapsed_seconds"] = round(time.perf_counter() - started, 2)
        write_json(tmp / PREPARE_JSON, info)
        write_checksums(tmp, _array_digests(info["token_arrays"]))
        _check_out(out, force=force)  # another run may have created it meanwhile
        replace_directory(tmp, out)
    return PrepareResult(out=out, info=info, bad_lines=total.bad_lines, bad_count=total.bad_count)


def _build(
    inputs: list[CorpusInput],
    real: int,
    tmp: Path,
    config: PrepareConfig,
    held_out: dict[str, Any],
    stages: Stages,
    base: BaseRun | None,
) -> tuple[dict[str, Any], CorpusReport]:
    """The five stages in order, each writing into `tmp`; prepare.json's content and the counts.
    The first `real` inputs are real corpora, the others synthetic."""
    name = _names(inputs[:real])
    spool = read_all(inputs, real, tmp, config=config, stages=stages)
    total = deduplicate(spool)
    if total.pairs == 0:
        raise MtError(f"{name}: no valid English-Spanish pair{report_summary(total)}")
    part, repeats, corpus_repeats, placed, spool.excluded = split_parts(
        np.concatenate(spool.english_hashes),
        synthetic=np.concatenate(spool.synthetic),
        duplicate=spool.duplicate,
        pairs_per_corpus=spool.pairs_per_corpus,
        config=config,
        held_english=_english_hashes(held_out),
        name=name,
    )
    sample = tokenizer_sample_mask(part, size=config.tokenizer_sample, seed=config.seed)
    stages.start("split", len(part))
    texts = _write_parts(spool.path, tmp, part=part, sample=sample, repeats=repeats, stages=stages)
    spool.path.unlink()
    for held, corpus in held_out.items():  # read English first; written source first, as above
        pairs = [(es, en) for en, es in corpus.pairs] if config.reverse else corpus.pairs
        _write_pairs(tmp / PART_FILES[held], pairs)
    source, target, extra = choose_tokenizers(texts, config, tmp=tmp, base=base)
    del texts
    if placed["train"]:
        source, target = with_tag(source, target, tmp)
    whole = WholeParagraphs.of([report.whole_paragraphs for report in spool.reports])
    arrays, lengths, parts, too_long = encode_parts(
        tmp, source=source, target=target, max_length=config.max_length, stages=stages, whole=whole
    )
    if config.max_length:
        total.filtered[too_long_reason(config.max_length)] = too_long
        total.pairs -= too_long
        _count_left_out(whole, spool.reports, total)
    if parts["train"]["pairs"] == 0:
        raise MtError(f"{name}: no training pair left with --max-length {config.max_length}")
    _write_tables(
        tmp, english_source=not config.reverse, stages=stages, pairs=parts["train"]["pairs"]
    )
    info = _info(inputs, spool.reports, config, total, held_out=bool(held_out))
    for entry in info["corpora"][real:]:
        entry["synthetic"] = True
    if len(inputs) > real:
        info["synthetic"] = {**placed, "share": config.synthetic_share, "tag": SYNTHETIC_TAG}
    for entry, times in zip(info["corpora"], corpus_repeats, strict=True):
        entry["train_repeats"] = times
    info["counts"] = {**total.counts(), "excluded_from_train": spool.excluded, "parts": parts}
    info["vocabulary"] = vocabulary_info(config, source, target, parts["train"]["pairs"], base)
    info["lengths"], info["token_arrays"] = lengths, arrays
    info.update(extra)
    return info, total


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
        **(REVERSE if config.reverse else FORWARD).to_dict(),
        "corpus": _names(inputs),
        "corpora": [
            {"name": source_input.name, **report.counts()}
            for source_input, report in zip(inputs, reports, strict=True)
        ],
        "seed": config.seed,
        "sampling_temperature": config.sampling_temperature,
        "split": None if held_out else list(config.split),
        "max_selection": None if held_out else config.max_selection,
        "max_test": None if held_out else config.max_test,
        "held_out_files": None,
        "filters": {
            "max_words": config.max_words,
            "max_ratio": config.max_ratio,
            "drop_identical": config.drop_identical,
            "max_length": config.max_length,
            "paragraphs": config.paragraphs,
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
    spool: Path,
    tmp: Path,
    *,
    part: np.ndarray,
    sample: np.ndarray,
    repeats: np.ndarray,
    stages: Stages,
) -> tuple[list[str], list[str]]:
    """The spool cut into the part files, each training pair written `repeats` times (the
    sampling temperature); returns the tokenizer sample's English and Spanish."""
    english: list[str] = []
    spanish: list[str] = []
    files = {
        label: (tmp / PART_FILES[name]).open("w", encoding="utf-8", newline="\n")
        for label, name in enumerate(PARTS)
    }
    try:
        position = 0
        for lines in line_chunks(spool):
            labels = part[position : position + len(lines)].tolist()
            times = repeats[position : position + len(lines)].tolist()
            chosen = np.flatnonzero(sample[position : position + len(lines)]).tolist()
            for label, file in files.items():
                file.write(
                    "".join(
                        line * n
                        for line, p, n in zip(lines, labels, times, strict=True)
                        if p == label
                    )
                )
            for index in chosen:
                en, _, es = lines[index].rstrip("\n").partition("\t")
                english.append(untagged(en))
                spanish.append(es)
            position += len(lines)
            stages.advance(len(lines))
    finally:
        for file in files.values():
            file.close()
    return english, spanish


def _write_tables(tmp: Path, *, english_source: bool, stages: Stages, pairs: int) -> None:
    """lexicon.tsv and words.tsv, counted from the training English; empty for a Spanish source,
    which the names lexicon and the casual-English normaliser know nothing of."""
    if not english_source:
        write_lexicon(tmp / LEXICON, NO_LEXICON)
        write_word_stats(tmp / WORD_STATS, NO_WORD_STATS)
        return
    stages.start("lexicon", pairs)
    write_lexicon(tmp / LEXICON, lexicon_of_part(tmp / PART_FILES["train"], advance=stages.advance))
    write_word_stats(
        tmp / WORD_STATS, word_stats_of_part(tmp / PART_FILES["train"], machine_made=is_synthetic)
    )


def _write_pairs(path: Path, pairs: Sequence[tuple[str, str]]) -> None:
    path.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")


# ----- 3. tokenizers and 4. token arrays ---------------------------------------------------------


def _count_left_out(
    whole: WholeParagraphs, reports: Sequence[CorpusReport], total: CorpusReport
) -> None:
    for index, count in whole.left_out.items():
        reports[index].paragraphs["left_out_too_long"] = count
    if whole.left_out:
        total.paragraphs["left_out_too_long"] = sum(whole.left_out.values())


def _check_direction(base: BaseRun, direction: Direction) -> None:
    """A run's tokenizers serve data of its own direction only (its source tokenizer is the
    source language's)."""
    own = base.info.direction
    if own != direction:
        raise MtError(
            f"--tokenizers-from {base.info.label} translates {own.label}; "
            f"this data is {direction.label}"
            + (" (drop --reverse)" if direction.reverse else " (add --reverse)")
        )


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
