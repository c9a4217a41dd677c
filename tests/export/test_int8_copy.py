"""mt.export.int8_copy and the engine the commands choose: a shipped model is searched by its
int8 CTranslate2 copy, made once in the user's folder, remade when what it was made from changes,
and skipped wherever the options ask for PyTorch or the folder can't be written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mt.checksums import write_checksums
from mt.cli.decode_options import default_engine
from mt.config import DecodeConfig
from mt.decode.ct2_engine import ExportedRun
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.export.int8_copy import COPY, STAMP, int8_copy
from mt.model.ship import ship_run
from mt.modelinfo import DEFAULT_MODEL, resolve

DEFAULTS = {"precision": "auto", "device": "auto", "checkpoint": "best", "compute_type": "default"}


@pytest.fixture()
def shipped(tmp_path: Path, trained_run: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny run shipped as the default model, with a user folder of this test's own."""
    root = tmp_path / "shipped"
    ship_run(trained_run, DEFAULT_MODEL, root=root)
    monkeypatch.setattr("mt.modelinfo.shipped_root", lambda: root)
    monkeypatch.setenv("MT_HOME", str(tmp_path / "home"))
    return root / DEFAULT_MODEL


def test_the_copy_is_made_once_and_searched_like_an_export(shipped: Path) -> None:
    info = resolve(None)
    copy = int8_copy(info)
    assert copy == info.writable_directory / COPY and (copy / "model.bin").is_file()
    made = (copy / "model.bin").stat().st_mtime_ns
    assert int8_copy(info) == copy and (copy / "model.bin").stat().st_mtime_ns == made
    options = TranslateOptions(decode=DecodeConfig(beam_size=1))
    translator = open_translator(info, options, device="cpu", ct2_model=copy)
    assert isinstance(translator.run, ExportedRun) and translator.run.info == info
    (translation,) = translator.translate(["Ilse likes bread."])
    assert translation.text and translation.confidence is not None


def test_a_changed_model_remakes_the_copy(shipped: Path) -> None:
    copy = int8_copy(resolve(None))
    stamp = json.loads((copy / STAMP).read_text(encoding="utf-8"))
    (shipped / "card.json").write_text('{"name": "changed"}', encoding="utf-8")
    write_checksums(shipped)  # a reinstalled model of the same name
    assert int8_copy(resolve(None)) == copy
    assert json.loads((copy / STAMP).read_text(encoding="utf-8")) != stamp


def test_options_that_ask_for_pytorch_or_a_run_get_no_copy(
    shipped: Path, trained_run: Path
) -> None:
    info = resolve(None)
    assert default_engine(info, **DEFAULTS) == info.writable_directory / COPY
    for option, value in [("precision", "fp32"), ("checkpoint", "last"), ("compute_type", "int16")]:
        assert default_engine(info, **{**DEFAULTS, option: value}) is None
    assert default_engine(resolve(trained_run), **DEFAULTS) is None


def test_a_home_that_cannot_be_written_falls_back_to_pytorch(
    shipped: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MT_HOME", str(blocker / "home"))
    assert int8_copy(resolve(None)) is None
    assert default_engine(resolve(None), **DEFAULTS) is None


def test_mt_translate_with_the_shipped_model_does_not_import_torch() -> None:
    """The real shipped model: after its copy is made, a translation imports no torch and no
    numpy (0.15 s of a cold call: ids travel as lists), and plain output no language
    classifier."""
    sentence = "The committee approved the report on Tuesday."  # the language check would ask
    command = [sys.executable, "-X", "importtime", "-m", "mt", "translate", sentence]
    first = subprocess.run(command, capture_output=True, text=True, timeout=300, env=os.environ)
    assert first.returncode == 0, first.stderr
    again = subprocess.run(command, capture_output=True, text=True, timeout=120, env=os.environ)
    assert again.returncode == 0 and again.stdout.strip() == first.stdout.strip()
    imported = _imported(again.stderr)
    assert "ctranslate2" in imported and "torch" not in imported
    assert "numpy" not in imported
    casual = subprocess.run(
        [*command[:-1], "where is teh train station"],
        capture_output=True, text=True, timeout=120, env=os.environ,
    )  # fmt: skip
    assert casual.returncode == 0 and casual.stdout.strip().startswith("¿")
    assert "numpy" not in _imported(casual.stderr)
    assert "py3langid" not in imported, "plain output shows no flags: no language classifier"


def _imported(importtime: str) -> set[str]:
    """The modules `python -X importtime` listed on stderr."""
    return {line.rsplit("|", 1)[-1].strip() for line in importtime.splitlines()}
