"""README.md and docs/ describe the present (issue 77): the shipped model's name is written once,
in the package (mt.catalog.modelinfo.DEFAULT_MODEL; the Makefile reads it there), so a page outside
docs/history/ that names another `en-es-general-N` is stale; every relative link in README.md and
docs/ (history too) reaches a file; the pages stay short. docs/history/ keeps the record and may
name any version."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from mt.catalog.modelinfo import DEFAULT_MODEL

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
HISTORY = DOCS / "history"
VERSION = re.compile(r"en-es-general-\d+")
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
"""An inline Markdown link or image: [text](target) or [text](target "title")."""
LIMITS = {"README.md": 250}
"""Lines a page may have: README.md 250, every other page outside docs/history/ 400."""


def present_pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(p for p in DOCS.rglob("*.md") if HISTORY not in p.parents)]


def every_page() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


def stale_names(text: str, current: str) -> list[str]:
    """The `en-es-general-N` names in `text` other than `current`."""
    return sorted({name for name in VERSION.findall(text) if name != current})


def broken_links(path: Path) -> list[str]:
    """The relative link targets in the page at `path` that reach no file or folder (a link's
    #anchor and ?query are left aside; web, mail and in-page links are not checked)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    missing = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        relative = re.split(r"[#?]", target, maxsplit=1)[0]
        if relative and not (path.parent / relative).exists():
            missing.append(target)
    return missing


def test_the_shipped_name_is_one_the_package_has() -> None:
    assert VERSION.fullmatch(DEFAULT_MODEL)
    assert (ROOT / "src" / "mt" / "shipped" / DEFAULT_MODEL).is_dir()


@pytest.mark.skipif(shutil.which("make") is None, reason="make test runs under make")
def test_the_makefile_reads_the_shipped_name_from_the_package() -> None:
    printed = subprocess.run(
        ["make", "--no-print-directory", "--eval",
         "print-shipped: ; @echo $(GPU_BASE) $(RELEASE_NAME) $(EVERYDAY_RUNS)", "print-shipped"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
    ).stdout  # fmt: skip
    assert printed.split() == [DEFAULT_MODEL] * 3


@pytest.mark.parametrize("path", present_pages(), ids=page_id)
def test_no_present_page_names_another_version(path: Path) -> None:
    stale = stale_names(path.read_text(encoding="utf-8"), DEFAULT_MODEL)
    assert not stale, f"{page_id(path)} names {stale}; the shipped model is {DEFAULT_MODEL}"


@pytest.mark.parametrize("path", every_page(), ids=page_id)
def test_every_relative_link_reaches_a_file(path: Path) -> None:
    assert not broken_links(path), f"{page_id(path)}: links to missing {broken_links(path)}"


@pytest.mark.parametrize("path", present_pages(), ids=page_id)
def test_a_present_page_stays_short(path: Path) -> None:
    limit = LIMITS.get(page_id(path), 400)
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= limit, (
        f"{page_id(path)}: {lines} lines (at most {limit}; the record goes to docs/history/)"
    )


def test_the_checks_catch_a_stale_name_and_a_broken_link(tmp_path: Path) -> None:
    assert stale_names("en-es-general-7 then en-es-general-12", "en-es-general-12") == [
        "en-es-general-7"
    ]
    assert stale_names("en-es-general-12 only", "en-es-general-12") == []
    (tmp_path / "there.md").write_text("here\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](there.md#part) [gone](missing.md) ![img](gone.png) [web](https://x.org/a.md) "
        "[here](#top) [mail](mailto:a@b.c)\n```\n[in code](nothing.md)\n```\n",
        encoding="utf-8",
    )
    assert broken_links(page) == ["missing.md", "gone.png"]
