"""Three of the four domains of ../shared/data/domains from their downloads, as its README says
they were made (LibreOffice help is mt.data.sources.libreoffice): python-docs-es's `.po` files
and tldr's pages (both languages) byte for byte, held-out ones skipped; news as the five WMT
development sets concatenated in order into `news-dev.en` and `news-dev.es`.
"""

from __future__ import annotations

import tarfile
from collections.abc import Sequence
from pathlib import Path

from mt.data.sources.archives import extract_files, tar_files
from mt.data.sources.heldout import held_out

PYTHON_DOCS = "domains/python-docs-es"
TLDR = "domains/tldr"
TLDR_FOLDERS = {"pages": "en", "pages.es": "es"}
NEWS = "domains/news"
NEWS_SETS = ("news-test2008", "newssyscomb2009", "newstest2009", "newstest2010", "newstest2011")
"""The development sets in the order of news-dev.en (newstest2012 is held out whole)."""


def python_docs(downloads: Sequence[Path], root: Path) -> None:
    (archive,) = downloads

    def select(name: str) -> str | None:
        keep = name.endswith(".po") and not held_out(name)
        return f"{PYTHON_DOCS}/{name}" if keep else None

    extract_files(archive, select, root)


def tldr(downloads: Sequence[Path], root: Path) -> None:
    (archive,) = downloads
    pages: dict[tuple[str, str], bytes] = {}  # (language, platform/page.md) -> content
    with tarfile.open(archive) as opened:
        for name, content in tar_files(opened):
            folder, _, page = name.partition("/")
            if folder in TLDR_FOLDERS and _is_page(page) and not held_out(_page_name(page)):
                pages[(TLDR_FOLDERS[folder], page)] = content
    for language, page in pages:
        if ("en", page) in pages and ("es", page) in pages:
            path = root / TLDR / language / page
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pages[(language, page)])


def _is_page(page: str) -> bool:
    return page.count("/") == 1 and page.endswith(".md")


def _page_name(page: str) -> str:
    """`common/tar.md` -> `tar`: the key every platform's page of one command shares."""
    return page.rpartition("/")[2].removesuffix(".md")


def news_files() -> list[str]:
    """The downloads' names: English then Spanish of each set, in order."""
    return [f"{name}.{side}" for name in NEWS_SETS for side in ("eng", "spa")]


def news(downloads: Sequence[Path], root: Path) -> None:
    (root / NEWS).mkdir(parents=True, exist_ok=True)
    for suffix, side in (("en", "eng"), ("es", "spa")):
        with open(root / NEWS / f"news-dev.{suffix}", "wb") as out:
            for path in downloads:
                if path.name.endswith(f".{side}"):
                    out.write(path.read_bytes())
