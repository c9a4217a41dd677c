"""mt.export.int8_copy and the engine the commands choose: a shipped model is searched by its
int8 CTranslate2 copy, made once in the user's folder, remade when what it was made from changes
or its files are damaged, and skipped wherever the options ask for PyTorch or the folder can't be
written."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import ship_tiny
from mt.catalog.modelinfo import resolve
from mt.cli.decode_options import default_engine
from mt.config import DecodeConfig
from mt.decode.ct2_engine import ExportedRun
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.errors import MtError
from mt.export.int8_copy import COPY, STAMP, int8_copy, open_with_copy
from mt.export.writer import export_run
from mt.storage.checksums import first_failure, write_checksums
from mt.storage.files import CHECKSUMS

DEFAULTS = {"precision": "auto", "device": "auto", "checkpoint": "best", "compute_type": "default"}
OPTIONS = TranslateOptions(decode=DecodeConfig(beam_size=1))


def truncate_weights(copy: Path) -> None:
    """What a full disk or a killed copy program leaves."""
    weights = copy / "model.bin"
    os.truncate(weights, weights.stat().st_size // 2)


def flip_a_weight(copy: Path) -> None:
    """A byte changed in place, size kept: CTranslate2 loads it and searches with a wrong
    weight; only the checksum sees it."""
    with (copy / "model.bin").open("r+b") as weights:
        weights.seek(-100, os.SEEK_END)
        byte = weights.read(1)
        weights.seek(-100, os.SEEK_END)
        weights.write(bytes([byte[0] ^ 0xFF]))


def garble_config(copy: Path) -> None:
    (copy / "config.json").write_text("{garbled", encoding="utf-8")


def change_a_digest(copy: Path) -> None:
    """A listing that no longer matches its files (the files themselves are whole)."""
    listing = copy / CHECKSUMS
    first, *rest = listing.read_text(encoding="utf-8").splitlines(keepends=True)
    listing.write_text("0" * 64 + first[64:] + "".join(rest), encoding="utf-8")


def unloadable(copy: Path) -> None:
    """A copy whose listing was written again over a garbled file: only CTranslate2 notices."""
    garble_config(copy)
    write_checksums(copy)


DAMAGES: dict[str, Callable[[Path], None]] = {
    "truncated model.bin": truncate_weights,
    "a weight flipped in place": flip_a_weight,
    "garbled config.json": garble_config,
    "a listing that no longer matches": change_a_digest,
    "an emptied listing": lambda copy: (copy / CHECKSUMS).write_text("", encoding="utf-8"),
    "a copy CTranslate2 cannot load": unloadable,
}


@pytest.fixture()
def shipped(tmp_path: Path, trained_run: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return ship_tiny(tmp_path, trained_run, monkeypatch)


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


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_copy_is_made_again_once_with_one_note(
    shipped: Path, damage: str, caplog: pytest.LogCaptureFixture
) -> None:
    info = resolve(None)
    copy = int8_copy(info)
    assert copy is not None and first_failure(copy) is None
    DAMAGES[damage](copy)
    with caplog.at_level(logging.WARNING, logger="mt"):
        engine = default_engine(info, **DEFAULTS)  # where the commands find it
        translator = open_with_copy(info, OPTIONS, device="cpu", copy=engine)
        (translation,) = translator.translate(["Ilse likes bread."])
    assert engine == copy and isinstance(translator.run, ExportedRun) and translation.text
    (record,) = caplog.records
    assert record.name == "mt" and record.levelno == logging.WARNING
    assert record.getMessage().startswith(f"{copy} was damaged (")
    assert "made it again" in record.getMessage()
    assert first_failure(copy) is None
    made = (copy / "model.bin").stat().st_mtime_ns
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="mt"):
        assert int8_copy(info) == copy  # whole now: neither made again nor noted
    assert not caplog.records and (copy / "model.bin").stat().st_mtime_ns == made


@pytest.mark.parametrize("damage", ["truncated model.bin", "a copy CTranslate2 cannot load"])
def test_a_damaged_copy_that_cannot_be_made_again_says_so_and_pytorch_translates(
    shipped: Path, damage: str, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    info = resolve(None)
    copy = int8_copy(info)
    assert copy is not None
    DAMAGES[damage](copy)

    def refused(info: object, out: Path, **options: object) -> str:
        raise PermissionError(13, "Permission denied", str(out))

    monkeypatch.setattr("mt.export.writer.convert_weights", refused)  # a read-only home
    with caplog.at_level(logging.WARNING, logger="mt"):
        engine = default_engine(info, **DEFAULTS)
        translator = open_with_copy(info, OPTIONS, device="cpu", copy=engine)
        (translation,) = translator.translate(["Ilse likes bread."])
    assert not isinstance(translator.run, ExportedRun) and translation.text
    (record,) = caplog.records
    message = record.getMessage()
    assert message.startswith(f"{copy} is damaged (") and "Permission denied" in message
    assert f"make {copy.parent} writable" in message


def test_a_user_s_own_export_is_not_mended_and_its_error_names_it(
    trained_run: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    export = tmp_path / "export"
    export_run(resolve(trained_run), export)
    garble_config(export / "ctranslate2")
    write_checksums(export)  # past the checksums, so CTranslate2 is the one to refuse it
    info = resolve(export)
    with caplog.at_level(logging.WARNING, logger="mt"), pytest.raises(MtError) as raised:
        open_translator(info, OPTIONS, device="cpu")
    assert str(raised.value).startswith(f"{export}: CTranslate2 cannot load it (")
    assert not caplog.records
    assert (export / "ctranslate2" / "config.json").read_text(encoding="utf-8") == "{garbled"


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
