"""The file layer: JSON written atomically and read back with a clear error, one version check."""

from __future__ import annotations

from pathlib import Path

import pytest

from mt.errors import MtError
from mt.storage.files import check_format, read_json, write_json


def test_json_round_trips_and_keeps_non_ascii_text(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "info.json"
    write_json(path, {"es": "¿Dónde está?", "n": [1, 2.5]})
    assert read_json(path) == {"es": "¿Dónde está?", "n": [1, 2.5]}
    assert "¿Dónde está?" in path.read_text(encoding="utf-8")


def test_unreadable_json_is_one_error_naming_the_file(tmp_path: Path) -> None:
    with pytest.raises(MtError, match=r"missing\.json: file is missing"):
        read_json(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"a": ', encoding="utf-8")
    with pytest.raises(MtError, match=r"broken\.json: not a readable JSON file"):
        read_json(broken)


def test_one_format_check_for_every_kind_of_file() -> None:
    check_format(1, 1, what="x")
    check_format("1", 1, what="weights")  # safetensors metadata holds strings
    with pytest.raises(MtError, match="^m.json: run format version 2, this mt reads version 1; "):
        check_format(2, 1, what="m.json: run", advice="retrain")
    with pytest.raises(MtError, match="format version None"):
        check_format(None, 1, what="p")
