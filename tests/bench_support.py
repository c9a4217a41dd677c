"""What the benchmarks' smoke tests share: each benchmark's `main(argv)` run in this process (a
subprocess would import torch and mt again, seconds each), and tiny copies of ../shared/data's
layout, invented, made once a test session: the four domains (mt.recipes.domain_split reads
them), the general sets (mt.recipes.general_split, the monolingual Spanish) and the lexicon."""

from __future__ import annotations

import atexit
import functools
import json
import lzma
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from benchmarks.harness import MISSED
from mt.catalog.modelinfo import resolve

NEWS_LINES = 10_570
"""news-dev's lines: mt.recipes.domain_split cuts its five WMT sets at fixed lines."""


def run_main(main: Callable[[list[str]], int | None], *args: str | Path) -> int:
    """A benchmark's `main(ARGS)`, as `python -m benchmarks.GROUP.NAME ARGS` runs it: its exit
    status, which must be 0 (every target met, or none stated) or MISSED (a tiny model misses
    most targets; the benchmark ran to its end and wrote its figures)."""
    status = main([str(arg) for arg in args]) or 0
    assert status in (0, MISSED), status
    return status


def figures(path: Path) -> dict:
    """The figures of a JSON file written by benchmarks.harness.report, checked for its
    provenance."""
    document = json.loads(path.read_text(encoding="utf-8"))
    assert {"machine", "commit", "date", "command", "targets", "missed"} <= set(document)
    return document["figures"]


def _folder(prefix: str) -> Path:
    root = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


@functools.cache
def tiny_domains() -> Path:
    """python-docs-es (.po files with code and URLs), tldr (Markdown pages in both languages),
    libreoffice-help (pairs and tagged rows with menu labels, for the glossary's term test) and
    news (news-dev.en/.es)."""
    root = _folder("mt-domains-") / "domains"
    for i in range(60):
        po = root / "python-docs-es" / "library" / f"mod{i}.po"
        po.parent.mkdir(parents=True, exist_ok=True)
        po.write_text(
            f'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
            f'msgid "Module {i} reads ``files``."\nmsgstr "El módulo {i} lee ``files``."\n\n'
            f'msgid "See https://docs.python.org/{i}/ for {i}."\n'
            f'msgstr "Vea https://docs.python.org/{i}/ para {i}."\n',
            encoding="utf-8",
        )
    for i in range(80):
        for language, words in (("en", "List files"), ("es", "Lista archivos")):
            page = root / "tldr" / language / "common" / f"cmd{i}.md"
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(f"# cmd{i}\n\n> {words} {i}.\n\n- {words}:\n\n`cmd{i} -l`\n")
    pages = [f"text/page{i}.html" for i in range(120)]
    help_dir = root / "libreoffice-help"
    help_dir.mkdir(parents=True)
    rows = [f"Click {i}.\tHaga clic {i}.\t{page}\n" for i, page in enumerate(pages * 2)]
    (help_dir / "pairs.tsv").write_text("".join(rows), encoding="utf-8")
    menu = '<span class="menuitem">{}</span>'
    tagged = [
        f"Choose {menu.format('Format - Cells')} for {i}.\t"
        f"Elija {menu.format('Formato - Celdas')} para {i}.\t{page}\n"
        for i, page in enumerate(pages)
    ]
    (help_dir / "tagged.tsv").write_text("".join(tagged), encoding="utf-8")
    (root / "news").mkdir()
    for language in ("en", "es"):
        lines = "".join(f"{language} news line {n}.\n" for n in range(NEWS_LINES))
        (root / "news" / f"news-dev.{language}").write_text(lines)
    return root


@functools.cache
def tiny_general() -> Path:
    """TICO-19, XQuAD and FLORES pairs and a monolingual set of 40 Spanish paragraphs
    (un-news.es.tsv.xz: doc<TAB>paragraph)."""
    return write_general(_folder("mt-general-") / "general")


def write_general(root: Path) -> Path:
    """A tiny copy of ../shared/data/general's layout (the real split and back-translation can
    read it) with a monolingual set of 40 Spanish paragraphs."""
    root.mkdir(parents=True)
    tico = [f"Case {i} was reported.\tSe informó el caso {i}.\n" for i in range(100)]
    (root / "tico19.tsv").write_text("".join(tico), encoding="utf-8")
    xquad = []
    for c in range(20):
        xquad.append(f"Paragraph {c} is long.\tEl párrafo {c} es largo.\tcontext\n")
        xquad += [f"Why {c}.{q}?\t¿Por qué {c}.{q}?\tquestion\n" for q in range(3)]
    (root / "xquad.tsv").write_text("".join(xquad), encoding="utf-8")
    flores = "".join(f"Line {i} here.\tLínea {i} aquí. \n" for i in range(10))  # strip it
    (root / "flores-dev.tsv").write_text(flores, encoding="utf-8")
    mono = "".join(
        f"doc{i}\tEl niño número {i} come pan con su familia en la casa grande del pueblo.\n"
        for i in range(40)
    )
    (root / "un-news.es.tsv.xz").write_bytes(lzma.compress(mono.encode()))
    return root


@functools.cache
def tiny_lexicon() -> Path:
    """An English-Spanish dictionary in Wiktionary's format (../shared/data/lexicon), invented:
    the words of the tiny general sets and domains, and of the invented corpus's places."""
    path = _folder("mt-lexicon-") / "en-es.wiktionary.txt"
    lines = [
        "# English :: Spanish dictionary (invented for the tests)",
        "case {n} /keɪs/ (an instance) :: caso {m}, [law] causa {f}",
        "line {n} (a row of text) :: línea {f}",
        "paragraph {n} (a passage) :: párrafo {m}",
        "click {v} (press a button) :: clic {m}, hacer clic",
        "file {n} (a document kept on a computer) :: archivo {m}, fichero {m} [Spain]",
        "station {n} (a stop for trains) :: estación {f}",
        "museum {n} (a building of exhibits) :: museo {m}",
        "bakery {n} (where bread is baked) :: panadería {f}",
        "report {v} (tell of) :: informar",
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@functools.cache
def exported(run: Path) -> Path:
    """The run's int8 `mt export`, made once a test session."""
    from mt.export.writer import export_run

    out = _folder("mt-export-") / "export"
    export_run(resolve(run), out, quantization="int8")
    return out


def prepared_of(run: Path) -> Path:
    """The prepared directory beside conftest's `trained_run` (tiny_run writes both)."""
    return run.parent / "data"
