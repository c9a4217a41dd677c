"""`make bench-formats`: documents translated with their markup, on the shared development data.

    python -m benchmarks.text.bench_formats --run runs/demo [--export runs/demo-export]
        [--domains ../shared/data/domains] [--limit 500] [--pages 100] [--po-files 10]

On seeded samples of the LibreOffice help's tagged segments (HTML), tldr pages (Markdown) and
python-docs-es files (.po), read in place, it prints for each:
- markup preserved: the output's tags (or Markdown line kinds, code spans and link targets) equal
  the input's and are well formed (target 100 %);
- tags placed: the share of the output's tags whose wrapped words match the reference's wrapped
  words (F1 >= 0.5 over lower-cased words, tags paired by name, class and order);
- protected spans (code, URLs, placeholders, entities) copied exactly once (target 100 %);
- BLEU of the output with markup stripped, and of translating the stripped source directly
  (the markup costs at most 1.0 BLEU);
- `msgfmt --check --use-fuzzy` on every translated .po file;
- segments per second as documents and as plain text.
With --export (the run's `mt export`), the same for the export, and a row for each beside the
other: an export places tags with CTranslate2's attention, and the bench fails where its tags
placed fall more than EXPORT_MARGIN points below the run's.
The figures and targets go to --json (benchmarks/harness.py: with the machine, commit, date and
command); the exit status is 1 when a target is missed (markup preserved, protected spans copied
and msgfmt passing on every file; the markup costing at most 1.0 BLEU; the export's tags).
Translated files are written in a temporary directory only.
"""

from __future__ import annotations

import collections
import html
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import polib
import torch
from rich.console import Console
from rich.table import Table

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.decode.documents import html as html_format
from mt.decode.documents import markdown, po
from mt.decode.documents.align import aligner_for
from mt.decode.documents.document import translated_units
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores

EXPORT_MARGIN = 2.0
"""Points of "tags placed %" an export may lose against its run: int8 weights change some
translations (and so the words a tag can wrap), not where attention puts it."""
TAG = re.compile(r"<(/?)([a-zA-Z][\w-]*)([^>]*)>")
VOID = {"br", "img", "hr", "input", "meta", "link", "wbr"}
TRANSLATED_ATTRIBUTE = re.compile(r"""\s(?:alt|title)\s*=\s*("[^"]*"|'[^']*')""")


def strip_markup(text: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", text)).split())


def tags_of(text: str) -> collections.Counter:
    """The tags as written, alt and title values aside (they are translated)."""
    return collections.Counter(
        TRANSLATED_ATTRIBUTE.sub(" alt", m.group()) for m in TAG.finditer(text)
    )


def well_formed(text: str) -> bool:
    stack: list[str] = []
    for match in TAG.finditer(text):
        closing, name = match.group(1), match.group(2).lower()
        if name in VOID or match.group().endswith("/>"):
            continue
        if not closing:
            stack.append(name)
        elif not stack or stack.pop() != name:
            return False
    return not stack


def wrapped(text: str) -> list[tuple[str, set[str]]]:
    """(name and class, lower-cased words inside) for every element with a close, in order."""
    found, stack = [], []
    for match in TAG.finditer(text):
        closing, name, attributes = match.groups()
        if name.lower() in VOID:
            continue
        if not closing:
            kind = re.search(r'class="([^"]*)"', attributes)
            stack.append((f"{name}.{kind.group(1) if kind else ''}", match.end()))
        elif stack:
            key, start = stack.pop()
            words = set(re.findall(r"\w+", strip_markup(text[start : match.start()]).lower()))
            found.append((key, words))
    return found


def placed_right(output: str, reference: str) -> tuple[int, int]:
    """(tags whose words match the reference's, tags compared)."""
    ours, theirs = collections.defaultdict(list), collections.defaultdict(list)
    for key, words in wrapped(output):
        ours[key].append(words)
    for key, words in wrapped(reference):
        theirs[key].append(words)
    right = compared = 0
    for key, mine in ours.items():
        for a, b in zip(mine, theirs.get(key, []), strict=False):
            if not b:
                continue
            compared += 1
            overlap = len(a & b)
            right += bool(overlap) and 2 * overlap / (len(a) + len(b)) >= 0.5
    return right, compared


def kept_once(units, texts: list[str]) -> tuple[int, int]:
    """(protected spans found exactly once in their unit's output, protected spans)."""
    good = total = 0
    for unit, text in zip(units, texts, strict=True):
        for _, original in unit.kept:
            total += 1
            good += text.count(original) >= 1
    return good, total


def bleu(hypotheses: list[str], references: list[str]) -> float:
    return corpus_scores(hypotheses, [[r] for r in references]).bleu


def translate_units(units, translator) -> list[str]:
    """Every unit in one Translator call (no piece is smaller than all of them), with its markup."""
    aligner = aligner_for(translator)
    return list(translated_units(units, translator, aligner, piece_chars=sys.maxsize))


def timed(function):
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


def translate_documents(documents, translator) -> tuple[list[str], list, list[str], float]:
    """Every unit of every document in one Translator call (as mt translate does for one
    document), then each document rendered with its own translations."""
    units = [unit for document in documents for unit in document.units]
    texts, seconds = timed(lambda: translate_units(units, translator))
    outputs, start = [], 0
    for document in documents:
        outputs.append(document.render(texts[start : start + len(document.units)]))
        start += len(document.units)
    return outputs, units, texts, seconds


def bench_libreoffice(translator, rows: list[list[str]]) -> dict[str, float]:
    documents = [html_format.parse(en, name="tagged.tsv") for en, _, _ in rows]
    outputs, units, texts, seconds = translate_documents(documents, translator)
    stripped = [strip_markup(en) for en, _, _ in rows]
    direct, direct_seconds = timed(lambda: [t.text for t in translator.translate(stripped)])
    references = [strip_markup(es) for _, es, _ in rows]
    preserved = sum(
        tags_of(out) == tags_of(en) and well_formed(out)
        for out, (en, _, _) in zip(outputs, rows, strict=True)
    )
    pairs = [placed_right(out, es) for out, (_, es, _) in zip(outputs, rows, strict=True)]
    right, compared = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
    good, total = kept_once(units, texts)
    return {
        "segments": len(rows),
        "markup preserved %": 100 * preserved / len(rows),
        "tags placed %": 100 * right / max(compared, 1),
        "protected copied %": 100 * good / max(total, 1),
        "BLEU stripped output": bleu([strip_markup(o) for o in outputs], references),
        "BLEU direct": bleu(direct, references),
        "segments/s documents": len(rows) / seconds,
        "segments/s plain": len(rows) / direct_seconds,
    }


MARKDOWN_LINE = re.compile(r"^(#|>|- |`)")
CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"\]\([^)]*\)|<https?://[^>]*>")


def bench_tldr(translator, pages: list[tuple[str, str]]) -> dict[str, float]:
    documents = [markdown.parse(en, name="tldr") for en, _ in pages]
    outputs, units, texts, seconds = translate_documents(documents, translator)
    preserved = sum(_same_markdown(out, en) for out, (en, _) in zip(outputs, pages, strict=True))
    hypotheses, references, sources = [], [], []
    for out, (en, es) in zip(outputs, pages, strict=True):
        if len(en.splitlines()) != len(es.splitlines()):
            continue
        for o, e, s in zip(out.splitlines(), en.splitlines(), es.splitlines(), strict=True):
            if e.startswith(("> ", "- ")):
                hypotheses.append(strip_markup(o[2:]))
                sources.append(strip_markup(e[2:]))
                references.append(strip_markup(s[2:]))
    direct, direct_seconds = timed(lambda: [t.text for t in translator.translate(sources)])
    good, total = kept_once(units, texts)
    return {
        "segments": len(units),
        "markup preserved %": 100 * preserved / len(pages),
        "protected copied %": 100 * good / max(total, 1),
        "BLEU stripped output": bleu(hypotheses, references),
        "BLEU direct": bleu(direct, references),
        "segments/s documents": len(units) / seconds,
        "segments/s plain": len(sources) / max(direct_seconds, 1e-9),
    }


def _same_markdown(output: str, source: str) -> bool:
    """Same lines of the same kinds, the same code spans and link targets."""
    lines, before = output.splitlines(), source.splitlines()
    kinds = [MARKDOWN_LINE.match(line) and MARKDOWN_LINE.match(line).group() for line in lines]
    return (
        len(lines) == len(before)
        and kinds == [MARKDOWN_LINE.match(x) and MARKDOWN_LINE.match(x).group() for x in before]
        and sorted(CODE.findall(output)) == sorted(CODE.findall(source))
        and sorted(LINK.findall(output)) == sorted(LINK.findall(source))
    )


def bench_po(translator, files: list[Path]) -> dict[str, float]:
    """Every entry of each file retranslated (--overwrite), scored against its own msgstr."""
    passed = segments = 0
    seconds = direct_seconds = 0.0
    hypotheses, references, direct, good, total = [], [], [], 0, 0
    with tempfile.TemporaryDirectory() as folder:
        for path in files:
            text = path.read_text(encoding="utf-8")
            document = po.parse(text, name=str(path), overwrite=True)
            texts, spent = timed(lambda d=document: translate_units(d.units, translator))
            seconds += spent
            segments += len(document.units)
            found, count = kept_once(document.units, texts)
            good, total = good + found, total + count
            out = Path(folder) / path.name
            out.write_text(document.render(texts), encoding="utf-8")
            check = ["msgfmt", "--check", "--use-fuzzy", "-o", "/dev/null", str(out)]
            passed += subprocess.run(check, capture_output=True).returncode == 0
            pairs = [
                (entry.msgid, entry.msgstr, translated.msgstr)
                for entry, translated in zip(
                    polib.pofile(text), polib.pofile(str(out)), strict=True
                )
                if entry.msgstr
                and not entry.fuzzy
                and not entry.obsolete
                and not entry.msgid_plural
            ]
            plain, spent = timed(
                lambda p=pairs: [t.text for t in translator.translate(x[0] for x in p)]
            )
            direct_seconds += spent
            direct += plain
            references += [reference for _, reference, _ in pairs]
            hypotheses += [ours for _, _, ours in pairs]
    return {
        "segments": segments,
        "protected copied %": 100 * good / max(total, 1),
        "msgfmt --check passes %": 100 * passed / len(files),
        "BLEU stripped output": bleu(hypotheses, references),
        "BLEU direct": bleu(direct, references),
        "segments/s documents": segments / max(seconds, 1e-9),
        "segments/s plain": len(direct) / max(direct_seconds, 1e-9),
    }


def samples(domains: Path, seed: int, limit: int, pages: int, po_files: int):
    rng = random.Random(seed)
    tagged = domains / "libreoffice-help" / "tagged.tsv"
    rows = [line.rstrip("\n").split("\t") for line in tagged.open(encoding="utf-8")]
    english = sorted((domains / "tldr" / "en").glob("*/*.md"))
    paired = [
        p
        for p in english
        if (domains / "tldr" / "es" / p.relative_to(domains / "tldr" / "en")).is_file()
    ]
    chosen_pages = [
        (
            p.read_text(encoding="utf-8"),
            (domains / "tldr" / "es" / p.relative_to(domains / "tldr" / "en")).read_text(
                encoding="utf-8"
            ),
        )
        for p in rng.sample(paired, min(pages, len(paired)))
    ]
    small = [
        p for p in sorted((domains / "python-docs-es").rglob("*.po")) if p.stat().st_size < 40_000
    ]
    return (
        rng.sample(rows, min(limit, len(rows))),
        chosen_pages,
        rng.sample(small, min(po_files, len(small))),
    )


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser, help="a run (PyTorch)")
    parser.add_argument("--export", type=Path, help="the run's `mt export`, benched beside it")
    harness.add_domains(parser)
    harness.add_limit(parser, 500, help="LibreOffice segments")
    parser.add_argument("--pages", type=int, default=100, help="tldr pages")
    parser.add_argument("--po-files", type=int, default=10)
    harness.add_beam(parser, 5, flag="--beam-size")
    harness.add_device(parser)
    parser.add_argument("--seed", type=int, default=1)
    harness.add_out(parser, Path("bench/formats/results.json"), flag="--json")
    args = parser.parse_args(argv)
    chosen = samples(args.domains, args.seed, args.limit, args.pages, args.po_files)
    console = Console()
    models = {"run": args.run} if args.export is None else {"run": args.run, "export": args.export}
    benched = {name: bench_model(path, chosen, args, console) for name, path in models.items()}
    console.print(harness.machine_line(torch.get_num_threads()))
    checks = [target for name, results in benched.items() for target in targets(name, results)]
    if args.export is not None:
        console.print(side_by_side(benched))
        run, export = (benched[name]["LibreOffice (HTML)"]["tags placed %"] for name in models)
        name = "export's LibreOffice tags placed % minus the run's"
        checks.append(Target(name, export - run, ">=", -EXPORT_MARGIN))
    return report(args.json, benched, checks, threads=torch.get_num_threads())


FULL = ("markup preserved %", "protected copied %", "msgfmt --check passes %")
"""Figures whose target is 100: markup and protected spans kept, every .po file valid."""
MARKUP_COST = 1.0
"""BLEU the markup may cost: direct translation of the stripped source minus the output's."""


def targets(model: str, results: dict[str, dict[str, float]]) -> list[Target]:
    """The stated targets of one model's figures (docs/documents.md)."""
    found = []
    for form, figures in results.items():
        found += [Target(f"{model} {form} {key}", figures[key], ">=", 100.0)
                  for key in FULL if key in figures]  # fmt: skip
        cost = figures["BLEU direct"] - figures["BLEU stripped output"]
        found.append(Target(f"{model} {form} BLEU the markup costs", cost, "<=", MARKUP_COST))
    return found


def bench_model(path: Path, chosen, args, console: Console) -> dict[str, dict[str, float]]:
    """Every format on one model directory (a run or an export); prints its table."""
    translator = open_translator(
        resolve(path),
        TranslateOptions(decode=DecodeConfig(beam_size=args.beam_size)),
        device=args.device,
    )
    rows, pages, files = chosen
    results = {
        "LibreOffice (HTML)": bench_libreoffice(translator, rows),
        "tldr (Markdown)": bench_tldr(translator, pages),
        "python-docs-es (.po)": bench_po(translator, files),
    }
    aligner = type(aligner_for(translator)).__name__
    table = Table(title=f"mt documents: {path}, beam {args.beam_size}, {aligner}")
    table.add_column("figure")
    for name in results:
        table.add_column(name, justify="right")
    figures = list(dict.fromkeys(key for result in results.values() for key in result))
    for figure in figures:
        table.add_row(figure, *(_cell(result.get(figure)) for result in results.values()))
    console.print(table)
    return results


SIDE_BY_SIDE = (
    ("LibreOffice (HTML)", "tags placed %"),
    ("LibreOffice (HTML)", "markup preserved %"),
    ("LibreOffice (HTML)", "BLEU stripped output"),
    ("tldr (Markdown)", "BLEU stripped output"),
    ("python-docs-es (.po)", "BLEU stripped output"),
)


def side_by_side(benched: dict[str, dict[str, dict[str, float]]]) -> Table:
    """The figures that tell whether an export places markup as its run does, a row each."""
    table = Table(title="run and export")
    table.add_column("model")
    for form, figure in SIDE_BY_SIDE:
        table.add_column(f"{form.split()[0]} {figure}", justify="right")
    for name, results in benched.items():
        table.add_row(name, *(_cell(results[form][figure]) for form, figure in SIDE_BY_SIDE))
    return table


def _cell(value) -> str:
    if value is None:
        return "–"
    return f"{value:,.0f}" if float(value).is_integer() and value > 10 else f"{value:,.1f}"


if __name__ == "__main__":
    sys.exit(main())
