"""mt.recipes.domain_split: three parts by document (train, dev, test), disjoint, the same on
every run, and a test part that is the two-part split's (so earlier test figures stay comparable).
Built on a small invented copy of the shared domain data's layout."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from mt.recipes import domain_split

PAGES = [f"text/page{i}.html" for i in range(120)]


@pytest.fixture
def domains(tmp_path: Path) -> Path:
    root = tmp_path / "domains"
    for i in range(60):
        po = root / "python-docs-es" / "library" / f"mod{i}.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        po.write_text(
            f'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
            f'msgid "Module {i} reads files."\nmsgstr "El módulo {i} lee archivos."\n\n'
            f'msgid "It returns {i}."\nmsgstr "Devuelve {i}."\n',
            encoding="utf-8",
        )
    for i in range(80):
        for language, words in (("en", "List files"), ("es", "Lista archivos")):
            page = root / "tldr" / language / "common" / f"cmd{i}.md"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"# cmd{i}\n\n> {words} {i}.\n\n- {words}:\n\n`cmd{i} -l`\n")
    help_dir = root / "libreoffice-help"
    help_dir.mkdir(parents=True)
    rows = [f"Click {i}.\tHaga clic {i}.\t{page}\n" for i, page in enumerate(PAGES * 2)]
    (help_dir / "pairs.tsv").write_text("".join(rows), encoding="utf-8")
    tagged = [f"Click <b>{i}</b>.\tHaga clic <b>{i}</b>.\t{page}\n" for i, page in enumerate(PAGES)]
    (help_dir / "tagged.tsv").write_text("".join(tagged), encoding="utf-8")
    (root / "news").mkdir()
    for language in ("en", "es"):
        lines = "".join(f"{language} news line {n}.\n" for n in range(10_570))
        (root / "news" / f"news-dev.{language}").write_text(lines)
    return root


@pytest.mark.parametrize("domain", domain_split.DOMAINS)
def test_three_parts_by_document_disjoint_and_all_used(domains: Path, domain: str) -> None:
    parts = domain_split.split_parts(domain, domains)
    documents = [{pair.document for pair in part} for part in parts]
    assert all(documents), f"{domain}: an empty part {[len(d) for d in documents]}"
    train, dev, test = documents
    assert not (train & dev or train & test or dev & test)
    plain = [p for p in parts.train if "<b>" not in p.english] + parts.dev + parts.test
    assert len({(p.english, p.document) for p in plain}) == len(plain)


def test_the_test_part_is_the_two_part_splits_and_dev_comes_from_training(domains: Path) -> None:
    for domain in ("python-docs", "tldr", "libreoffice"):
        parts = domain_split.split_parts(domain, domains)
        assert all(domain_split.is_test(pair.document) for pair in parts.test)
        assert not any(domain_split.is_test(pair.document) for pair in parts.train + parts.dev)
    news = domain_split.split_parts("news", domains)
    assert {p.document for p in news.test} == {domain_split.NEWS_TEST_SET}
    assert {p.document for p in news.dev} == {domain_split.NEWS_DEV_SET}
    assert len(news.train) == 10_570 - 502 - 2_051
    # tagged rows only with training pages: a dev or test page's markup is not trained on
    libreoffice = domain_split.split_parts("libreoffice", domains)
    tagged = [pair for pair in libreoffice.train if "<b>" in pair.english]
    assert tagged and all(domain_split.part_of(pair.document) == "train" for pair in tagged)
    assert domain_split.split_domain("tldr", domains) == (
        domain_split.split_parts("tldr", domains).train,
        domain_split.split_parts("tldr", domains).test,
    )


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
