"""`mt backtranslate` with a command as the engine: sentences, filters, exactly-once resume after
SIGKILL, and every bad input as one clear line with nothing written lost."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mt.decode.backtranslate import SIDECAR_SUFFIX, SentenceFilters, backtranslate
from mt.decode.line_engines import CommandEngine
from mt.errors import MtError
from tests.conftest import cli_output

UPPER = "sed s/a/A/g"  # the "translation": every a made A


def spanish(count: int) -> list[str]:
    """`count` different Spanish sentences that py3langid calls Spanish."""
    return [
        f"El niño número {i} come pan con su familia en la casa grande del pueblo."
        for i in range(count)
    ]


def write_doc_file(path: Path, sentences: list[str], *, per_paragraph: int = 3) -> Path:
    lines = [
        f"doc{i}\t{' '.join(sentences[i : i + per_paragraph])}\n"
        for i in range(0, len(sentences), per_paragraph)
    ]
    path.write_text("".join(lines), encoding="utf-8")
    return path


def pairs_of(path: Path) -> list[tuple[str, str]]:
    return [tuple(line.split("\t")) for line in path.read_text(encoding="utf-8").splitlines()]


def test_paragraphs_are_split_filtered_deduplicated_and_translated(tmp_path: Path) -> None:
    sentences = spanish(6)
    text = (
        f"d1\t{sentences[0]} {sentences[1]} Sí.\n"  # "Sí." is too short
        f"d1\t{sentences[0]}\n"  # a duplicate
        "d2\tThe weather is very nice today and we are going to the beach.\n"  # English
        "\n"
    )
    plain = tmp_path / "mono.tsv"
    plain.write_text(text, encoding="utf-8")
    zipped = tmp_path / "more.gz"
    zipped.write_bytes(gzip.compress("\n".join(sentences[2:]).encode() + b"\n"))
    out = tmp_path / "bt.tsv"
    result = backtranslate([plain, zipped], out=out, engine=CommandEngine(UPPER), search={})
    assert pairs_of(out) == [(s.replace("a", "A"), s) for s in sentences]
    assert result.dropped == {"short": 1, "long": 0, "not_spanish": 1, "duplicate": 1}
    assert json.loads((tmp_path / f"bt.tsv{SIDECAR_SUFFIX}").read_text())["complete"] is True


def test_the_pairs_are_what_prepare_reads(tmp_path: Path) -> None:
    mono = write_doc_file(tmp_path / "mono.tsv", spanish(40))
    out = tmp_path / "bt.tsv"
    cli_output("backtranslate", "--engine", UPPER, mono, "--out", out, "--chunk", "7")
    assert len(pairs_of(out)) == 40
    assert all(en == es.replace("a", "A") for en, es in pairs_of(out))


def test_a_finished_file_is_left_as_it_is(tmp_path: Path) -> None:
    """The same command again is a no-op: the engine is not even started."""
    mono = write_doc_file(tmp_path / "mono.tsv", spanish(10))
    out, starts = tmp_path / "bt.tsv", tmp_path / "starts"
    engine = f"sh -c 'echo start >> {starts}; tr a-z A-Z'"
    for _ in range(2):
        cli_output("backtranslate", "--engine", engine, mono, "--out", out, "--chunk", "3")
    assert len(pairs_of(out)) == 10
    assert starts.read_text().count("start") == 1


def test_a_half_written_last_line_is_cut_and_redone(tmp_path: Path) -> None:
    mono = write_doc_file(tmp_path / "mono.tsv", spanish(20))
    whole, out = tmp_path / "whole.tsv", tmp_path / "bt.tsv"
    backtranslate([mono], out=whole, engine=CommandEngine(UPPER), search={}, chunk=4)
    lines = whole.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:9]) + lines[9][:10])  # killed inside line 10
    (tmp_path / f"bt.tsv{SIDECAR_SUFFIX}").write_bytes(
        (tmp_path / f"whole.tsv{SIDECAR_SUFFIX}").read_bytes()
    )
    result = backtranslate([mono], out=out, engine=CommandEngine(UPPER), search={}, chunk=4)
    assert result.resumed == 9
    assert out.read_bytes() == whole.read_bytes()


def test_resume_after_sigkill_gives_every_sentence_exactly_once(tmp_path: Path) -> None:
    """A real `mt backtranslate` process killed with SIGKILL mid-run, then the same command."""
    mono = write_doc_file(tmp_path / "mono.tsv", spanish(60))
    engine = (
        'sh -c \'while IFS= read -r l; do sleep 0.05; printf "%s\\n" "$l" | sed s/a/A/g; done\''
    )
    out = tmp_path / "bt.tsv"
    command = [sys.executable, "-m", "mt", "backtranslate", "--engine", engine, str(mono)]
    command += ["--out", str(out), "--chunk", "4", "--no-language-check"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while (not out.exists() or out.read_bytes().count(b"\n") < 8) and time.monotonic() < deadline:
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    written = out.read_bytes().count(b"\n")
    assert 8 <= written < 60, "killed before the end"
    subprocess.run(command, check=True, capture_output=True)
    expected = [(s.replace("a", "A"), s) for s in spanish(60)]
    assert pairs_of(out) == expected


def test_other_options_never_append_to_a_file(tmp_path: Path) -> None:
    mono = write_doc_file(tmp_path / "mono.tsv", spanish(5))
    out = tmp_path / "bt.tsv"
    cli_output("backtranslate", "--engine", UPPER, mono, "--out", out)
    before = out.read_bytes()
    message = cli_output("backtranslate", "--engine", "cat", mono, "--out", out, code=2)
    assert "other engine" in message
    other = tmp_path / "other.tsv"
    other.write_text("mine\tmío\n")
    message = cli_output("backtranslate", "--engine", UPPER, mono, "--out", other, code=2)
    assert "is not an unfinished `mt backtranslate` output" in message
    assert out.read_bytes() == before and other.read_text() == "mine\tmío\n"


@pytest.mark.parametrize(
    ("engine", "expected", "code"),
    [
        ("no-such-translator-xyz", "no command 'no-such-translator-xyz' found", 2),
        ("sh -c 'echo broken >&2; exit 3'", "failed with exit status 3: broken", 1),
        ("head -n 2", r"answered 2 lines for \d+", 1),
        ("sh -c 'cat; echo extra'", "answered 9 lines for 8", 1),
    ],
)
def test_a_bad_engine_is_one_line_and_keeps_what_was_written(
    tmp_path: Path, engine: str, expected: str, code: int
) -> None:
    mono = write_doc_file(tmp_path / "mono.tsv", spanish(8))
    out = tmp_path / "bt.tsv"
    cli_output("backtranslate", "--engine", UPPER, mono, "--out", out, "--chunk", "4")
    message = cli_output("backtranslate", "--engine", engine, mono, "--out", tmp_path / "x.tsv",
                         "--chunk", "4", code=code)  # fmt: skip
    assert re.search(expected, message)
    assert len(pairs_of(out)) == 8


def test_an_engine_that_dies_keeps_the_chunks_done(tmp_path: Path) -> None:
    """The engine answers 8 of 12 lines and dies: the two chunks it answered stay written."""
    mono = write_doc_file(tmp_path / "mono.tsv", spanish(12))
    out = tmp_path / "bt.tsv"
    engine = "sh -c 'head -n 8; echo dead >&2; exit 3'"
    message = cli_output("backtranslate", "--engine", engine, mono, "--out", out, "--chunk", "4",
                         code=1)  # fmt: skip
    assert "failed with exit status 3: dead" in message
    assert [es for _, es in pairs_of(out)] == spanish(8)


def test_non_utf8_names_the_file_and_line_and_keeps_earlier_chunks(tmp_path: Path) -> None:
    mono = tmp_path / "mono.tsv"
    good = "".join(f"d\t{s}\n" for s in spanish(6)).encode()
    mono.write_bytes(good + b"d\tEl ni\xf1o come pan con su familia.\n")
    out = tmp_path / "bt.tsv"
    message = cli_output("backtranslate", "--engine", UPPER, mono, "--out", out, "--chunk", "2",
                         code=2)  # fmt: skip
    assert f"{mono} line 7: not valid UTF-8" in message
    assert [es for _, es in pairs_of(out)] == spanish(6)


def test_an_empty_file_is_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty.tsv"
    empty.write_text("\n\n")
    message = cli_output("backtranslate", "--engine", UPPER, empty, "--out", tmp_path / "o.tsv",
                         code=2)  # fmt: skip
    assert f"{empty}: no text in it (an empty file)" in message


def test_a_missing_file_and_a_model_that_is_not_reverse(tmp_path: Path, trained_run: Path) -> None:
    message = cli_output("backtranslate", "--engine", UPPER, tmp_path / "nope.tsv", "--out",
                         tmp_path / "o.tsv", code=2)  # fmt: skip
    assert "does not exist" in message
    mono = write_doc_file(tmp_path / "mono.tsv", spanish(3))
    message = cli_output("backtranslate", trained_run, mono, "--out", tmp_path / "o.tsv", code=2)
    assert "translates English→Spanish; back-translation needs a Spanish→English" in message


def test_filters_are_checked() -> None:
    with pytest.raises(MtError, match="need 0 < min <= max"):
        SentenceFilters(min_words=5, max_words=2)
