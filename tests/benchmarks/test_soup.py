"""benchmarks.quality.soup: branches of one start averaged into a model folder that counts what
every branch cost; branches of different starts are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from benchmarks.quality.soup import main, make_soup
from mt.model.checkpoint import load_tensors, save_tensors


def _branch(folder: Path, value: float, *, start: str = "abc", seconds: float = 3600.0) -> Path:
    folder.mkdir()
    save_tensors(folder / "best.safetensors", {"w": torch.full((2, 3), value)}, metadata={})
    lineage = {"init_from": {"run": "runs/base", "sha256": start}}
    (folder / "train.json").write_text(json.dumps({"lineage": lineage}))
    (folder / "cpu.json").write_text(json.dumps({"seconds": seconds, "scored": 1}))
    (folder / "dev-curve.csv").write_text("utc,step\n")
    (folder / "words.tsv").write_text(f"{value}\n")
    return folder


def test_the_soup_is_the_average_and_counts_every_branch(tmp_path: Path) -> None:
    one = _branch(tmp_path / "one", 1.0, seconds=4811.37)
    two = _branch(tmp_path / "two", 2.0, seconds=4558.57)
    out = make_soup([one, two], tmp_path / "soup")
    weights, _ = load_tensors(out / "best.safetensors")
    assert torch.equal(weights["w"], torch.full((2, 3), 1.5))
    assert json.loads((out / "cpu.json").read_text())["seconds"] == pytest.approx(9369.94)
    assert (out / "words.tsv").read_text() == "2.0\n"  # the last branch's tables
    assert not (out / "dev-curve.csv").exists()  # what that branch alone scored


def test_branches_of_different_starts_are_refused(tmp_path: Path) -> None:
    one = _branch(tmp_path / "one", 1.0)
    two = _branch(tmp_path / "two", 2.0, start="other")
    with pytest.raises(SystemExit, match="do not share a start"):
        make_soup([one, two], tmp_path / "soup")
    assert not (tmp_path / "soup").exists()
    with pytest.raises(SystemExit):  # an existing folder is never written into
        main([str(one), str(one), "--out", str(one)])
