"""A prepared directory read back (mt.storage.files lists what `mt prepare` wrote), for `train`,
`translate` and `evaluate`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mt.catalog.direction import direction_of
from mt.data.readers.corpus import PARTS
from mt.data.tokenarrays import open_column
from mt.data.tokenization import WordPieceCodec
from mt.errors import MtError
from mt.storage.files import (
    PREPARE_JSON,
    PREPARED_FORMAT,
    SOURCE_TOKENIZER,
    TARGET_TOKENIZER,
    check_format,
    read_json,
)

if TYPE_CHECKING:
    from mt.data.feed.batching import EncodedPairs

PART_FILES = {part: f"{part}.tsv" for part in PARTS}
ARRAY_PARTS = ("train", "selection")
SIDES = {"source": "en", "target": "es"}


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
        from mt.data.feed.batching import EncodedPairs  # torch: only training needs it

        entries = self.info["token_arrays"]["parts"][part]
        return EncodedPairs(
            source=open_column(self.root, entries["source"]),
            target=open_column(self.root, entries["target"]),
            max_src_len=max_src_len,
            max_tgt_len=max_tgt_len,
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
        *_translator_rows(counts),
        ("dropped", dropped),
        ("lines cleaned", cleaned or "0"),
        ("filtered", filtered or "0"),
        ("duplicate pairs", f"{counts['duplicates']:,}"),
        ("pairs", f"{counts['pairs']:,}"),
    ]
    if info.get("sampling_temperature", 1.0) > 1:
        repeats = ", ".join(
            f"{Path(c['name']).name} ×{c['train_repeats']}" for c in info["corpora"]
        )
        rows.append((f"training repeats (T={info['sampling_temperature']:g})", repeats))
    direction = direction_of(info)
    src, tgt = direction.source, direction.target
    for part, numbers in counts["parts"].items():
        lengths = info["lengths"][part]
        labels = f"{src} {_stats(lengths['source'])} | {tgt} {_stats(lengths['target'])}"
        english = f"{numbers['pairs']:,} pairs, {numbers['distinct_english']:,} English"
        rows.append((part, f"{english}; labels {labels}"))
    shared = " (shared)" if vocab["shared_vocab"] else ""
    from_run = f", from {vocab['from_run']}" if vocab.get("from_run") else ""
    sizes = f"{src} {vocab['source']:,}, {tgt} {vocab['target']:,}"
    rows.append(("vocabulary", f"{sizes}{shared}{from_run}"))
    if info.get("synthetic"):
        placed = info["synthetic"]
        kept = f"{placed['train']:,} of {placed['read']:,} train (tagged {placed['tag']})"
        over = f"{placed['over_share']:,} over --synthetic-share {placed['share']:g}"
        held = f"{placed['held_out_english']:,} with held-out English"
        rows.append(("synthetic", f"{kept}; {over}, {held}"))
    if info.get("vocabulary_growth"):
        rows.append(("vocabulary grown", growth_text(info["vocabulary_growth"])))
    if info.get("coverage"):
        rows.append(("coverage", coverage_text(info["coverage"])))
    return rows


def growth_text(growth: dict[str, Any]) -> str:
    """The labels `mt prepare --tokenizers-from` appended to each side."""
    sides = []
    for side, language in SIDES.items():
        added = growth[side]
        text = f"{language} +{added['added']}"
        if added["added"]:
            text += f" ({added['placeholders']} placeholders, characters {added['characters']!r})"
        sides.append(text)
    return " | ".join(sides)


def _translator_rows(counts: dict[str, Any]) -> list[tuple[str, str]]:
    """Entries of translator files left out, and paragraphs split, when there were any."""
    rows = []
    if counts.get("skipped"):
        left_out = ", ".join(f"{n:,} {reason}" for reason, n in counts["skipped"].items())
        rows.append(("entries left out", left_out))
    if counts.get("paragraphs"):
        n = Counter(counts["paragraphs"])
        split = f"{n['split']:,} split into {n['sentence_pairs']:,} sentence pairs"
        whole = f"{n['kept_whole']:,} kept whole ({n['left_out_too_long']:,} of them too long)"
        rows.append(("paragraphs", f"{split}, {whole}"))
    return rows


def coverage_text(figures: dict[str, Any]) -> str:
    """Pieces per word and unknown share of each side, the base data's in brackets."""
    sides = []
    for side, language in SIDES.items():
        new = figures["new"][side]
        text = f"{language} {new['pieces_per_word']:.2f} pieces/word"
        if figures.get("base"):
            text += f" (base {figures['base'][side]['pieces_per_word']:.2f})"
        text += f", {new['unknown_share']:.2%} unknown"
        before = figures.get("new_before_growth")
        if before:
            text += (
                f" (before growing {before[side]['pieces_per_word']:.2f}, "
                f"{before[side]['unknown_share']:.2%})"
            )
        sides.append(text)
    return " | ".join(sides)


def _stats(numbers: dict[str, float]) -> str:
    return f"{numbers['mean']:.1f}/{numbers['p95']:.0f}/{numbers['p99']:.0f}/{numbers['max']}"
