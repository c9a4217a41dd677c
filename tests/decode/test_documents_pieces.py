"""Documents in pieces of bounded size (mt.decode.documents.split and document.translated_units):
the pieces do not change the translation, tags and structure are kept, and the work grows
linearly with the document, counted in lines sent, translator calls and alignment cells."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import polib
import pytest

from documents_support import Done, SameWordAligner, Upper, html_tags
from mt.decode.documents import html, markdown, po, subtitles
from mt.decode.documents.align import words
from mt.decode.documents.document import translate_document, translate_stream
from mt.decode.documents.split import cut_points, split_unit
from mt.decode.documents.units import UnitBuilder

SENTENCES = [
    "The quick brown fox jumps over the lazy dog.",
    "A small team repaired the old bridge on Monday.",
    "Our printer opened three new schools before the rain.",
    "My sister finished a long letter in the morning.",
]


def _sentence(i: int) -> str:
    return SENTENCES[i % len(SENTENCES)]


def long_run(sentences: int) -> str:
    """Lines of text with inline tags and no block element: one unit, as a LibreOffice help page
    whose lines are not wrapped in <p>, with a <b> that runs across two sentences every so often."""
    lines = []
    for i in range(sentences):
        words_ = _sentence(i).split(" ")
        if i % 5 == 1:
            lines.append(f'<span class="emph">{words_[0]}</span> ' + " ".join(words_[1:]))
        elif i % 5 == 3:
            lines.append(" ".join(words_[:-2]) + " <b>" + " ".join(words_[-2:]))
        elif i % 5 == 4:
            lines.append(" ".join(words_[:2]) + "</b> <code>x = 1</code> " + " ".join(words_[2:]))
        else:
            lines.append(" ".join(words_))
    return "<div>\n" + "\n".join(lines) + "\n</div>\n"


def _whole(document, translator=None) -> str:
    """The document translated without pieces: every unit whole, one translator call."""
    return translate_document(
        document, translator or Upper(), SameWordAligner(), piece_chars=10**9, unit_chars=10**9
    )


def _pieces(document, translator=None) -> str:
    return translate_document(
        document, translator or Upper(), SameWordAligner(), piece_chars=400, unit_chars=120
    )


def test_a_long_unit_is_cut_at_sentence_ends_into_parts_of_bounded_size() -> None:
    document = html.parse(long_run(40), name="page.html")
    (unit,) = document.units
    split = split_unit(unit, 120)
    assert len(split.parts) > 10
    assert all(len(part.text) <= 120 for part in split.parts)
    assert all(part.text.endswith(".") for part in split.parts)  # whole sentences
    joined = split.parts[0].text + "".join(
        join + part.text for join, part in zip(split.joins, split.parts[1:], strict=True)
    )
    assert joined == unit.text
    assert sum(len(part.kept) for part in split.parts) == len(unit.kept)


def test_a_sentence_longer_than_the_bound_is_cut_at_a_space_and_a_word_never() -> None:
    text = " ".join(["word"] * 100)
    assert all(text[c] == " " for c in cut_points(text, 50))
    cuts = cut_points(text, 50)
    assert all(c - p <= 51 for p, c in zip([-1, *cuts], cuts, strict=False))
    assert cut_points("x" * 500, 50) == []  # one word: nothing to cut at


def test_a_short_unit_is_left_whole() -> None:
    builder = UnitBuilder()
    builder.text(_sentence(0))
    _, unit, _ = builder.finish()
    assert split_unit(unit, 120).parts == (unit,)


def test_pieces_of_bounded_size_do_not_change_an_html_page() -> None:
    page = "<h1>A title</h1>\n" + long_run(40) + "<p>" + _sentence(1) + "</p>\n"
    document = html.parse(page, name="page.html")
    assert _pieces(document) == _whole(document)


def test_a_tag_across_a_cut_is_opened_in_one_part_and_closed_in_the_next() -> None:
    document = html.parse(long_run(40), name="page.html")
    out = _pieces(document)
    tags, errors = html_tags(out)
    assert errors == []
    assert tags == html_tags(long_run(40))[0]
    assert out.count("<code>x = 1</code>") == long_run(40).count("<code>x = 1</code>")


def test_pieces_do_not_change_a_markdown_paragraph_over_many_lines() -> None:
    paragraph = "\n".join(
        f"> {_sentence(i)} **{_sentence(i + 1).split()[0]}** `code {i}`" for i in range(30)
    )
    document = markdown.parse(f"# Title\n\n{paragraph}\n\n- {_sentence(2)}\n", name="a.md")
    out = _pieces(document)
    assert out == _whole(document)
    quoted = [line for line in out.splitlines() if line.startswith("> ")]
    assert len(quoted) == 30  # every line break and its prefix kept


def test_pieces_do_not_change_a_po_file_with_a_long_msgid() -> None:
    long = " ".join(_sentence(i) + f" ``literal{i}``" for i in range(20))
    entries = "".join(f'msgid "{_sentence(i)}"\nmsgstr ""\n\n' for i in range(30))
    text = f'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n{entries}'
    text += f'msgid "{long}"\nmsgstr ""\n'
    document = po.parse(text, name="a.po")
    out = _pieces(document)
    assert out == _whole(document)
    assert "``literal19``" in out and "THE QUICK BROWN FOX" in out


def test_pieces_do_not_change_subtitles() -> None:
    cues = "".join(
        f"{i + 1}\n00:00:{i:02d},000 --> 00:00:{i:02d},900\n{_sentence(i)}\n\n" for i in range(50)
    )
    document = subtitles.parse_srt(cues, name="a.srt")
    assert _pieces(document) == _whole(document)


class Counting:
    """Upper that counts its calls and the lines it was sent."""

    def __init__(self) -> None:
        self.calls = 0
        self.lines = 0

    def translate(self, lines: Iterable[str]) -> Iterator[Done]:
        self.calls += 1
        for done in Upper().translate(lines):
            self.lines += 1
            yield done


class CountingAligner(SameWordAligner):
    """SameWordAligner that counts the alignment cells (source words x target words) it made."""

    def __init__(self) -> None:
        self.cells = 0

    def align(self, pairs: Sequence[tuple[str, str]]) -> list[list[list[float]]]:
        self.cells += sum(len(words(s)) * len(words(t)) for s, t in pairs)
        return super().align(pairs)


def _work(sentences: int) -> tuple[int, int, int]:
    """(translator calls, lines sent, alignment cells) for a page of one long tagged run."""
    translator, aligner = Counting(), CountingAligner()
    document = html.parse(long_run(sentences), name="page.html")
    translate_document(document, translator, aligner, piece_chars=2000, unit_chars=300)
    return translator.calls, translator.lines, aligner.cells


def test_the_work_grows_linearly_with_the_page() -> None:
    calls, lines, cells = _work(100)
    calls_4, lines_4, cells_4 = _work(400)
    assert lines_4 == pytest.approx(4 * lines, rel=0.05)
    assert cells_4 == pytest.approx(4 * cells, rel=0.05)  # a page's square would be 16 times
    assert calls_4 <= 4 * calls + 1
    assert calls > 1  # pieces: more than one call for a page over piece_chars


def test_a_document_is_written_piece_by_piece_as_it_is_translated() -> None:
    paragraphs = "".join(f"<p>{_sentence(i)}</p>\n" for i in range(200))
    document = html.parse(paragraphs, name="page.html")
    translator = Counting()
    stream = translate_stream(document, translator, SameWordAligner(), piece_chars=500)
    first = next(bit for bit in stream if bit.strip())
    assert first.startswith("<p>THE QUICK")
    assert 0 < translator.lines < len(document.units) // 4  # only the first piece was sent
    rest = "".join(stream)
    assert translator.lines == len(document.units)
    assert first + rest == _whole(document)


def test_a_po_file_is_written_entry_by_entry_as_polib_writes_it() -> None:
    entries = "".join(f'#: a.py:{i}\nmsgid "{_sentence(i)}"\nmsgstr ""\n\n' for i in range(20))
    text = '# A header.\nmsgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
    text += entries + '#~ msgid "Old"\n#~ msgstr "Viejo"\n'
    document = po.parse(text, name="a.po")
    translations = [f"T{i}" for i in range(len(document.units))]
    bits = list(document.stream(translations))
    assert len(bits) == 22  # header and metadata, 20 entries, the obsolete one
    expected = polib.pofile(text)
    for index, entry in enumerate(e for e in expected if not e.obsolete):
        entry.msgstr = f"T{index}"
        entry.flags.insert(0, "fuzzy")
    assert "".join(bits) == str(expected)
