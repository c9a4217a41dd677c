"""benchmarks/ and experiments/ as the README says: a few shared files at the root and a folder per
kind of measurement; every benchmark run by a test here and built on the harness; every
experiment naming its decision and the doc that keeps it; and every command or path to them
that the Makefile, the docs, the sources and the tests give exists."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS, EXPERIMENTS = ROOT / "benchmarks", ROOT / "experiments"
HELPERS = {"harness.py", "__init__.py"}
SMOKE_TESTS = "\n".join(path.read_text() for path in Path(__file__).parent.glob("test_*.py"))


def modules(root: Path) -> list[Path]:
    return sorted(path for path in root.rglob("*.py") if path.name not in HELPERS)


def test_the_root_holds_few_files_and_the_benchmarks_are_in_folders() -> None:
    files = [path.name for path in BENCHMARKS.iterdir() if path.is_file()]
    assert len(files) <= 8, files
    assert not [path for path in modules(BENCHMARKS) if path.parent == BENCHMARKS]


@pytest.mark.parametrize("path", modules(BENCHMARKS), ids=lambda path: path.stem)
def test_every_benchmark_is_run_by_a_test_and_built_on_the_harness(path: Path) -> None:
    assert re.search(rf"\b{path.stem}\b", SMOKE_TESTS), f"no test in tests/benchmarks runs {path}"
    text = path.read_text(encoding="utf-8")
    if '__name__ == "__main__"' in text and path.name != "peer_spm.py":  # eole's Python runs it
        assert "harness.parser(__spec__.name, __doc__)" in text and "def main(argv" in text


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts)


COMMANDS = [
    path
    for path in modules(BENCHMARKS)
    if '__name__ == "__main__"' in path.read_text(encoding="utf-8") and path.name != "peer_spm.py"
]


@pytest.mark.parametrize("path", COMMANDS, ids=lambda path: path.stem)
def test_every_benchmark_shows_its_help_as_python_m(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        importlib.import_module(module_name(path)).main(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: python -m {module_name(path)} ")


@pytest.mark.parametrize("path", modules(EXPERIMENTS), ids=lambda path: path.stem)
def test_every_experiment_still_imports(path: Path) -> None:
    """Nothing runs them, so an mt they no longer fit would go unseen until someone does."""
    importlib.import_module(module_name(path))


@pytest.mark.parametrize("path", modules(EXPERIMENTS), ids=lambda path: path.stem)
def test_every_experiment_names_its_decision_and_its_doc(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith('"""Decided '), first
    doc = re.search(r"docs/[\w/-]+\.md", first)
    assert doc and (ROOT / doc.group()).is_file(), first
    assert f"`{path.name}`" in (EXPERIMENTS / "README.md").read_text(encoding="utf-8")


def mentions() -> list[tuple[str, str]]:
    """(file, command or path) for every `python -m benchmarks.X` / `experiments.X` and every
    benchmarks/.../X.py or experiments/X.py that the repository's text names (the shipped
    model's files aside: they record the commands their figures were measured with)."""
    texts = [ROOT / "Makefile", ROOT / "README.md", *ROOT.glob("docs/*.md")]
    for folder in ("src", "tests", "benchmarks", "experiments"):
        texts += [p for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".md")]
    found = []
    for path in texts:
        if "shipped" in path.parts or path.name == "test_harness.py":  # its toy module is made up
            continue
        text = path.read_text(encoding="utf-8")
        name = str(path.relative_to(ROOT))
        modules = r"-m\s+((?:benchmarks|experiments)(?:\.[a-z_]+)+)"  # not .GROUP.NAME
        found += [(name, m) for m in re.findall(modules, text)]
        paths = r"(?<![\w/])(?:benchmarks|experiments)/[a-z_/]+\.(?:py|md)\b"
        found += [(name, m) for m in re.findall(paths, text)]
    return found


def test_every_command_and_path_to_a_benchmark_exists() -> None:
    missing = []
    for name, mention in mentions():
        target = mention if "/" in mention else mention.replace(".", "/") + ".py"
        if not (ROOT / target).exists():
            missing.append(f"{name}: {mention}")
    assert not missing, missing
