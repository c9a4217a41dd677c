"""The wheel a user installs: built from this checkout, installed into a fresh virtual environment
and used from outside the source tree, it carries the shipped model and translates through the
library and the command.

The fresh environment borrows the test environment's dependencies (torch alone is gigabytes to
install) through a .pth line; mt itself can then only come from the wheel: the checkout's
editable install is a finder that the borrowed folder does not activate, as the test checks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow

USE = """
import mt, sys
print(mt.__file__)
print(mt.translate("Where is the train station?"))
print(mt.load().translate(["Good morning.", "Thank you very much."]))
try:
    mt.load("no-such-model")
except mt.Error as error:
    print("error:", error)
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fresh environment's folder, with the wheel built from ROOT installed."""
    root = tmp_path_factory.mktemp("wheel")
    source = _checkout_copy(root / "source")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(source), "--no-deps", "--no-build-isolation",
         "--quiet", "--disable-pip-version-check", "--wheel-dir", str(root / "dist")],
        check=True, cwd=root,
    )  # fmt: skip
    (wheel,) = (root / "dist").glob("mt-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "borrowed_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "--no-deps", "--no-index", "--quiet",
         "--disable-pip-version-check", str(wheel)],
        check=True,
    )  # fmt: skip
    return venv


def _checkout_copy(folder: Path) -> Path:
    """The checkout's files as git sees them (tracked, and new ones not ignored): a build there
    leaves nothing in the checkout, and no earlier build's leftovers (build/) get into the wheel."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, folder / name)
    return folder


def _run(venv: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "MT_HOME": str(cwd / "home"), "PYTHONPATH": ""}
    return subprocess.run(
        [str(venv / "bin" / args[0]), *args[1:]],
        capture_output=True, text=True, cwd=cwd, env=env, timeout=300,
    )  # fmt: skip


def test_the_installed_wheel_translates_through_the_library(installed: Path, tmp_path: Path):
    done = _run(installed, "python", "-c", USE, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    where, one, many, error = done.stdout.splitlines()
    assert Path(where).is_relative_to(installed) and not Path(where).is_relative_to(ROOT / "src")
    assert one.startswith("¿") and one.endswith("?")
    assert many.startswith("['") and many.count("', '") == 1
    assert error.startswith("error: model no-such-model: no such model")


def test_the_installed_wheel_carries_the_model_and_the_command(installed: Path, tmp_path: Path):
    done = _run(installed, "mt", "translate", "Where is the train station?", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().startswith("¿")
    typed = next(installed.glob("lib/python3*/site-packages/mt/py.typed"))
    assert typed.is_file()
