"""Every test that may skip is named in docs/code.md with why, and none skips for a missing Python
package: a dependency or dev extra that is not installed fails its tests instead of hiding them."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPS = re.compile(r"pytest\.skip\(|pytest\.mark\.skipif\(|pytest\.mark\.skip\(|importorskip\(")
TEST_FILES = sorted(p for p in (ROOT / "tests").rglob("*.py") if p.name != "test_skips.py")


def skip_section() -> str:
    text = (ROOT / "docs" / "code.md").read_text(encoding="utf-8")
    return text.split("## Tests that may skip", 1)[1].split("\n## ", 1)[0]


def test_every_file_with_a_skip_is_listed_in_docs_code_md() -> None:
    skipping = [p.relative_to(ROOT).as_posix() for p in TEST_FILES if SKIPS.search(p.read_text())]
    assert len(skipping) >= 4  # the pattern still finds the skips docs/code.md lists
    listed = skip_section()
    assert [path for path in skipping if f"`{path}" not in listed] == []


def test_no_test_skips_for_a_missing_package() -> None:
    assert [p.name for p in TEST_FILES if "importorskip(" in p.read_text()] == []


def test_each_listed_test_file_exists() -> None:
    named = re.findall(r"`(tests/[\w/]+\.py)", skip_section())
    assert named and [path for path in named if not (ROOT / path).is_file()] == []
