"""mt.catalog.modelinfo: every model reference resolved in one place, and the shipped model found by
name.

The shipped model itself is tested in test_shipped.py; here a tiny run is shipped into a folder
of the test's own, so each bad case (unknown name, damaged file, older format) can be made.
"""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from mt.catalog.modelinfo import (
    DEFAULT_MODEL,
    ModelInfo,
    describe,
    local_models,
    read_model_config,
    resolve,
)
from mt.errors import MtError
from mt.model.ship import ship_run
from mt.storage.checksums import write_checksums

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "mt"
READERS = {"mt.catalog.modelinfo"}
"""The one module that reads model.json and train.json."""
CONFIG_READERS = {"read_model_config", "read_train_config", "read_lineage"}
RESUMING = {"mt.train.launch"}
"""`mt train --resume` reads its own unfinished run (no weights yet)."""


@pytest.fixture()
def shipped(tmp_path: Path, trained_run: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny run shipped as the default model in a folder of this test's own."""
    root = tmp_path / "shipped"
    folder = ship_run(trained_run, DEFAULT_MODEL, root=root)
    # as on a user's machine: the data it was trained on is not there
    train = json.loads((folder / "train.json").read_text(encoding="utf-8"))
    (folder / "train.json").write_text(json.dumps({**train, "prepared": str(tmp_path / "gone")}))
    write_checksums(folder)
    monkeypatch.setattr("mt.catalog.modelinfo.shipped_root", lambda: root)
    monkeypatch.setenv("MT_HOME", str(tmp_path / "home"))
    return root / DEFAULT_MODEL


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_module_but_mt_models_reads_model_or_train_json() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "mt.catalog.modelinfo":
                names = {alias.name for alias in node.names} & CONFIG_READERS
                if names and module not in RESUMING | READERS:
                    offenders.append(f"{module}:{node.lineno} imports {sorted(names)}")
            if isinstance(node, ast.Call) and module not in READERS:
                text = ast.unparse(node)
                called = ast.unparse(node.func).split(".")[-1]
                named = any(name in text for name in ("MODEL_JSON", "TRAIN_JSON", "model.json"))
                if called in {"read_json", "read_text", "open", "loads"} and (
                    named or "train.json" in text
                ):
                    offenders.append(f"{module}:{node.lineno} reads {text}")
    assert offenders == []


def test_none_is_the_shipped_default_and_a_name_finds_it(shipped: Path) -> None:
    default = resolve(None)
    assert default.name == DEFAULT_MODEL and default.directory == shipped
    assert default.kind == "run" and default.read_only
    assert resolve(DEFAULT_MODEL) == default
    with pytest.raises(TypeError, match="resolved already"):
        resolve(default)  # type: ignore[arg-type]


def test_a_directory_is_a_run_or_an_export(trained_run: Path) -> None:
    info = resolve(trained_run)
    assert isinstance(info, ModelInfo) and info.kind == "run" and info.name is None
    assert info.label == str(trained_run) and not info.read_only
    assert info.max_src_len == info.train.max_src_len
    assert describe(trained_run) == info


def test_an_unknown_name_lists_the_known_ones(shipped: Path) -> None:
    with pytest.raises(MtError, match=f"no such model: not a model name \\(known: {DEFAULT_MODEL}"):
        resolve("en-es-general-99")


def test_a_sentence_is_never_a_model(shipped: Path, tmp_path: Path, monkeypatch) -> None:
    """`mt translate`'s arguments are text: even one that names a model directory."""
    from conftest import cli_output

    shutil.copytree(shipped, tmp_path / "Hello")
    monkeypatch.chdir(tmp_path)
    out = cli_output("translate", "Hello", "--device", "cpu", "--beam-size", "1")
    assert "as text with the shipped model" in out


def test_a_damaged_shipped_file_is_one_line_that_says_how_to_restore_it(shipped: Path) -> None:
    weights = shipped / "best.safetensors"
    weights.write_bytes(weights.read_bytes()[:1000])
    with pytest.raises(MtError) as caught:
        resolve(None)
    message = str(caught.value)
    assert "checksum mismatch" in message and "reinstall mt" in message
    assert "\n" not in message


def test_a_missing_shipped_file_says_how_to_restore_it(shipped: Path) -> None:
    (shipped / "source-tokenizer.json").unlink()
    with pytest.raises(MtError, match="is incomplete: missing source-tokenizer.json; reinstall"):
        resolve(DEFAULT_MODEL)


def test_an_older_run_is_refused_in_one_line(trained_run: Path, tmp_path: Path) -> None:
    old = Path(shutil.copytree(trained_run, tmp_path / "old"))
    data = json.loads((old / "model.json").read_text(encoding="utf-8"))
    (old / "model.json").write_text(json.dumps({**data, "format_version": 1}))
    with pytest.raises(MtError, match="format version 1, this mt reads version 2; use the mt"):
        resolve(old)


def test_a_file_is_not_a_model(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hi")
    with pytest.raises(MtError, match="is a file, not a model"):
        resolve(tmp_path / "notes.txt")


def test_local_models_lists_the_runs_that_open(trained_run: Path, tmp_path: Path) -> None:
    shutil.copytree(trained_run, tmp_path / "a-run")
    (tmp_path / "empty").mkdir()
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "model.json").write_text("{")
    assert [info.directory.name for info in local_models(tmp_path)] == ["a-run"]


def test_shipped_weights_are_bfloat16_and_translate_as_the_run(
    shipped: Path, trained_run: Path
) -> None:
    from mt.config import DecodeConfig
    from mt.decode.options import TranslateOptions
    from mt.decode.translator import open_translator
    from mt.model.checkpoint import load_tensors

    tensors, _ = load_tensors(shipped / "best.safetensors")
    assert {str(t.dtype) for t in tensors.values() if t.is_floating_point()} == {"torch.bfloat16"}
    options = TranslateOptions(decode=DecodeConfig(beam_size=1))
    sentences = ["Ilse likes bread.", "Where is the museum?"]
    ours = [
        t.text for t in open_translator(resolve(None), options, device="cpu").translate(sentences)
    ]
    theirs = [
        t.text
        for t in open_translator(resolve(trained_run), options, device="cpu").translate(sentences)
    ]
    assert all(ours) and len(ours) == len(theirs)


def test_calibrating_a_shipped_model_writes_into_the_users_folder(
    shipped: Path, tmp_path: Path
) -> None:
    info = resolve(None)
    own = tmp_path / "home" / "models" / DEFAULT_MODEL
    assert info.writable_directory == own and info.calibration_directory == shipped
    own.mkdir(parents=True)
    (own / "calibration.json").write_text("{}")
    assert info.calibration_directory == own


def test_every_command_takes_the_shipped_model_by_default(shipped: Path, tmp_path: Path) -> None:
    from conftest import cli_output, run_cli

    said = run_cli("translate", "Ilse likes bread.", "--device", "cpu", "-b", "1")
    assert said.stdout.strip() and "note:" not in said.output
    piped = run_cli("translate", "--device", "cpu", "-b", "1", stdin=b"Hello.\nThank you.\n")
    assert len(piped.stdout.splitlines()) == 2
    (tmp_path / "page.html").write_text("<p>Ilse likes <b>bread</b>.</p>\n")
    run_cli("translate", "-i", tmp_path / "page.html", "-o", tmp_path / "page.es.html", "-b", "1")
    assert "<b>" in (tmp_path / "page.es.html").read_text()
    (tmp_path / "set.tsv").write_text("Ilse likes bread.\tA Ilse le gusta el pan.\n" * 3)
    assert "BLEU" in cli_output("evaluate", "--tsv", tmp_path / "set.tsv", "-b", "1")
    cli_output("export", "--out", tmp_path / "export", "--quantization", "float32")
    assert resolve(tmp_path / "export").kind == "export"
    assert DEFAULT_MODEL in cli_output("models", "--under", tmp_path)


def test_the_shipped_default_has_no_data_to_score_or_calibrate_on(shipped: Path) -> None:
    from conftest import run_cli

    said = run_cli("evaluate", "-b", "1", code=2).stderr
    assert "not installed with it: score a file with --tsv" in said
    said = run_cli("calibrate", code=2).stderr
    assert "give a prepared directory with --data" in said


def test_a_damaged_shipped_model_is_one_line_from_the_command(shipped: Path) -> None:
    from conftest import run_cli

    weights = shipped / "best.safetensors"
    weights.write_bytes(weights.read_bytes()[:-10])
    lines = run_cli("translate", "Hello.", code=2).stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "reinstall mt" in lines[0]


def test_unequal_stacks_round_trip_through_model_json(tmp_path: Path) -> None:
    from mt.catalog.modelinfo import read_model_config, write_configs
    from mt.config import ModelConfig, TrainConfig

    deep = ModelConfig(src_vocab=30, tgt_vocab=40, encoder_layers=3, decoder_layers=1)
    write_configs(tmp_path, deep, TrainConfig(), prepared=tmp_path / "data")
    stored = json.loads((tmp_path / "model.json").read_text(encoding="utf-8"))["model"]
    assert (stored["layers"], stored["encoder_layers"], stored["decoder_layers"]) == (3, 3, 1)
    read = read_model_config(tmp_path)
    assert read == deep and (read.encoder_depth, read.decoder_depth) == (3, 1)


def test_a_model_json_from_before_the_stack_depths_opens_as_equal_stacks(tmp_path: Path) -> None:
    """Versions 1 to 12 wrote only `layers` (2): such a model.json opens as 2+2, unchanged."""
    shipped = json.loads((resolve().directory / "model.json").read_text(encoding="utf-8"))
    old = {k: v for k, v in shipped["model"].items() if not k.endswith("coder_layers")}
    (tmp_path / "model.json").write_text(json.dumps({**shipped, "model": {**old, "layers": 2}}))
    config = read_model_config(tmp_path)
    assert (config.encoder_depth, config.decoder_depth) == (2, 2)
    assert config.to_dict() == {**old, "layers": 2}
