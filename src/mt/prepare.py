"""`mt prepare`: corpus file -> a prepared directory (cleaned parts, tokenizers, prepare.json).

The directory is built under a temporary sibling name and renamed into place, so an interrupted
run never leaves a half-prepared directory behind. `load_prepared` is how `train`, `translate` and
`evaluate` read it back.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mt.atomic import check_replaceable, replace_directory
from mt.corpus import (
    DEFAULT_SEED,
    DEFAULT_SPLIT,
    PARTS,
    BadLine,
    Corpus,
    Split,
    read_corpus,
    split_by_files,
    split_corpus,
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
from mt.tokenization import WordPieceCodec

DEFAULT_SRC_VOCAB = 4562
DEFAULT_TGT_VOCAB = 6134
PART_FILES = {part: f"{part}.tsv" for part in PARTS}
_EXAMPLES = 20  # bad lines quoted in prepare.json


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


@dataclass(frozen=True)
class PrepareResult:
    out: Path
    info: dict[str, Any]
    bad_lines: list[BadLine]


def prepare_corpus(
    corpus: Path,
    *,
    out: Path,
    fractions: tuple[float, float, float] = DEFAULT_SPLIT,
    seed: int = DEFAULT_SEED,
    selection: Path | None = None,
    test: Path | None = None,
    src_vocab: int = DEFAULT_SRC_VOCAB,
    tgt_vocab: int = DEFAULT_TGT_VOCAB,
    shared_vocab: int = 0,
    strict: bool = False,
    force: bool = False,
) -> PrepareResult:
    """Clean and split `corpus`, train tokenizers on the training part, write `out`."""
    started = time.perf_counter()
    _check_out(out, force=force)
    for name, size in (("--src-vocab", src_vocab), ("--tgt-vocab", tgt_vocab)):
        if size <= 4 and not shared_vocab:
            raise MtError(f"{name} must be more than 4, got {size}")
    if shared_vocab < 0 or 0 < shared_vocab <= 4:
        raise MtError(f"--shared-vocab must be more than 4 (or 0 for none), got {shared_vocab}")
    data = read_corpus(corpus, strict=strict)
    split = _split(data, fractions=fractions, seed=seed, selection=selection, test=test)
    train_en = [en for en, _ in split.train]
    train_es = [es for _, es in split.train]
    if shared_vocab:
        source = target = WordPieceCodec.train(train_en + train_es, shared_vocab)
    else:
        source = WordPieceCodec.train(train_en, src_vocab)
        target = WordPieceCodec.train(train_es, tgt_vocab)
    info: dict[str, Any] = {
        "format_version": PREPARED_FORMAT,
        "corpus": str(corpus),
        "seed": seed,
        "split": None if selection else list(fractions),
        "held_out_files": {"selection": str(selection), "test": str(test)} if selection else None,
        "counts": {
            **data.report.counts(),
            "excluded_from_train": split.excluded,
            "parts": {
                part: {"pairs": len(pairs), "distinct_english": len({en for en, _ in pairs})}
                for part, pairs in split.parts().items()
            },
        },
        "bad_line_examples": [str(bad) for bad in data.report.bad_lines[:_EXAMPLES]],
        "vocabulary": {
            "shared_vocab": bool(shared_vocab),
            "requested_source": shared_vocab or src_vocab,
            "requested_target": shared_vocab or tgt_vocab,
            "source": source.vocab_size,
            "target": target.vocab_size,
        },
        "lengths": _lengths(split, source=source, target=target),
    }
    info["elapsed_seconds"] = round(time.perf_counter() - started, 2)
    _write_dir(out, split=split, source=source, target=target, info=info, force=force)
    return PrepareResult(out=out, info=info, bad_lines=data.report.bad_lines)


def _split(
    data: Corpus,
    *,
    fractions: tuple[float, float, float],
    seed: int,
    selection: Path | None,
    test: Path | None,
) -> Split:
    if (selection is None) != (test is None):
        raise MtError("give both --selection and --test, or neither")
    if selection is None or test is None:
        return split_corpus(data, fractions=fractions, seed=seed)
    return split_by_files(
        data,
        selection=read_corpus(selection, strict=True),
        test=read_corpus(test, strict=True),
    )


def _lengths(
    split: Split, *, source: WordPieceCodec, target: WordPieceCodec
) -> dict[str, dict[str, dict[str, float]]]:
    """Word-pieces per sentence (no BOS/EOS), per part and side."""
    lengths: dict[str, dict[str, dict[str, float]]] = {}
    for part, pairs in split.parts().items():
        lengths[part] = {}
        for side, codec, column in (("source", source, 0), ("target", target, 1)):
            ids = codec.encode_batch([pair[column] for pair in pairs])
            counts = np.array([len(sentence) for sentence in ids])
            lengths[part][side] = {
                "mean": round(float(counts.mean()), 2),
                "p95": float(np.percentile(counts, 95)),
                "p99": float(np.percentile(counts, 99)),
                "max": int(counts.max()),
            }
    return lengths


def _check_out(out: Path, *, force: bool) -> None:
    check_replaceable(
        out,
        force=force,
        is_ours=lambda directory: (directory / PREPARE_JSON).is_file(),
        refusal=f"is not a prepared directory (no {PREPARE_JSON}); refusing to replace it",
    )


def _write_dir(
    out: Path,
    *,
    split: Split,
    source: WordPieceCodec,
    target: WordPieceCodec,
    info: dict[str, Any],
    force: bool,
) -> None:
    tmp = out.with_name(f".{out.name}.preparing-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp.mkdir()
        for part, pairs in split.parts().items():
            text = "".join(f"{en}\t{es}\n" for en, es in pairs)
            (tmp / PART_FILES[part]).write_text(text, encoding="utf-8")
        source.save(tmp / SOURCE_TOKENIZER)
        target.save(tmp / TARGET_TOKENIZER)
        write_json(tmp / PREPARE_JSON, info)
        _check_out(out, force=force)  # another run may have created it meanwhile
        replace_directory(tmp, out)
    except OSError as error:
        shutil.rmtree(tmp, ignore_errors=True)
        raise MtError(f"cannot write {out}: {error}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


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
    dropped = ", ".join(f"{n} {reason}" for reason, n in counts["dropped"].items()) or "0"
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
