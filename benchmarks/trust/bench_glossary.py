"""Issue 27: do glossary terms reach the output, and at what cost in BLEU?

    python -m benchmarks.trust.bench_glossary --run bench/run [--export bench/run-ct2] \\
        [--domains ../shared/data/domains]

The term test comes from the LibreOffice help's TEST pages of our split (domain_split.is_test on
the file column): rows of tagged.tsv whose English and Spanish hold as many
`<span class="menuitem">` labels, aligned in order, give the glossary (English label → Spanish
label, the first Spanish wins where one label has two); the sentences are those rows with the tags
stripped, and their Spanish the reference. For each engine (PyTorch on --run, CTranslate2 on
--export) and search (greedy, beam 5) it prints
- terms: the glossary terms found in the sources (mt.decode.glossary matching), and the share whose
  Spanish term is in the output (target ≥ 98%); without the glossary, the share the model gets on
  its own;
- BLEU with and without the glossary (target: not lower);
- the stand-in counts: terms left without a stand-in (more terms in a sentence than stand-ins),
  pieces searched again because the best hypothesis lost one, and pieces translated around their
  terms (no hypothesis held them all, or a term had no stand-in).

`term_test()` and `measure()` are for other scripts (`make bench-trust`). The figures and the two
targets of each row go to --json (benchmarks/harness.py); the exit status is 1 on a miss.
"""

from __future__ import annotations

import html
import re
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import torch

from benchmarks import harness
from benchmarks.harness import Target, report
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig
from mt.decode.glossary import Glossary, Term, in_source_case
from mt.decode.options import TranslateOptions
from mt.decode.results import TermCounts, total
from mt.decode.translator import open_translator
from mt.evaluate.scores import corpus_scores
from mt.recipes.domain_split import is_test

SEARCHES = {"greedy": 1, "beam 5": 5}
_LABEL = re.compile(r'<span class="menuitem">(.*?)</span>')
_TAG = re.compile(r"<[^>]+>")
_EDGES = " -▸\u00a0"  # a label cut at a menu separator: "Format - Merge Cells - "


@dataclass(frozen=True)
class TermTest:
    glossary: Glossary
    sources: list[str]
    references: list[str]


@dataclass(frozen=True)
class Figures:
    terms: int  # glossary terms found in the sources
    in_output: int  # of those, whose Spanish term the output holds
    bleu: float
    counts: TermCounts
    seconds: float


def _plain(text: str) -> str:
    return html.unescape(_TAG.sub("", text))


def term_test(domains: Path) -> TermTest:
    """The glossary and sentences of the LibreOffice help's test pages (see the module notes)."""
    terms: list[Term] = []
    sources, references = [], []
    with (domains / "libreoffice-help" / "tagged.tsv").open(encoding="utf-8") as rows:
        for row in rows:
            english, spanish, page = row.rstrip("\n").split("\t")
            labels = _LABEL.findall(english), _LABEL.findall(spanish)
            if not is_test(page) or not labels[0] or len(labels[0]) != len(labels[1]):
                continue
            for en, es in zip(*labels, strict=True):
                en, es = _plain(en).strip(_EDGES), _plain(es).strip(_EDGES)
                if en and es:
                    terms.append(Term(en, es))
            sources.append(_plain(english).strip())
            references.append(_plain(spanish).strip())
    return TermTest(Glossary(terms, "libreoffice-help menu labels"), sources, references)


def terms_in_output(test: TermTest, outputs: list[str]) -> tuple[int, int]:
    """(terms found in the sources, those whose Spanish term is in the output), any case."""
    found = held = 0
    for source, output in zip(test.sources, outputs, strict=True):
        for match, term in test.glossary.find(source):
            found += 1
            held += in_source_case(term, match.group()).casefold() in output.casefold()
    return found, held


def measure(translator, test: TermTest, *, glossary: bool) -> Figures:
    """Translate the test's sources with or without its glossary and score the outputs."""
    options = replace(translator.options, glossary=test.glossary if glossary else None)
    variant = translator.with_options(options)
    start = time.perf_counter()
    translations = list(variant.translate(test.sources))
    seconds = time.perf_counter() - start
    outputs = [t.text for t in translations]
    found, held = terms_in_output(test, outputs)
    bleu = corpus_scores(outputs, [[ref] for ref in test.references]).bleu
    return Figures(found, held, bleu, total(translations).terms, seconds)


def _report(engine: str, search: str, with_: Figures, without: Figures) -> str:
    c = with_.counts
    return (
        f"{engine:<12} {search:<7} terms {with_.in_output}/{with_.terms} "
        f"({with_.in_output / max(with_.terms, 1):.1%}; without glossary "
        f"{without.in_output / max(without.terms, 1):.1%})  BLEU {with_.bleu:.2f} vs "
        f"{without.bleu:.2f} without  [already there {c.already_there}, no stand-in "
        f"{c.unplaced}, searched again "
        f"{c.searched_again}, translated around {c.translated_around}]  "
        f"{with_.seconds:.1f} s vs {without.seconds:.1f} s"
    )


def main(argv: list[str] | None = None) -> int:
    parser = harness.parser(__spec__.name, __doc__)
    harness.add_run(parser, help="a run (PyTorch)")
    parser.add_argument("--export", type=Path, help="an `mt export` of the run (CTranslate2)")
    harness.add_domains(parser)
    harness.add_out(parser, Path("bench/glossary/results.json"), flag="--json")
    args = parser.parse_args(argv)
    if not (args.domains / "libreoffice-help" / "tagged.tsv").is_file():
        sys.exit(f"{args.domains}/libreoffice-help/tagged.tsv is absent: no term test to build")
    test = term_test(args.domains)
    print(harness.machine_line(torch.get_num_threads()))
    print(f"term test: {len(test.sources)} sentences, {len(test.glossary)} glossary terms")
    engines = {"pytorch": args.run, **({"ctranslate2": args.export} if args.export else {})}
    figures, checks = {}, []
    for engine, directory in engines.items():
        for search, beam in SEARCHES.items():
            config = DecodeConfig(beam_size=beam)
            translator = open_translator(
                resolve(directory), TranslateOptions(decode=config), device="cpu"
            )
            print(f"stand-ins: {', '.join(translator.model.term_stand_ins[:3])}, ...", end="\r")
            with_ = measure(translator, test, glossary=True)
            without = measure(translator, test, glossary=False)
            print(_report(engine, search, with_, without), flush=True)
            row = f"{engine} {search}"
            figures[row] = {"glossary": asdict(with_), "without": asdict(without)}
            checks += [
                Target(f"{row}: terms in the output %",
                       100 * with_.in_output / max(with_.terms, 1), ">=", 98.0),
                Target(f"{row}: BLEU with glossary - without", with_.bleu - without.bleu, ">=", 0),
            ]  # fmt: skip
    return report(args.json, figures, checks, threads=torch.get_num_threads())


if __name__ == "__main__":
    sys.exit(main())
