"""Our split of the shared development data by document into train (to fine-tune on), dev (every
choice) and test (scored once), for the domain benchmarks and `make model`.

The sources' held-out documents are never used; their development part is split again by
document, with salts of our own:

    test = int(sha1(("mt-bench:" + key).encode()).hexdigest(), 16) % 100 < TEST_PERCENT
    dev = not test and int(sha1(("mt-dev:" + key).encode()).hexdigest(), 16) % 100 < DEV_PERCENT

A document is a .po file (python-docs), a page name across platforms (tldr), a help page
(libreoffice) or a WMT test set (news: newssyscomb2009 test, news-test2008 dev).

    python -m mt.recipes.domain_split --domains ../shared/data/domains --out bench/domains

writes {train,dev,test}/<domain>.tsv (english<TAB>spanish); an absent domain is left out.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import polib

TEST_PERCENT = 15
SALT = "mt-bench:"
DEV_PERCENT = 15
"""Of the documents that are not test: about 12.75% of all, as many pairs as the test part."""
DEV_SALT = "mt-dev:"
DOMAINS = ("python-docs", "tldr", "libreoffice", "news")
NEWS_SETS = (  # (name, first line, last line) in news-dev.en/.es, from the data's README
    ("news-test2008", 1, 2051),
    ("newssyscomb2009", 2052, 2553),
    ("newstest2009", 2554, 5078),
    ("newstest2010", 5079, 7567),
    ("newstest2011", 7568, 10570),
)
NEWS_TEST_SET = "newssyscomb2009"
NEWS_DEV_SET = "news-test2008"


@dataclass(frozen=True)
class DomainPair:
    english: str
    spanish: str
    document: str


class Parts(NamedTuple):
    """One domain's pairs, by document: no document is in two parts."""

    train: list[DomainPair]
    dev: list[DomainPair]
    test: list[DomainPair]


def _bucket(salt: str, key: str) -> int:
    return int(hashlib.sha1((salt + key).encode("utf-8")).hexdigest(), 16) % 100


def is_test(key: str) -> bool:
    return _bucket(SALT, key) < TEST_PERCENT


def part_of(key: str) -> str:
    """The part a document key falls in: "train", "dev" or "test" (news goes by its sets)."""
    if is_test(key):
        return "test"
    return "dev" if _bucket(DEV_SALT, key) < DEV_PERCENT else "train"


def python_docs(root: Path) -> list[DomainPair]:
    pairs = []
    base = root / "python-docs-es"
    for path in sorted(base.rglob("*.po")):
        key = path.relative_to(base).as_posix()
        for entry in polib.pofile(str(path), wrapwidth=0):
            if entry.obsolete or entry.fuzzy or not entry.msgstr.strip():
                continue
            pairs.append(DomainPair(entry.msgid, entry.msgstr, key))
    return pairs


def tldr(root: Path) -> list[DomainPair]:
    pairs = []
    for english_page in sorted((root / "tldr" / "en").rglob("*.md")):
        relative = english_page.relative_to(root / "tldr" / "en")
        spanish_page = root / "tldr" / "es" / relative
        if not spanish_page.is_file():
            continue
        english = english_page.read_text(encoding="utf-8").splitlines()
        spanish = spanish_page.read_text(encoding="utf-8").splitlines()
        if len(english) != len(spanish):
            continue
        key = english_page.stem
        for source, target in zip(english, spanish, strict=True):
            source, target = tldr_text(source), tldr_text(target)
            if source and target:
                pairs.append(DomainPair(source, target, key))
    return pairs


def tldr_text(line: str) -> str:
    if line.startswith(("> ", "- ")):
        return line[2:].strip()
    if line.startswith("`") and line.endswith("`") and len(line) > 1:
        return line[1:-1].strip()
    return ""


def libreoffice(root: Path, *, tagged: bool = False) -> list[DomainPair]:
    name = "tagged.tsv" if tagged else "pairs.tsv"
    with open(root / "libreoffice-help" / name, encoding="utf-8", newline="") as handle:
        rows = csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [DomainPair(english, spanish, page) for english, spanish, page in rows]


def news(root: Path) -> list[DomainPair]:
    english = (root / "news" / "news-dev.en").read_text(encoding="utf-8").split("\n")
    spanish = (root / "news" / "news-dev.es").read_text(encoding="utf-8").split("\n")
    pairs = []
    for name, first, last in NEWS_SETS:
        for index in range(first - 1, last):
            pairs.append(DomainPair(english[index].strip(), spanish[index].strip(), name))
    return pairs


def split_parts(domain: str, root: Path) -> Parts:
    """The train, dev and test pairs of one domain."""
    if domain == "news":
        sets = {NEWS_TEST_SET: "test", NEWS_DEV_SET: "dev"}
        pairs, part = news(root), lambda document: sets.get(document, "train")
    else:
        readers = {"python-docs": python_docs, "tldr": tldr, "libreoffice": libreoffice}
        pairs, part = readers[domain](root), part_of
    parts = Parts([], [], [])
    for pair in pairs:
        getattr(parts, part(pair.document)).append(pair)
    if domain == "libreoffice":
        tagged = libreoffice(root, tagged=True)
        parts.train.extend(pair for pair in tagged if part_of(pair.document) == "train")
    return parts


def test_pairs(root: Path, domain: str) -> list[tuple[str, str]]:
    """The (english, spanish) pairs of one domain's test part, for the benchmarks."""
    return [(pair.english, pair.spanish) for pair in split_parts(domain, root).test]


def dev_pairs(root: Path, domain: str) -> list[tuple[str, str]]:
    """The (english, spanish) pairs of one domain's development part: choices are made here."""
    return [(pair.english, pair.spanish) for pair in split_parts(domain, root).dev]


def write_pairs(path: Path, pairs: list[DomainPair]) -> None:
    """english<TAB>spanish lines; a pair holding a tab or a line break inside is left out."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for pair in pairs:
            fields = (pair.english, pair.spanish)
            if not any(mark in field for field in fields for mark in "\t\n\r"):
                handle.write(f"{pair.english}\t{pair.spanish}\n")


def write_parts(out: Path, name: str, parts: Parts) -> str:
    """out/<part>/<name>.tsv for each part that has pairs; the counts, as one line to print."""
    counts = []
    for part, pairs in parts._asdict().items():
        if pairs:
            write_pairs(out / part / f"{name}.tsv", pairs)
        documents = len({pair.document for pair in pairs})
        counts.append(f"{part} {len(pairs)} pairs in {documents} documents")
    return f"{name}: {', '.join(counts)}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--domains", type=Path, default=Path("../shared/data/domains"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    if not args.domains.is_dir():
        raise SystemExit(f"{args.domains}: the shared domain data is absent (see ../shared)")
    for domain in DOMAINS:
        missing = [path for path in domain_files(domain, args.domains) if not path.exists()]
        if missing:
            print(f"{domain}: {missing[0]} is absent: left out")
        else:
            print(write_parts(args.out, domain, split_parts(domain, args.domains)))


def domain_files(domain: str, root: Path) -> list[Path]:
    """What one domain's reader needs under the domains folder."""
    return {
        "python-docs": [root / "python-docs-es"],
        "tldr": [root / "tldr" / "en", root / "tldr" / "es"],
        "libreoffice": [root / "libreoffice-help" / name for name in ("pairs.tsv", "tagged.tsv")],
        "news": [root / "news" / name for name in ("news-dev.en", "news-dev.es")],
    }[domain]


if __name__ == "__main__":
    main()
