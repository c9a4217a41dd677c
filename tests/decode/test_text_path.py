"""`mt translate` on real text: paragraphs split and rejoined, blank lines and spacing kept,
too-long sentences translated whole in pieces, n-best of joined lines, and a live pipe used as a
co-process (one line in, its translation out, then the next)."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import legacy_models, run_cli
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.decode.options import TranslateOptions
from mt.decode.segment import segment
from mt.decode.translator import open_translator

SENTENCES = ["Ilse likes bread.", "Does Bruno want soup?", "Thank you, Nadia!"]


@pytest.fixture(scope="module")
def translator(trained_run: Path):
    return open_translator(
        resolve(trained_run),
        TranslateOptions(decode=DecodeConfig(beam_size=3, n_best=3)),
        device="cpu",
    )


def test_a_paragraph_is_translated_sentence_by_sentence_with_its_spacing(translator) -> None:
    alone = [t.text for t in translator.translate(SENTENCES)]
    line = f"  {SENTENCES[0]}  {SENTENCES[1]}\t{SENTENCES[2]} "
    (paragraph,) = translator.translate([line])
    assert paragraph.pieces == 3
    assert paragraph.text == f"  {alone[0]}  {alone[1]}\t{alone[2]} "


def test_lines_and_blank_lines_keep_their_places(translator) -> None:
    lines = [SENTENCES[0], "", " ".join(SENTENCES[:2]), "   ", SENTENCES[2]]
    out = [t.text for t in translator.translate(lines)]
    assert len(out) == len(lines)
    assert out[1] == "" and out[3] == ""
    assert all(out[i] for i in (0, 2, 4))


def test_no_split_translates_the_line_as_one_piece(trained_run: Path) -> None:
    whole = open_translator(resolve(trained_run), TranslateOptions(split=False), device="cpu")
    (translation,) = whole.translate([" ".join(SENTENCES)])
    assert translation.pieces == 1


def test_the_k_th_alternative_joins_the_k_th_of_each_sentence(translator) -> None:
    alone = list(translator.translate(SENTENCES[:2]))
    (joined,) = translator.translate([" ".join(SENTENCES[:2])])
    assert len(joined.hypotheses) == 3
    for k, (text, score) in enumerate(joined.hypotheses):
        parts = [t.hypotheses[min(k, len(t.hypotheses) - 1)] for t in alone]
        assert text == " ".join(part_text for part_text, _ in parts)
        assert score == pytest.approx(sum(part_score for _, part_score in parts), abs=1e-4)


def test_a_sentence_longer_than_the_model_takes_is_translated_in_pieces(translator) -> None:
    limit = translator.model.piece_len
    words = ("Ilse likes bread, " * limit).strip().rstrip(",") + "."
    assert len(translator.run.source.encode(words)) > limit  # the old path cut this off
    (translation,) = translator.translate([words])
    cut = segment(
        words, split=True, fits=lambda text: len(translator.run.source.encode(text)) < limit
    )
    assert translation.pieces == len(cut.pieces) > 1
    assert " ".join(cut.pieces) == words  # every word is in some piece
    alone = [t.text for t in translator.translate(list(cut.pieces))]
    assert translation.text == cut.join(alone)


def test_translate_cli_keeps_paragraph_lines_and_no_split(trained_run: Path, tmp_path) -> None:
    source = tmp_path / "doc.txt"
    source.write_text(f"{SENTENCES[0]} {SENTENCES[1]}\n\n{SENTENCES[2]}\n", encoding="utf-8")
    out = tmp_path / "doc.es.txt"
    run_cli("translate", "--model", trained_run, "-i", source, "-o", out, "--device", "cpu")
    lines = out.read_text(encoding="utf-8").split("\n")
    assert len(lines) == 4 and lines[1] == "" and lines[3] == ""
    run_cli(
        "translate",
        "--model",
        trained_run,
        "-i",
        source,
        "-o",
        out,
        "--no-split",
        "--device",
        "cpu",
    )
    assert out.read_text(encoding="utf-8").count("\n") == 3


def _read_line(fd: int, deadline: float) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        left = deadline - time.monotonic()
        readable, _, _ = select.select([fd], [], [], max(left, 0))
        if not readable:
            raise AssertionError(f"no translation within the time limit; got {data!r} so far")
        chunk = os.read(fd, 4096)
        if not chunk:
            raise AssertionError(f"mt translate ended early; got {data!r}")
        data += chunk
    return data


def test_a_live_pipe_answers_each_line_before_the_next_is_written(trained_run: Path) -> None:
    command = [
        sys.executable,
        "-m",
        "mt",
        "translate",
        "--model",
        str(trained_run),
        "--device",
        "cpu",
    ]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        answers = []
        for number, sentence in enumerate(SENTENCES):
            process.stdin.write(sentence.encode() + b"\n")
            process.stdin.flush()
            # The first answer waits for Python and torch to start; later ones only for decoding.
            answers.append(
                _read_line(process.stdout.fileno(), time.monotonic() + (120 if number == 0 else 60))
            )
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        process.kill()
        process.wait()
    expected = [
        t.text
        for t in open_translator(resolve(trained_run), TranslateOptions(), device="cpu").translate(
            SENTENCES
        )
    ]
    assert [a.decode().rstrip("\n") for a in answers] == expected


LEGACY_RUN = legacy_models() / "run"
TLDR_LINE = (
    "More information: <https://www.cisco.com/c/en/us/td/docs/ios-xml/ios/security/d1/"
    "sec-d1-cr-book/sec-cr-e1.html#wp3307186499>."
)


@pytest.fixture(scope="module")
def greedy() -> object:
    return open_translator(
        resolve(LEGACY_RUN), TranslateOptions(decode=DecodeConfig(beam_size=1)), device="cpu"
    )


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(line=st.text(alphabet=st.characters(exclude_characters="\n"), max_size=400))
def test_any_line_gives_one_translation_and_no_error(greedy, line: str) -> None:
    (translation,) = greedy.translate([line])
    assert "\n" not in translation.text


def test_a_line_with_a_long_url_is_translated_and_the_file_written(tmp_path: Path) -> None:
    source, out = tmp_path / "page.md", tmp_path / "out.md"
    source.write_text(f"# tar\n\n{TLDR_LINE}\n", encoding="utf-8")
    run_cli("translate", "--model", LEGACY_RUN, "--device", "cpu", "-i", source, "-o", out)
    assert len(out.read_text(encoding="utf-8").split("\n")) == 4


def test_a_lone_surrogate_is_translated_as_a_replacement_character(greedy) -> None:
    # What a command line's undecodable byte becomes (surrogateescape): never a TypeError.
    (translation,) = greedy.translate(["Tom \udcff runs."])
    assert translation.source == "Tom \ufffd runs."
    assert translation.text
