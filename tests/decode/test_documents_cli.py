"""`mt translate --format` end to end with a real (tiny, poor) model: the structure of every kind
of document survives whatever words the model gives, and bad input is one line, nothing written."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import polib
import pytest

from conftest import cli_output, legacy_models, run_cli
from documents_support import html_tags
from mt.catalog.modelinfo import resolve

RUN = legacy_models() / "run"  # the legacy run; its export beside it

HTML = """<!DOCTYPE html>
<html><head><title>Where is the station, Ilse?</title>
<script>var s = "Ilse likes bread.";</script></head>
<body>
<p>Ilse likes <b>bread</b>. Where is the <a href="/museum" class="x">museum</a>, Bruno?</p>
<p>Press {button} at https://example.com/a.txt, Nadia &amp; Oskar.</p>
<pre>Ilse likes <i>soup</i>.</pre>
</body></html>
"""
MARKDOWN = """# Where is the station, Ilse?

> Bruno likes *cheese*.
> Does Nadia want `rice`?

- Is Oskar at the [bridge](https://example.com/bridge)?

```
Ilse likes bread.
```
"""
PO = r"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: a.py:1
#, python-format
msgid "Ilse likes %(food)s and ``bread``."
msgstr ""

msgid "I have {count} cat."
msgid_plural "I have {count} cats."
msgstr[0] ""
msgstr[1] ""
"""
SRT = (
    "1\n00:00:01,000 --> 00:00:02,000\nWhere is the <i>museum</i>,\nBruno?\n\n"
    "2\n00:00:03,000 --> 00:00:04,500\nIlse likes bread.\n"
)


def translate(tmp_path: Path, name: str, content: str, *extra: str) -> str:
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    out = tmp_path / f"out-{name}"
    cli_output("translate", "--model", RUN, "--device", "cpu", "-i", source, "-o", out, *extra)
    return out.read_text(encoding="utf-8")


def test_html_keeps_every_tag_and_protected_span(tmp_path: Path) -> None:
    out = translate(tmp_path, "page.html", HTML)
    tag = re.compile(r"<[^>]*>")
    assert tag.findall(out) == tag.findall(HTML)
    assert html_tags(out) == (html_tags(HTML)[0], [])
    for kept in ("{button}", "https://example.com/a.txt", "&amp;", '"Ilse likes bread."'):
        assert out.count(kept) == HTML.count(kept)
    assert "<pre>Ilse likes <i>soup</i>.</pre>" in out
    assert "Where is the station" not in out  # the title was translated


def test_markdown_keeps_its_structure(tmp_path: Path) -> None:
    out = translate(tmp_path, "page.md", MARKDOWN)
    lines, before = out.splitlines(), MARKDOWN.splitlines()
    assert len(lines) == len(before)
    for line, original in zip(lines, before, strict=True):
        assert line[:2] == original[:2]
    assert "```\nIlse likes bread.\n```\n" in out
    assert out.count("`rice`") == 1 and out.count("](https://example.com/bridge)") == 1
    assert out.count("*") == 2


def test_po_fills_every_entry_and_passes_msgfmt(tmp_path: Path) -> None:
    out = translate(tmp_path, "messages.po", PO)
    entries = polib.pofile(out)
    assert all(entry.msgstr or all(entry.msgstr_plural.values()) for entry in entries)
    assert all("fuzzy" in entry.flags for entry in entries)
    assert entries[0].msgstr.count("%(food)s") == 1 and "``bread``" in entries[0].msgstr
    assert all(text.count("{count}") == 1 for text in entries[1].msgstr_plural.values())
    if shutil.which("msgfmt"):
        path = tmp_path / "out-messages.po"
        check = ["msgfmt", "--check", "--use-fuzzy", "-o", str(tmp_path / "m.mo"), str(path)]
        assert subprocess.run(check, capture_output=True).returncode == 0


def test_srt_keeps_numbers_and_timings(tmp_path: Path) -> None:
    out = translate(tmp_path, "film.srt", SRT)
    blocks = out.split("\n\n")
    assert [b.split("\n")[:2] for b in blocks] == [b.split("\n")[:2] for b in SRT.split("\n\n")]
    assert len(blocks[0].split("\n")) <= 4 and out.count("<i>") == out.count("</i>") == 1


def test_the_format_can_be_named_and_read_from_standard_input() -> None:
    result = run_cli(
        "translate",
        "--model",
        RUN,
        "--device",
        "cpu",
        "--format",
        "html",
        stdin=b"<p>Ilse likes <b>bread</b>.</p>",
    )
    assert re.fullmatch(r"<p>[^<>]*<b>[^<>]+</b>[^<>]*</p>", result.stdout), result.stdout


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.srt", "1\n00:00:01,000 --> 00:00:0x,000\nHi\n", r"bad\.srt:2: bad timecode line"),
        ("bad.po", 'msgid "a\nmsgstr ""\n', r"bad\.po:1: not a valid \.po file"),
        ("bad.vtt", "1\n00:01.000 --> 00:02.000\nHi\n", r"bad\.vtt:1: a WebVTT file starts"),
    ],
)
def test_bad_input_is_one_line_naming_the_line_and_nothing_is_written(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    out = tmp_path / f"out-{name}"
    result = run_cli(
        "translate", "--model", RUN, "--device", "cpu", "-i", source, "-o", out, code=2
    )
    assert re.search(message, result.output) and len(result.output.strip().splitlines()) == 1
    assert not out.exists()


def test_an_unknown_format_is_named() -> None:
    output = cli_output("translate", "--model", RUN, "--format", "docx", "x", code=2)
    assert "--format docx: not a format" in output


def test_the_model_aligner_gives_a_distribution_per_target_word() -> None:
    from mt.config import DecodeConfig
    from mt.decode.documents.align import AttentionAligner, aligner_for, words
    from mt.decode.options import TranslateOptions
    from mt.decode.translator import open_translator

    translator = open_translator(
        resolve(RUN), TranslateOptions(decode=DecodeConfig(beam_size=1)), device="cpu"
    )
    aligner = aligner_for(translator)
    assert isinstance(aligner, AttentionAligner)
    source = "Ilse likes bread, ｟1｠."
    target = next(iter(translator.translate([source]))).text
    (matrix,) = aligner.align([(source, target)])
    assert len(matrix) == len(words(target))
    assert all(len(row) == len(words(source)) and abs(sum(row) - 1) < 1e-5 for row in matrix)


def test_the_model_aligner_gives_the_model_a_bounded_number_of_pieces_at_once() -> None:
    """Batches are cut by pieces (a teacher-forced pass holds every piece's keys and values), and
    the matrices are the ones one batch gives."""
    import numpy as np

    from mt.config import DecodeConfig
    from mt.decode.documents.align import aligner_for
    from mt.decode.options import TranslateOptions
    from mt.decode.translator import open_translator

    translator = open_translator(
        resolve(RUN), TranslateOptions(decode=DecodeConfig(beam_size=1)), device="cpu"
    )
    sources = ["Ilse likes bread, ｟1｠.", "Where is the station, Ilse?", "Does Bruno want rice?"]
    lines = sources * 2
    pairs = [(s, t.text) for s, t in zip(lines, translator.translate(lines), strict=True)]
    aligner = aligner_for(translator)
    whole = list(aligner.align(pairs))
    engine, sizes = aligner.engine, []

    class Counted:
        def attention(self, sources, targets):
            sizes.append(sum(len(s) + len(t) for s, t in zip(sources, targets, strict=True)))
            return engine.attention(sources, targets)

    aligner.engine, aligner.batch_pieces = Counted(), 40
    cut = list(aligner.align(pairs))
    assert len(sizes) >= 3 and max(sizes) <= 40
    for a, b in zip(cut, whole, strict=True):
        assert np.allclose(a, b, atol=1e-5)


def test_an_export_places_markup_with_attention_as_its_run_does(tmp_path: Path) -> None:
    """CTranslate2 returns the attention the run's PyTorch model gives (float32: the same map to
    rounding), so an export aligns words, and places tags, as its run does."""
    import numpy as np

    from mt.config import DecodeConfig
    from mt.decode.documents import html
    from mt.decode.documents.align import AttentionAligner, PositionAligner, aligner_for
    from mt.decode.documents.document import place_units
    from mt.decode.options import TranslateOptions
    from mt.decode.translator import open_translator

    config = DecodeConfig(beam_size=1)
    run = open_translator(resolve(RUN), TranslateOptions(decode=config), device="cpu")
    export = open_translator(
        resolve(RUN.parent / "export"),
        TranslateOptions(decode=config),
        device="cpu",
        compute_type="float32",
    )
    assert isinstance(aligner_for(export), AttentionAligner)
    sources = ["Ilse likes bread, ｟1｠.", "Where is the station, Ilse?", "Does Bruno want rice?"]
    pairs = [(source, t.text) for source, t in zip(sources, run.translate(sources), strict=True)]
    ours, theirs = aligner_for(export).align(pairs), aligner_for(run).align(pairs)
    for a, b in zip(ours, theirs, strict=True):
        assert np.allclose(a, b, atol=0.02)
    units = html.parse(HTML, name="page.html").units
    texts = [t.text for t in run.translate(unit.text for unit in units)]
    placed = place_units(units, texts, aligner_for(export))
    assert placed == place_units(units, texts, aligner_for(run))
    assert placed != place_units(units, texts, PositionAligner())


def test_an_export_translates_a_document_through_the_cli(tmp_path: Path) -> None:
    export = RUN.parent / "export"
    source = tmp_path / "page.html"
    source.write_text(HTML, encoding="utf-8")
    out = tmp_path / "out.html"
    cli_output("translate", "--model", export, "--device", "cpu", "-i", source, "-o", out)
    tag = re.compile(r"<[^>]*>")
    assert tag.findall(out.read_text(encoding="utf-8")) == tag.findall(HTML)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<p>Ilse</p>\n<p>caf\xe9</p>\n", r"page\.html:2: not valid UTF-8 \(byte 7\)"),
        (b"<p>Ilse</p>\n\n<p>\x00</p>\n", r"page\.html:3: a NUL character; this is not a text"),
    ],
)
def test_a_document_that_is_not_text_is_one_line(tmp_path: Path, data: bytes, message: str) -> None:
    source = tmp_path / "page.html"
    source.write_bytes(data)
    out = tmp_path / "out.html"
    result = run_cli(
        "translate", "--model", RUN, "--device", "cpu", "-i", source, "-o", out, code=2
    )
    assert re.search(message, result.output) and not out.exists()
