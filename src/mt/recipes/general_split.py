"""Our split of the shared general-domain parallel sets by document into train, dev (every choice)
and test (scored once), for `make model` and `make bench-general`.

A document is a block of BLOCK consecutive lines in TICO-19 (which names none) and a context
paragraph with its questions in XQuAD; FLORES dev is test only. An absent set is left out.

    part = test if bucket < TEST_PERCENT, dev if bucket < TEST_PERCENT + DEV_PERCENT, else train
    bucket = int(sha1(("mt-general:" + set + ":" + document).encode()).hexdigest(), 16) % 100

    python -m mt.recipes.general_split --general ../shared/data/general --out bench/general
"""

from __future__ import annotations

import argparse
import csv
import hashlib
from pathlib import Path

from mt.recipes.domain_split import DomainPair, Parts, write_parts

BLOCK = 20
TEST_PERCENT = 40
DEV_PERCENT = 20
SALT = "mt-general:"
SETS = ("tico", "xquad", "flores")
FILES = {"tico": "tico19.tsv", "xquad": "xquad.tsv", "flores": "flores-dev.tsv"}


def part_of(name: str, document: str) -> str:
    bucket = int(hashlib.sha1(f"{SALT}{name}:{document}".encode()).hexdigest(), 16) % 100
    if bucket < TEST_PERCENT:
        return "test"
    return "dev" if bucket < TEST_PERCENT + DEV_PERCENT else "train"


def _rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def tico(root: Path) -> list[DomainPair]:
    rows = _rows(root / "tico19.tsv")
    return [DomainPair(en, es, str(index // BLOCK)) for index, (en, es) in enumerate(rows)]


def xquad(root: Path) -> list[DomainPair]:
    pairs, context = [], -1
    for english, spanish, kind in _rows(root / "xquad.tsv"):
        context += kind == "context"
        pairs.append(DomainPair(english, spanish, str(context)))
    return pairs


def flores(root: Path) -> list[DomainPair]:
    rows = _rows(root / "flores-dev.tsv")
    return [DomainPair(english.strip(), spanish.strip(), "flores") for english, spanish in rows]


def split_parts(name: str, root: Path) -> Parts:
    """The train, dev and test pairs of one general set."""
    if name == "flores":
        return Parts([], [], flores(root))
    parts = Parts([], [], [])
    for pair in {"tico": tico, "xquad": xquad}[name](root):
        getattr(parts, part_of(name, pair.document)).append(pair)
    return parts


def pairs_of(root: Path, name: str, part: str) -> list[tuple[str, str]]:
    """The (english, spanish) pairs of one set's part, for the benchmarks."""
    return [(pair.english, pair.spanish) for pair in getattr(split_parts(name, root), part)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--general", type=Path, default=Path("../shared/data/general"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    present = [name for name in SETS if (args.general / FILES[name]).is_file()]
    if not present:
        raise SystemExit(f"{args.general}: the shared general data is absent (see ../shared)")
    for name in SETS:
        if name in present:
            print(write_parts(args.out, name, split_parts(name, args.general)))
        else:  # a set `mt download --recipe` cannot rebuild, and nobody brought
            print(f"{name}: {args.general / FILES[name]} is absent: left out")


if __name__ == "__main__":
    main()
