"""mt.recipes.domain_split: three parts by document (train, dev, test), disjoint, the same on
every run, and a test part that is the two-part split's (so earlier test figures stay comparable).
Built on a small invented copy of the shared domain data's layout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mt.recipes import domain_split
from tests.bench_support import NEWS_LINES, tiny_domains

MARKUP = 'class="menuitem"'  # what the tiny libreoffice-help's tagged rows hold


@pytest.fixture
def domains() -> Path:
    return tiny_domains()  # read only: each test writes under its own tmp_path


@pytest.mark.parametrize("domain", domain_split.DOMAINS)
def test_three_parts_by_document_disjoint_and_all_used(domains: Path, domain: str) -> None:
    parts = domain_split.split_parts(domain, domains)
    documents = [{pair.document for pair in part} for part in parts]
    assert all(documents), f"{domain}: an empty part {[len(d) for d in documents]}"
    train, dev, test = documents
    assert not (train & dev or train & test or dev & test)
    plain = [p for p in parts.train if MARKUP not in p.english] + parts.dev + parts.test
    assert len({(p.english, p.document) for p in plain}) == len(plain)


def test_the_test_part_is_the_two_part_splits_and_dev_comes_from_training(domains: Path) -> None:
    for domain in ("python-docs", "tldr", "libreoffice"):
        parts = domain_split.split_parts(domain, domains)
        assert all(domain_split.is_test(pair.document) for pair in parts.test)
        assert not any(domain_split.is_test(pair.document) for pair in parts.train + parts.dev)
    news = domain_split.split_parts("news", domains)
    assert {p.document for p in news.test} == {domain_split.NEWS_TEST_SET}
    assert {p.document for p in news.dev} == {domain_split.NEWS_DEV_SET}
    assert len(news.train) == NEWS_LINES - 502 - 2_051
    # tagged rows only with training pages: a dev or test page's markup is not trained on
    libreoffice = domain_split.split_parts("libreoffice", domains)
    tagged = [pair for pair in libreoffice.train if MARKUP in pair.english]
    assert tagged and all(domain_split.part_of(pair.document) == "train" for pair in tagged)


def test_the_split_written_twice_is_byte_for_byte_the_same(domains: Path, tmp_path: Path) -> None:
    outputs = []
    for run in ("a", "b"):
        out = tmp_path / run
        subprocess.run(
            [sys.executable, "-m", "mt.recipes.domain_split", "--domains", str(domains),
             "--out", str(out)],
            check=True, capture_output=True, cwd=tmp_path,
        )  # fmt: skip
        outputs.append({p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*.tsv"))})
    assert outputs[0] == outputs[1]
    assert {str(path) for path in outputs[0]} == {
        f"{part}/{domain}.tsv"
        for part in ("train", "dev", "test")
        for domain in domain_split.DOMAINS
    }
