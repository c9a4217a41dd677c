"""A large synthetic English-Spanish corpus made from the real one, to measure how `mt` scales.

    python -m benchmarks.scale.synthetic_corpus --corpus ../shared/data/spa-eng.tsv --pairs 16M \
        --out bench/scale/synthetic-16M.tsv [--seed 0] [--parallel]

Each pair joins 2 or 3 randomly drawn corpus pairs (English with " ", Spanish likewise), so the
sentences look like real text, only longer. Index tuples are drawn with NumPy and repeats dropped,
so all pairs are distinct; the same seed gives the same file. Written as a TSV, or with --parallel
as line-aligned PATH.en and PATH.es (corpus.tsv.gz -> corpus.tsv.en.gz, corpus.tsv.es.gz); a .gz
or .zst suffix compresses. Files appear whole (temporary name, then rename), so a cached corpus is
never half-written. Derived from the corpus: keep it out of git (bench/ is ignored).
"""

from __future__ import annotations

import gzip
import os
import sys
import time
from pathlib import Path
from typing import BinaryIO

import numpy as np
import zstandard

from benchmarks import harness

BLOCK = 200_000
"""Pairs joined and written at once: big enough for fast writes, small enough for little memory."""

COMPRESSED = (".gz", ".zst")
_UNITS = {"k": 1_000, "m": 1_000_000, "g": 1_000_000_000}


def parse_count(text: str) -> int:
    """'20k', '1M', '16M' or '5000' as a number of pairs."""
    text = text.strip().lower()
    unit = _UNITS.get(text[-1:], 1)
    number = float(text[:-1] if unit > 1 else text)
    if number <= 0 or number * unit != int(number * unit):
        raise ValueError(f"not a positive whole number of pairs: {text!r}")
    return int(number * unit)


def read_pairs(corpus: Path) -> tuple[np.ndarray, np.ndarray]:
    """The corpus' distinct (English, Spanish) pairs as two object arrays; lines without a tab
    are left out (mt prepare reports those for the real corpus)."""
    pairs: dict[tuple[str, str], None] = {}
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\r\n").split("\t")
            if len(fields) >= 2 and fields[0].strip() and fields[1].strip():
                pairs[fields[0].strip(), fields[1].strip()] = None
    english = np.array([en for en, _ in pairs], dtype=object)
    spanish = np.array([es for _, es in pairs], dtype=object)
    return english, spanish


def draw_tuples(*, pairs: int, corpus_size: int, seed: int) -> np.ndarray:
    """(pairs, 3) distinct corpus indices in draw order; -1 in the last column for a 2-pair join."""
    if corpus_size >= 2_000_000:  # the key below would overflow int64
        raise ValueError(f"corpus of {corpus_size:,} pairs: at most 2,000,000 are supported")
    rng = np.random.default_rng(seed)
    chosen = np.empty((0, 3), dtype=np.int64)
    while len(chosen) < pairs:
        missing = pairs - len(chosen)
        drawn = rng.integers(0, corpus_size, size=(missing + missing // 100 + 16, 3))
        drawn[rng.random(len(drawn)) < 0.5, 2] = -1
        chosen = np.concatenate([chosen, drawn])
        keys = (chosen[:, 0] * corpus_size + chosen[:, 1]) * (corpus_size + 1) + chosen[:, 2] + 1
        _, first = np.unique(keys, return_index=True)
        chosen = chosen[np.sort(first)]  # the first of each repeat, in draw order
    return chosen[:pairs]


def join(texts: np.ndarray, tuples: np.ndarray) -> np.ndarray:
    """The texts of each index tuple joined with spaces (object array: NumPy loops in C)."""
    joined = texts[tuples[:, 0]] + " " + texts[tuples[:, 1]]
    three = tuples[:, 2] >= 0
    joined[three] = joined[three] + " " + texts[tuples[three, 2]]
    return joined


def open_output(path: Path, *, named: Path) -> BinaryIO:
    """A binary writer to `path`, compressing if the final name `named` ends in .gz or .zst (fast
    levels: this is a benchmark input, not an archive)."""
    if named.name.endswith(".gz"):
        return gzip.open(path, "wb", compresslevel=1)
    if named.name.endswith(".zst"):
        return zstandard.ZstdCompressor(level=3).stream_writer(path.open("wb"), closefd=True)
    return path.open("wb")


def parallel_paths(out: Path) -> tuple[Path, Path]:
    """PATH.en and PATH.es, the compression suffix kept last so tools still recognise it."""
    suffix = next((s for s in COMPRESSED if out.name.endswith(s)), "")
    stem = out.name[: len(out.name) - len(suffix)]
    return out.with_name(f"{stem}.en{suffix}"), out.with_name(f"{stem}.es{suffix}")


def output_paths(out: Path, *, parallel: bool) -> tuple[Path, ...]:
    return parallel_paths(out) if parallel else (out,)


def write_synthetic(
    *, corpus: Path, pairs: int, out: Path, seed: int = 0, parallel: bool = False
) -> tuple[Path, ...]:
    """Write the synthetic corpus; returns the files written."""
    english, spanish = read_pairs(corpus)
    tuples = draw_tuples(pairs=pairs, corpus_size=len(english), seed=seed)
    paths = output_paths(out, parallel=parallel)
    partial = [path.with_name(path.name + ".partial") for path in paths]
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
    writers = [open_output(temp, named=path) for temp, path in zip(partial, paths, strict=True)]
    try:
        for start in range(0, pairs, BLOCK):
            block = tuples[start : start + BLOCK]
            en, es = join(english, block), join(spanish, block)
            columns = [en + "\n", es + "\n"] if parallel else [en + "\t" + es + "\n"]
            for writer, lines in zip(writers, columns, strict=True):
                writer.write("".join(lines.tolist()).encode("utf-8"))
    finally:
        for writer in writers:
            writer.close()
    for temporary, path in zip(partial, paths, strict=True):
        os.replace(temporary, path)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    parser.add_argument("--corpus", type=Path, required=True, help="english<TAB>spanish TSV")
    parser.add_argument("--pairs", type=parse_count, required=True, help="e.g. 50k, 1M, 16M")
    parser.add_argument("--out", type=Path, required=True, help=".tsv, optionally .gz or .zst")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--parallel", action="store_true", help="write PATH.en and PATH.es")
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        raise SystemExit(f"{args.corpus}: no such corpus file (make corpus fetches it)")
    started = time.perf_counter()
    paths = write_synthetic(
        corpus=args.corpus, pairs=args.pairs, out=args.out, seed=args.seed, parallel=args.parallel
    )
    seconds = time.perf_counter() - started
    size = sum(path.stat().st_size for path in paths) / 2**20
    names = ", ".join(str(path) for path in paths)
    print(f"{args.pairs:,} pairs in {seconds:.1f} s ({size:,.1f} MiB): {names}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
