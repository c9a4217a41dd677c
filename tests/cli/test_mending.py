"""`mt translate` with the real shipped model, each call a process of its own, after its int8
copy or a derived table in the user's folders was damaged: the translation is printed, the
command exits 0 and says so in one `note:` line naming the file, and the file is whole again;
where it can't be made again, the line says what to do and PyTorch translates."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from mt.catalog.modelinfo import DEFAULT_MODEL
from mt.export.int8_copy import COPY
from mt.storage.checksums import first_failure
from tests.export.test_int8_copy import DAMAGES, truncate_weights

SENTENCE = "Where is the station?"


def translate(user: Path) -> subprocess.CompletedProcess[str]:
    """`mt translate SENTENCE` with `user`'s folder (MT_HOME) and cache (MT_CACHE)."""
    env = {**os.environ, "MT_HOME": str(user / "home"), "MT_CACHE": str(user / "cache")}
    command = [sys.executable, "-m", "mt", "translate", SENTENCE]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def copy_of(user: Path) -> Path:
    return user / "home" / "models" / DEFAULT_MODEL / COPY


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """Folders whose int8 copy and derived tables a first translation made, and what it
    printed."""
    user = tmp_path_factory.mktemp("made")
    first = translate(user)
    assert first.returncode == 0 and first.stdout.strip(), first.stderr
    return user, first.stdout


@pytest.fixture()
def user(made: tuple[Path, str], tmp_path: Path) -> Path:
    """A copy of the made folders for this test to damage."""
    shutil.copytree(made[0], tmp_path / "user")
    return tmp_path / "user"


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_copy_is_made_again_and_the_sentence_translated(
    made: tuple[Path, str], user: Path, damage: str
) -> None:
    copy = copy_of(user)
    DAMAGES[damage](copy)
    done = translate(user)
    assert done.returncode == 0, done.stderr
    assert done.stdout == made[1]
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"note: {copy} was damaged (") and "made it again" in line
    assert first_failure(copy) is None
    again = translate(user)
    assert again.returncode == 0 and again.stdout == made[1] and not again.stderr


@contextlib.contextmanager
def unwritable(folder: Path) -> Iterator[None]:
    """`folder` refuses new entries and renames: mode 555, or for root (whom modes do not stop)
    the immutable attribute; skipped where neither holds."""
    if os.geteuid() != 0:
        folder.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP)
        restore = ["chmod", "u+w", str(folder)]
    elif shutil.which("chattr") and subprocess.run(["chattr", "+i", str(folder)]).returncode == 0:
        restore = ["chattr", "-i", str(folder)]
    else:
        pytest.skip("no way to make a folder read-only here")
    try:
        with contextlib.suppress(OSError):
            (folder / "probe").mkdir()
            (folder / "probe").rmdir()
            pytest.skip(f"{folder} is still writable")
        yield
    finally:
        subprocess.run(restore, check=True)


def test_a_damaged_copy_in_a_read_only_home_says_what_to_do_and_pytorch_translates(
    made: tuple[Path, str], user: Path
) -> None:
    copy = copy_of(user)
    truncate_weights(copy)
    with unwritable(copy.parent):
        done = translate(user)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()  # PyTorch's search of the same weights
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"note: {copy} is damaged (model.bin: checksum mismatch)")
    assert f"make {copy.parent} writable" in line


def test_a_garbled_derived_table_is_derived_again(made: tuple[Path, str], user: Path) -> None:
    (entry,) = (user / "cache" / "derived").glob("lexicon-*.json")
    entry.write_bytes(entry.read_bytes()[:-1000])
    done = translate(user)
    assert done.returncode == 0 and done.stdout == made[1], done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"note: {entry} was damaged (checksum mismatch); derived it again")
    assert translate(user).stderr == ""


def test_four_first_calls_at_once_all_translate_with_one_whole_copy(
    made: tuple[Path, str], tmp_path: Path
) -> None:
    """Each converts in a folder of its own; one that loses the race to rename uses the
    winner's copy, and none leaves a half-made folder behind."""
    env = {**os.environ, "MT_HOME": str(tmp_path / "home"), "MT_CACHE": str(made[0] / "cache")}
    command = [sys.executable, "-m", "mt", "translate", SENTENCE]
    calls = [
        subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        for _ in range(4)
    ]
    for call in calls:
        out, err = call.communicate(timeout=300)
        assert call.returncode == 0 and out == made[1], err
        assert "note:" not in err and "error" not in err
    copy = copy_of(tmp_path)
    assert first_failure(copy) is None
    assert [p.name for p in copy.parent.iterdir()] == [COPY]


def holds_files(folder: Path) -> bool:
    try:
        return any(folder.iterdir())
    except OSError:  # not made yet, or renamed into place already
        return False


def test_a_first_call_killed_while_converting_leaves_no_copy_to_trust(
    made: tuple[Path, str], tmp_path: Path
) -> None:
    env = {**os.environ, "MT_HOME": str(tmp_path / "home"), "MT_CACHE": str(made[0] / "cache")}
    command = [sys.executable, "-m", "mt", "translate", SENTENCE]
    call = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    converting = copy_of(tmp_path).with_name(f".{COPY}.converting-{call.pid}")
    deadline = time.monotonic() + 120
    while not holds_files(converting) and call.poll() is None:
        assert time.monotonic() < deadline, "the conversion never started"
        time.sleep(0.002)
    call.kill()  # while the converter writes its files
    call.wait()
    if copy_of(tmp_path).exists():
        pytest.skip("the copy was finished before the kill landed")
    assert converting.is_dir()  # what the killed call left
    done = translate(tmp_path)
    assert done.returncode == 0 and done.stdout == made[1], done.stderr
    assert "note:" not in done.stderr and first_failure(copy_of(tmp_path)) is None
    assert not converting.exists()  # the next conversion removed it: its process is gone
