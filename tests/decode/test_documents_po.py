"""gettext .po files: untranslated entries filled and marked fuzzy, everything else kept, and the
result passes polib and `msgfmt --check`."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import polib
import pytest

from documents_support import DropPlaceholders, Upper
from mt.decode.documents import po
from mt.decode.documents.align import PositionAligner
from mt.decode.documents.document import translate_document
from mt.errors import MtError

SOURCE = r"""# Spanish translation of the docs.
# Copyright (C) 2001 PSF
msgid ""
msgstr ""
"Project-Id-Version: Python 3.12\n"
"MIME-Version: 1.0\n"
"Content-Type: text/plain; charset=UTF-8\n"
"Content-Transfer-Encoding: 8bit\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\n"

#: ../../library/os.rst:10
#, python-format
msgid ""
"Cannot open %(name)s: use ``os.open`` or see `the docs <https://docs.python.org>`_."
msgstr ""

#: ../../library/os.rst:12
msgid "Already translated."
msgstr "Ya traducido."

#. A comment for translators
#: a.py:3
#, python-brace-format
msgid "One file in {dir}"
msgid_plural "{count} files in {dir}"
msgstr[0] ""
msgstr[1] ""

msgid "This is *very* **important**\n"
msgstr ""

msgid "``code_only()``"
msgstr ""

#~ msgid "Old one"
#~ msgstr "Viejo"
"""


def translated(source: str = SOURCE, translator=None, overwrite: bool = False) -> str:
    document = po.parse(source, name="os.po", overwrite=overwrite)
    return translate_document(document, translator or Upper(), PositionAligner())


def test_untranslated_entries_are_filled_and_marked_fuzzy() -> None:
    before, after = polib.pofile(SOURCE), polib.pofile(translated())
    assert [e.msgid for e in after] == [e.msgid for e in before]
    entries = {entry.msgid: entry for entry in after}
    first = entries[before[0].msgid]
    assert first.msgstr == (
        "CANNOT OPEN %(name)s: USE ``os.open`` OR SEE `THE DOCS <https://docs.python.org>`_."
    )
    assert first.flags == ["fuzzy", "python-format"]
    assert first.occurrences == [("../../library/os.rst", "10")]
    assert entries["This is *very* **important**\n"].msgstr == "THIS IS *VERY* **IMPORTANT**\n"
    assert entries["``code_only()``"].msgstr == "``code_only()``"


def test_translated_and_obsolete_entries_header_and_comments_are_kept() -> None:
    after = polib.pofile(translated())
    done = next(e for e in after if e.msgid == "Already translated.")
    assert done.msgstr == "Ya traducido." and done.flags == []
    assert [(e.msgid, e.msgstr) for e in after.obsolete_entries()] == [("Old one", "Viejo")]
    assert after.metadata == polib.pofile(SOURCE).metadata
    assert after.header == polib.pofile(SOURCE).header
    plural = next(e for e in after if e.msgid_plural)
    assert plural.comment == "A comment for translators"


def test_both_plural_forms_are_filled() -> None:
    plural = next(e for e in polib.pofile(translated()) if e.msgid_plural)
    assert plural.msgstr_plural == {0: "ONE FILE IN {dir}", 1: "{count} FILES IN {dir}"}


def test_overwrite_retranslates_translated_entries() -> None:
    after = polib.pofile(translated(overwrite=True))
    done = next(e for e in after if e.msgid == "Already translated.")
    assert done.msgstr == "ALREADY TRANSLATED." and "fuzzy" in done.flags


def test_placeholders_the_model_lost_come_back() -> None:
    after = polib.pofile(translated(translator=DropPlaceholders()))
    first = after[0]
    for kept in ("%(name)s", "``os.open``", "https://docs.python.org"):
        assert first.msgstr.count(kept) == 1


@pytest.mark.parametrize("translator", [Upper(), DropPlaceholders()])
def test_msgfmt_check_passes_on_the_output(tmp_path: Path, translator) -> None:
    path = tmp_path / "out.po"
    path.write_text(translated(translator=translator), encoding="utf-8")
    result = subprocess.run(
        ["msgfmt", "--check", "--use-fuzzy", "-o", str(tmp_path / "out.mo"), str(path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("text", "line"),
    [
        ('msgid "a"\nmsgstr "b"\n\nmsgid "c\nmsgstr ""\n', 4),  # polib alone drops this entry
        ('msgid "a"\nmsgstr "b"\nfoo bar\n', 3),
        ('msgid "a"\nmsgstr "b"\n\nmsgstr "x"\nmsgid "c"\n', 4),
    ],
)
def test_a_syntax_error_names_the_file_and_line(text: str, line: int) -> None:
    with pytest.raises(MtError, match=rf"^bad\.po:{line}: not a valid \.po file"):
        po.parse(text, name="bad.po")


def test_positional_directives_keep_their_order_and_odd_ones_are_kept() -> None:
    source = (
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        "#, python-format\n"
        'msgid "The file %s has %d lines, ``%s`` is 10% of them."\nmsgstr ""\n'
    )
    from documents_support import Reverse

    entry = polib.pofile(translated(source, translator=Reverse()))[0]
    directives = re.findall(r"%[ds]|% o|``%s``", entry.msgstr)
    assert directives == ["%s", "%d", "``%s``", "% o"]
