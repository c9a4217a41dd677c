"""mt.storage.derived: a table's derivation kept in the user's cache, read back rather than derived
again, and derived again with one note when its entry is damaged."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mt.storage.derived import CACHE_ENV, derived


@pytest.fixture()
def table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A small table, with a cache of this test's own."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    path = tmp_path / "words.tsv"
    path.write_text("".join(f"word{i}\t{i}\n" for i in range(200)), encoding="utf-8")
    return path


def counts(table: Path, built: list[int]) -> dict[str, int]:
    """The table's counts through the cache; `built` gets a 1 each time they are derived."""

    def build() -> dict[str, int]:
        built.append(1)
        rows = (line.split("\t") for line in table.read_text(encoding="utf-8").splitlines())
        return {word: int(count) for word, count in rows}

    return derived(
        table,
        kind="counts",
        code=(sys.modules[__name__],),
        build=build,
        encode=lambda found: sorted(found.items()),
        decode=lambda data: {word: count for word, count in data},
    )


def entry(tmp_path: Path) -> Path:
    (path,) = (tmp_path / "cache" / "derived").glob("counts-*.json")
    return path


def cut_short(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-40])


def still_json(path: Path) -> None:
    """A count changed: the entry still parses, and would decode, to the wrong table."""
    path.write_bytes(path.read_bytes().replace(b'["word7", 7]', b'["word7", 8]'))


def without_header(path: Path) -> None:
    path.write_bytes(path.read_bytes().partition(b"\n")[2])


DAMAGES: dict[str, Callable[[Path], None]] = {
    "cut short": cut_short,
    "a count changed, still JSON": still_json,
    "no header": without_header,
}


def test_an_entry_is_read_back_without_deriving_again(table: Path) -> None:
    built: list[int] = []
    fresh = counts(table, built)
    assert counts(table, built) == fresh and len(built) == 1


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_entry_is_derived_again_with_one_note(
    table: Path, tmp_path: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    built: list[int] = []
    fresh = counts(table, built)
    path = entry(tmp_path)
    DAMAGES[damage](path)
    with caplog.at_level(logging.WARNING, logger="mt"):
        assert counts(table, built) == fresh and len(built) == 2
    (record,) = caplog.records
    assert record.name == "mt"
    assert record.getMessage().startswith(f"{path} was damaged (")
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mt"):
        assert counts(table, built) == fresh and len(built) == 2  # whole again: read back
    assert not caplog.records


@contextlib.contextmanager
def refused_writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A cache that can't be written (mt's tests run as root, where chmod refuses nothing)."""

    @contextlib.contextmanager
    def refused(path: Path, *, text: bool = False) -> Iterator[None]:
        raise PermissionError(13, "Permission denied", str(path))
        yield

    with monkeypatch.context() as patch:
        patch.setattr("mt.storage.derived.atomic_output", refused)
        yield


def test_a_damaged_entry_that_cannot_be_rewritten_says_so_and_is_still_derived(
    table: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    fresh = counts(table, built)
    path = entry(tmp_path)
    still_json(path)
    with refused_writes(monkeypatch), caplog.at_level(logging.WARNING, logger="mt"):
        assert counts(table, built) == fresh
    (record,) = caplog.records
    message = record.getMessage()
    assert message.startswith(f"{path} is damaged (checksum mismatch) and cannot be rewritten")
    assert "Permission denied" in message and f"make {path.parent} writable" in message


def test_a_cache_that_cannot_be_written_costs_the_derivation_quietly(
    table: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    built: list[int] = []
    with refused_writes(monkeypatch), caplog.at_level(logging.WARNING, logger="mt"):
        first = counts(table, built)
        assert counts(table, built) == first and len(built) == 2
    assert not caplog.records
