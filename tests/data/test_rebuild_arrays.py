"""The token arrays a pack leaves behind, made again byte for byte, or refused in one line."""

from pathlib import Path

import pytest

from conftest import prepare_tiny
from mt.data.prepare.rebuild import main, rebuild_arrays
from mt.errors import MtError

ARRAYS = ("train.en.ids", "train.en.offsets", "train.es.ids", "train.es.offsets")


def test_arrays_made_again_are_the_prepared_bytes(tmp_path: Path) -> None:
    prepared = prepare_tiny(tmp_path)
    before = {name: (prepared / name).read_bytes() for name in ARRAYS}
    for name in ARRAYS:
        (prepared / name).unlink()
    assert rebuild_arrays(prepared) == sorted(ARRAYS)
    assert {name: (prepared / name).read_bytes() for name in ARRAYS} == before
    assert rebuild_arrays(prepared) == []  # already there: nothing made


def test_other_text_is_refused_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    prepared = prepare_tiny(tmp_path)
    (prepared / "train.en.ids").unlink()
    train = prepared / "train.tsv"
    lines = train.read_text(encoding="utf-8").split("\n")
    lines[0] = "Something else entirely.\t" + lines[0].split("\t")[1]
    train.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(MtError, match=r"train\.en\.ids.* differ from what prepare\.json records"):
        rebuild_arrays(prepared)
    assert not (prepared / "train.en.ids").exists()  # nothing but the prepared arrays moves in
    assert sorted(path.name for path in tmp_path.iterdir()) == ["corpus.tsv", "prepared"]
    assert main([str(prepared)]) == 1
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and error.startswith("error: ")
