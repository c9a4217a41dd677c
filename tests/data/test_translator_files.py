"""Reading .po, TMX and XLIFF: the pairs a translator finished, counts of the rest, and one clear
line for every file that cannot be read (an XML bomb included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from mt.config import PrepareConfig
from mt.data.prepare.pipeline import prepare_corpus
from mt.data.readers.corpus import CorpusInput, read_corpus
from mt.data.readers.translator_files import read_translator_file
from mt.errors import MtError

PO = """\
# Translation of a tiny project.
msgid ""
msgstr ""
"Language: es\\n"
"Content-Type: text/plain; charset=UTF-8\\n"

#: app.py:1
msgid "Open the file."
msgstr "Abre el archivo."

#, fuzzy
msgid "Close the file."
msgstr "Cierra la ventana."

msgctxt "menu"
msgid "File"
msgstr "Archivo"

msgctxt "verb"
msgid "File"
msgstr "Archivar"

msgid "Not yet."
msgstr ""

msgid "One file"
msgid_plural "%d files"
msgstr[0] "Un archivo"
msgstr[1] "%d archivos"

msgid "Use ``os.path``, see :func:`open`."
msgstr "Usa ``os.path``, mira :func:`open`."

#~ msgid "Gone."
#~ msgstr "Ido."
"""


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def pairs(entries) -> list[tuple[str, str]]:
    return [(segment.en, segment.es) for segment in entries.segments]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('msgid "a"\nmsgstr "b"\nthis is not gettext\n', r"bad\.po line 3: not a valid gettext"),
        (b'msgid "a"\nmsgstr "\xe9"\n', r"bad\.po line 2: not valid UTF-8"),
        ("", r"bad\.po is empty"),
    ],
)
def test_a_bad_po_file_is_one_clear_error(
    tmp_path: Path, content: str | bytes, message: str
) -> None:
    with pytest.raises(MtError, match=message):
        read_translator_file(write(tmp_path / "bad.po", content))


TMX = """\
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE tmx SYSTEM "tmx14.dtd">
<tmx version="1.4">
  <header srclang="en-US" datatype="html" segtype="sentence" adminlang="en" o-tmf="x"
          creationtool="test" creationtoolversion="1"/>
  <body>
    <tu tuid="1">
      <tuv xml:lang="en-US">
<seg>Click <bpt i="1">&lt;b&gt;</bpt>Save<ept i="1">&lt;/b&gt;</ept>.</seg></tuv>
      <tuv xml:lang="es-419">
<seg>Haz clic en <bpt i="1">&lt;b&gt;</bpt>Guardar<ept i="1">&lt;/b&gt;</ept>.</seg></tuv>
    </tu>
    <tu tuid="2">
      <tuv xml:lang="EN"><seg>Only English.</seg></tuv>
      <tuv xml:lang="fr-FR"><seg>Seulement.</seg></tuv>
    </tu>
    <tu tuid="3">
      <tuv xml:lang="es_ES"><seg>Primero el español.</seg></tuv>
      <tuv xml:lang="en-GB"><seg>Spanish first.</seg></tuv>
    </tu>
  </body>
</tmx>
"""


BOMB = """<?xml version="1.0"?>
<!DOCTYPE tmx [
  <!ENTITY a "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa">
  <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">
  <!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">
]>
<tmx version="1.4"><header/><body><tu><tuv xml:lang="en"><seg>&c;</seg></tuv></tu></body></tmx>
"""
EXTERNAL = """<?xml version="1.0"?>
<!DOCTYPE tmx [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<tmx version="1.4"><header/><body><tu><tuv xml:lang="en"><seg>&secret;</seg></tuv></tu></body></tmx>
"""


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bomb.tmx", BOMB, r"bomb\.tmx: refused: the file declares the XML entity 'a'"),
        ("ext.tmx", EXTERNAL, r"ext\.tmx: refused: the file .*entity 'secret'"),
        ("cut.tmx", TMX[:400], r"cut\.tmx line \d+: not well-formed XML"),
        ("other.tmx", "<html><body/></html>", r"not a TMX file \(its root element is <html>\)"),
        (
            "noseg.tmx",
            '<tmx version="1.4"><header/><body>\n<tu>\n<tuv xml:lang="en"/></tu></body></tmx>',
            r"noseg\.tmx line 3 \(tu 1\): <tuv xml:lang='en'> without <seg>",
        ),
        (
            "frde.tmx",
            '<tmx version="1.4"><header/><body><tu><tuv xml:lang="fr"><seg>a</seg></tuv>'
            '<tuv xml:lang="de"><seg>b</seg></tuv></tu></body></tmx>',
            r"no English-Spanish translation unit \(languages found: de, fr\)",
        ),
        ("v3.xlf", '<xliff version="3.0"/>', r"XLIFF version '3\.0'"),
        (
            "nosrc.xlf",
            '<xliff version="1.2"><file source-language="en" target-language="es"><body>\n'
            '<trans-unit id="7"><target>x</target></trans-unit></body></file></xliff>',
            r"nosrc\.xlf line 2 \(trans-unit 7\): <trans-unit> without <source>",
        ),
        (
            "fr.xlf",
            '<xliff version="2.0" srcLang="en" trgLang="fr"/>',
            r"srcLang='en' trgLang='fr'; mt reads English-Spanish files",
        ),
    ],
)
def test_a_bad_xml_file_is_one_clear_error(
    tmp_path: Path, name: str, content: str, message: str
) -> None:
    with pytest.raises(MtError, match=message):
        read_translator_file(write(tmp_path / name, content))


XLIFF_1 = """\
<?xml version="1.0" encoding="UTF-8"?>
<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">
  <file original="help.html" source-language="en-US" target-language="es-ES" datatype="html">
    <body>
      <group id="g">
        <trans-unit id="1">
          <source>Press <bpt id="1">&lt;kbd&gt;</bpt>Enter<ept id="1">&lt;/kbd&gt;</ept>.</source>
          <target state="translated"
>Pulsa <bpt id="1">&lt;kbd&gt;</bpt>Intro<ept id="1">&lt;/kbd&gt;</ept>.</target>
        </trans-unit>
      </group>
      <trans-unit id="2"><source>Draft.</source>
        <target state="needs-review-translation">Borrador.</target></trans-unit>
      <trans-unit id="3"><source>New.</source><target state="new">Nuevo.</target></trans-unit>
      <trans-unit id="4"><source>No target.</source></trans-unit>
      <trans-unit id="5" translate="no"><source>LibreOffice</source>
        <target>LibreOffice</target></trans-unit>
    </body>
  </file>
  <file original="b.txt" source-language="es" target-language="en">
    <body><trans-unit id="1"><source>Hola.</source><target>Hello.</target></trans-unit></body>
  </file>
</xliff>
"""
XLIFF_2 = """\
<?xml version="1.0" encoding="UTF-8"?>
<xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.1" srcLang="en" trgLang="es-MX">
  <file id="f1">
    <unit id="u1">
      <originalData><data id="d1">&lt;em&gt;</data><data id="d2">&lt;/em&gt;</data>
        <data id="d3">&lt;br/&gt;</data></originalData>
      <segment state="final">
        <source>It is <pc id="1" dataRefStart="d1" dataRefEnd="d2">very</pc> good.</source>
        <target>Es <pc id="1" dataRefStart="d1" dataRefEnd="d2">muy</pc> bueno.</target>
      </segment>
      <ignorable><source> </source></ignorable>
      <segment><source>Line<ph id="2" dataRef="d3"/>break.</source>
        <target>Salto<ph id="2" dataRef="d3"/>de línea.</target></segment>
      <segment><source>Later.</source></segment>
    </unit>
  </file>
</xliff>
"""


@pytest.mark.parametrize(
    ("name", "content", "kept", "lines", "entries", "skipped"),
    [
        pytest.param(
            "app.po",
            PO,
            [
                ("Open the file.", "Abre el archivo."),
                ("File", "Archivo"),  # msgctxt is not text: two contexts, two pairs
                ("File", "Archivar"),
                ("One file", "Un archivo"),  # plural forms as pairs
                ("%d files", "%d archivos"),
                ("Use ``os.path``, see :func:`open`.", "Usa ``os.path``, mira :func:`open`."),
            ],
            [7, 15, 19, 26, 26, 31],
            9,
            {"header": 1, "fuzzy": 1, "untranslated": 1, "obsolete": 1},
            id="po_keeps_translated_entries_and_counts_the_rest",
        ),
        pytest.param(
            "memory.tmx",
            TMX,
            [
                ("Click <b>Save</b>.", "Haz clic en <b>Guardar</b>."),
                ("Spanish first.", "Primero el español."),
            ],
            [7, 17],  # a DTD is no entity
            3,
            {"no Spanish side": 1},
            id="tmx_matches_languages_by_primary_subtag_and_keeps_markup",
        ),
        pytest.param(
            "help.xlf",
            XLIFF_1,
            [
                ("Press <kbd>Enter</kbd>.", "Pulsa <kbd>Intro</kbd>."),
                ("Hello.", "Hola."),  # an es->en file gives its target as the English side
            ],
            [6, 21],
            6,
            {"needs review": 1, "untranslated": 2, "not for translation": 1},
            id="xliff_1_2_keeps_translated_units_either_way_round",
        ),
        pytest.param(
            "doc.xliff",
            XLIFF_2,
            [
                ("It is <em>very</em> good.", "Es <em>muy</em> bueno."),
                ("Line<br/>break.", "Salto<br/>de línea."),
            ],
            [7, 12],
            3,
            {"untranslated": 1},
            id="xliff_2_restores_inline_codes_from_original_data",
        ),
    ],
)
def test_a_translator_file_gives_the_finished_pairs_and_counts_the_rest(
    tmp_path: Path,
    name: str,
    content: str,
    kept: list[tuple[str, str]],
    lines: list[int],
    entries: int,
    skipped: dict[str, int],
) -> None:
    read = read_translator_file(write(tmp_path / name, content))
    assert pairs(read) == kept
    assert [segment.line for segment in read.segments] == lines
    assert (read.entries, dict(read.skipped)) == (entries, skipped)


def test_a_directory_of_po_files_is_read_in_path_order(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "b" / "two.po", 'msgid "Two."\nmsgstr "Dos."\n')
    write(tmp_path / "docs" / "a.po", PO)
    write(tmp_path / "docs" / "notes.txt", "not read")
    corpus = read_corpus(CorpusInput(path=tmp_path / "docs"))
    assert corpus.pairs[0] == ("Open the file.", "Abre el archivo.")
    assert corpus.pairs[-1] == ("Two.", "Dos.")
    counts = corpus.report.counts()
    assert [Path(str(f["file"])).name for f in counts["files"]] == ["a.po", "two.po"]
    assert counts["skipped"] == {"fuzzy": 1, "header": 1, "obsolete": 1, "untranslated": 1}
    assert counts["lines"] == 10  # entries


def many_entries(count: int) -> str:
    return "".join(
        f'msgid "Sentence number {i} is here."\nmsgstr "La frase número {i} está aquí."\n\n'
        for i in range(count)
    )


def test_prepare_reads_translator_files_with_per_file_counts(tmp_path: Path) -> None:
    write(tmp_path / "po" / "a.po", PO + "\n" + many_entries(150))
    write(tmp_path / "memory.tmx", TMX)
    inputs = [CorpusInput(path=tmp_path / "po"), CorpusInput(path=tmp_path / "memory.tmx")]
    result = prepare_corpus(
        inputs, out=tmp_path / "prep", config=PrepareConfig(src_vocab=120, tgt_vocab=120)
    )
    info = json.loads((tmp_path / "prep" / "prepare.json").read_text())
    po, tmx = info["corpora"]
    assert [f["segments"] for f in po["files"]] == [156]
    assert po["skipped"] == {"fuzzy": 1, "header": 1, "obsolete": 1, "untranslated": 1}
    assert tmx["files"][0]["skipped"] == {"no Spanish side": 1}
    assert result.info["counts"]["pairs"] == 156 + 2


def test_the_summary_shows_what_translator_files_left_out(tmp_path: Path) -> None:
    write(tmp_path / "po" / "a.po", PO + "\n" + many_entries(150))
    output = run_cli("prepare", tmp_path / "po", "--out", tmp_path / "prep").output
    assert "1 fuzzy, 1 header, 1 obsolete, 1 untranslated" in " ".join(output.split())


def test_a_malformed_file_stops_prepare_with_one_line_and_writes_nothing(tmp_path: Path) -> None:
    write(tmp_path / "po" / "a.po", many_entries(50))
    write(tmp_path / "po" / "z.po", 'msgid "a"\nmsgstr "b"\nmsgstr "c" garbage\n')
    result = run_cli("prepare", tmp_path / "po", "--out", tmp_path / "prep", code=2)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "z.po line 3: not a valid gettext .po file" in lines[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["po"]
