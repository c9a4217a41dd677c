"""Shared fixtures: a small invented English-Spanish corpus built from templates.

Nothing here comes from the real corpus; the sentences are generated so that tests can train
tokenizers, split by English sentence and check several translations of one sentence.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

NAMES = [(name, name) for name in ("Ilse", "Bruno", "Nadia", "Oskar", "Wanda", "Teodor")]
FOODS = [
    ("bread", "el pan"),
    ("cheese", "el queso"),
    ("soup", "la sopa"),
    ("rice", "el arroz"),
    ("coffee", "el café"),
    ("fruit", "la fruta"),
]
PLACES = [
    ("station", "la estación"),
    ("museum", "el museo"),
    ("bakery", "la panadería"),
    ("library", "la biblioteca"),
    ("bridge", "el puente"),
    ("harbour", "el puerto"),
]
THINGS = [("books", "libros"), ("cats", "gatos"), ("lamps", "lámparas"), ("keys", "llaves")]
COLOURS = [("red", "rojo"), ("green", "verde"), ("blue", "azul")]
ITEMS = [("hat", "sombrero"), ("car", "coche"), ("kite", "cometa")]


def invented_pairs() -> list[tuple[str, str]]:
    """About 400 pairs; "Where is the X, N?" and the thanks have two or three translations."""
    pairs: list[tuple[str, str]] = []
    for (name, nombre), (food, comida) in itertools.product(NAMES, FOODS):
        pairs.append((f"{name} likes {food}.", f"A {nombre} le gusta {comida}."))
        pairs.append((f"Does {name} want {food}?", f"¿{nombre} quiere {comida}?"))
    for place, lugar in PLACES:
        for name, nombre in NAMES:
            pairs.append((f"Where is the {place}, {name}?", f"¿Dónde está {lugar}, {nombre}?"))
            pairs.append((f"Where is the {place}, {name}?", f"¿Dónde queda {lugar}, {nombre}?"))
            pairs.append((f"{name} is near the {place}.", f"{nombre} está cerca de {lugar}."))
            pairs.append((f"Is {name} at the {place}?", f"¿Está {nombre} en {lugar}?"))
    for count, (thing, cosa) in itertools.product(range(2, 14), THINGS):
        pairs.append((f"I have {count} {thing}.", f"Tengo {count} {cosa}."))
    for hour, minutes in itertools.product(range(1, 13), ("15", "30", "45")):
        pairs.append((f"It's {hour}:{minutes} already.", f"Ya son las {hour}:{minutes}."))
    for (name, nombre), (item, objeto), (colour, color) in itertools.product(NAMES, ITEMS, COLOURS):
        pairs.append((f"{name}'s {item} is {colour}.", f"El {objeto} de {nombre} es {color}."))
    for name, nombre in NAMES:
        pairs.append((f'"Hello", said {name}.', f'"Hola", dijo {nombre}.'))
        pairs.append((f"Thank you, {name}!", f"¡Gracias, {nombre}!"))
        pairs.append((f"Thank you, {name}!", f"¡Muchas gracias, {nombre}!"))
        pairs.append((f"Thank you, {name}!", f"¡Te lo agradezco, {nombre}!"))
        pairs.append((f"How good, {name}!", f"¡Qué bien, {nombre}!"))
    return pairs


def write_corpus(path: Path, pairs: list[tuple[str, str]] | None = None) -> Path:
    """Write `pairs` (default: the invented corpus) as an english<TAB>spanish file."""
    rows = invented_pairs() if pairs is None else pairs
    path.write_text("".join(f"{en}\t{es}\n" for en, es in rows), encoding="utf-8")
    return path


def prepare_tiny(root: Path) -> Path:
    """The invented corpus prepared with small vocabularies into root/prepared."""
    from mt.config import PrepareConfig
    from mt.data.prepare.pipeline import prepare_corpus

    out = root / "prepared"
    config = PrepareConfig(src_vocab=150, tgt_vocab=180)
    prepare_corpus(write_corpus(root / "corpus.tsv"), out=out, config=config)
    return out


def run_cli(*args: str | Path, code: int = 0, stdin: bytes | None = None) -> Result:
    """`mt ARGS` in this process: the exit code must be `code`, no traceback may reach the user."""
    from mt.cli.app import app

    result = CliRunner().invoke(app, [str(arg) for arg in args], input=stdin)
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result


def cli_output(*args: str | Path, code: int = 0) -> str:
    """What `mt ARGS` printed (stdout and stderr), after run_cli's checks."""
    return run_cli(*args, code=code).output


@pytest.fixture
def corpus_file(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus.tsv")


@pytest.fixture(autouse=True, scope="session")
def one_thread():
    """Tiny models: one torch thread is faster than two waiting for each other, and float sums
    then come out the same on every machine."""
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture
def torch_threads():
    """For a test that runs a benchmark, which sets torch's threads for its engines (--threads):
    the tests after it keep one_thread's one thread."""
    import torch

    threads = torch.get_num_threads()
    yield
    torch.set_num_threads(threads)


@pytest.fixture(autouse=True, scope="session")
def user_folders(tmp_path_factory: pytest.TempPathFactory):
    """The shipped model's int8 copy, user calibrations (MT_HOME) and derived tables (MT_CACHE)
    go to folders of this session, not the user's (subprocesses inherit the variables)."""
    from mt.storage.derived import CACHE_ENV

    names = {"MT_HOME": "home", CACHE_ENV: "cache"}
    previous = {name: os.environ.get(name) for name in names}
    for name, folder in names.items():
        os.environ[name] = str(tmp_path_factory.mktemp(folder))
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@pytest.fixture(autouse=True, scope="session")
def precision_cache(tmp_path_factory: pytest.TempPathFactory):
    """`--precision auto` probes write their verdicts here, not into the user's cache, so every
    test session measures afresh (subprocesses inherit the variable)."""
    from mt.model.precision import CACHE_ENV

    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("precision") / "precision.json")
    yield
    if previous is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = previous


@pytest.fixture(autouse=True, scope="session")
def quiet_machine():
    """Probes cache their verdicts as on a quiet machine, however busy the test machine is
    (mt.model.precision.busy_machine has its own test)."""
    from mt.model import precision

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(precision, "busy_machine", lambda: "")
        yield


@pytest.fixture(scope="session")
def trained_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny prepared corpus and a thesis-small run trained on it for a few dozen steps."""
    return tiny_run(tmp_path_factory.mktemp("trained"), steps=60)


def tiny_run(root: Path, *, steps: int) -> Path:
    """The invented corpus prepared in `root`, and a thesis-small run trained on it for `steps`
    steps (evaluated three times), on one CPU thread."""
    corpus = write_corpus(root / "corpus.tsv")
    data, run = root / "data", root / "run"
    run_cli("prepare", corpus, "--out", data, "--src-vocab", "150", "--tgt-vocab", "180")
    run_cli(
        "train", data, "--out", run, "--preset", "thesis-small", "--lr", "0.05",
        "--warmup", "30", "--batch-size", "32", "--max-steps", str(steps),
        "--eval-every", str(steps // 3), "--threads", "1", "--device", "cpu",
    )  # fmt: skip
    return run


LEGACY = Path(__file__).parent / "fixtures" / "legacy"
"""A prepared directory, a run and an export written by an older mt (its README says how), the
run and export since rewritten in today's format; the tests change copies only."""


def legacy_copy(tmp_path: Path, name: str = "run", *, prepared: Path) -> Path:
    """A copy of the legacy run or export (`name`), whose train.json names `prepared` (an
    export's checksums then listed again); its lexicon.tsv and words.tsv are empty."""
    from mt.storage.checksums import write_checksums

    copy = tmp_path / name
    shutil.copytree(LEGACY / name, copy)
    data = json.loads((copy / "train.json").read_text())
    data["prepared"] = str(prepared)
    (copy / "train.json").write_text(json.dumps(data))
    if (copy / "checksums.sha256").exists():
        write_checksums(copy)
    return copy


@functools.cache
def legacy_models() -> Path:
    """A folder holding the legacy run and export, their training data gone (as on every machine
    but the one that made them): a tiny model without placeholder tokens for the tests that
    translate with one. Made once a test session, removed at its end."""
    root = Path(tempfile.mkdtemp(prefix="mt-legacy-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for name in ("run", "export"):
        legacy_copy(root, name, prepared=root / "gone")
    return root


def ship_tiny(tmp_path: Path, trained_run: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny run shipped as the default model, with a user folder (MT_HOME) of the test's
    own: where a test needs the int8 copy or the shipped model's paths without the real one."""
    from mt.catalog.modelinfo import DEFAULT_MODEL
    from mt.model.ship import ship_run

    root = tmp_path / "shipped"
    ship_run(trained_run, DEFAULT_MODEL, root=root)
    monkeypatch.setattr("mt.catalog.modelinfo.shipped_root", lambda: root)
    monkeypatch.setenv("MT_HOME", str(tmp_path / "home"))
    return root / DEFAULT_MODEL
