"""Test sets read exactly as given: every line is one segment, in order, duplicates kept, as
published scores count every line. A line that cannot be scored (no tab, an empty side, bad
UTF-8) is an error naming the file and line, or with ``skip_bad`` is left out and counted.

Two forms: one ``english<TAB>spanish[<TAB>ignored]`` file, or line-aligned files, one source and
one or more references.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from mt.data.readers.corpus import BadLine
from mt.errors import MtError
from mt.storage.files import read_text_file

NO_TAB = "no tab between English and Spanish"
EMPTY = "empty line"
EMPTY_SIDE = "empty {side} side"
NOT_UTF8 = "not valid UTF-8"
SKIP_HINT = "(--skip-bad leaves such lines out)"


@dataclass(frozen=True)
class EvaluationSet:
    """Segments to score; ``references[i]`` holds every reference of ``sources[i]``."""

    name: str
    sources: list[str]
    references: list[list[str]]
    skipped: tuple[BadLine, ...] = ()

    def __len__(self) -> int:
        return len(self.sources)

    @classmethod
    def from_pairs(cls, name: str, pairs: list[tuple[str, str]]) -> EvaluationSet:
        """One segment per pair with its one reference (a run's own prepared parts)."""
        return cls(name, [en for en, _ in pairs], [[es] for _, es in pairs])

    def head(self, limit: int | None) -> EvaluationSet:
        if limit is None:
            return self
        return EvaluationSet(self.name, self.sources[:limit], self.references[:limit], self.skipped)

    def pairs(self) -> list[tuple[str, str]]:
        """Every (source, reference) pair: what the teacher-forced metrics are computed on."""
        return [
            (src, ref)
            for src, refs in zip(self.sources, self.references, strict=True)
            for ref in refs
        ]

    def reference_count(self) -> int:
        return max((len(refs) for refs in self.references), default=0)

    def grouped(self) -> OrderedDict[str, list[str]]:
        """Source sentence -> all references of every segment with it, in first-seen order."""
        groups: OrderedDict[str, list[str]] = OrderedDict()
        for src, refs in zip(self.sources, self.references, strict=True):
            groups.setdefault(src, []).extend(refs)
        return groups


def read_tsv_set(path: Path, *, skip_bad: bool = False, reverse: bool = False) -> EvaluationSet:
    """``english<TAB>spanish`` lines; columns after the second (an attribution) are ignored.
    `reverse` (a Spanish→English model): the Spanish is the source, the English the reference."""
    sources: list[str] = []
    references: list[list[str]] = []
    bad: list[BadLine] = []
    for number, line in enumerate(_lines(path), 1):
        reason = _tsv_problem(line)
        if reason is not None:
            bad.append(BadLine(str(path), number, reason))
            continue
        english, spanish = line.split("\t", 2)[:2]
        sources.append(spanish if reverse else english)
        references.append([english if reverse else spanish])
    return _finish(str(path), sources, references, bad, skip_bad)


def read_aligned_set(
    source: Path, references: list[Path], *, skip_bad: bool = False
) -> EvaluationSet:
    """Line i of the source file and line i of every reference file form segment i."""
    if not references:
        raise MtError("--src needs at least one --ref file")
    files = [source, *references]
    columns = [_lines(path) for path in files]
    counts = [len(lines) for lines in columns]
    if len(set(counts)) > 1:
        listed = ", ".join(f"{path} {n:,}" for path, n in zip(files, counts, strict=True))
        raise MtError(f"line counts differ ({listed}); the files must be line-aligned")
    kept_sources: list[str] = []
    kept_references: list[list[str]] = []
    bad: list[BadLine] = []
    for index, row in enumerate(zip(*columns, strict=True)):
        problem = next(
            (
                BadLine(str(path), index + 1, NOT_UTF8 if text is None else EMPTY)
                for path, text in zip(files, row, strict=True)
                if text is None or not text.strip()
            ),
            None,
        )
        if problem is not None:
            bad.append(problem)
            continue
        kept_sources.append(row[0])
        kept_references.append(list(row[1:]))
    return _finish(str(source), kept_sources, kept_references, bad, skip_bad)


def _tsv_problem(line: str | None) -> str | None:
    if line is None:
        return NOT_UTF8
    if not line.strip():
        return EMPTY
    if "\t" not in line:
        return NO_TAB
    english, spanish = line.split("\t", 2)[:2]
    if not english.strip():
        return EMPTY_SIDE.format(side="English")
    if not spanish.strip():
        return EMPTY_SIDE.format(side="Spanish")
    return None


def _finish(
    name: str,
    sources: list[str],
    references: list[list[str]],
    bad: list[BadLine],
    skip_bad: bool,
) -> EvaluationSet:
    if bad and not skip_bad:
        more = f" and {len(bad) - 1:,} more bad lines" if len(bad) > 1 else ""
        raise MtError(f"{bad[0]}{more} {SKIP_HINT}")
    if not sources:
        raise MtError(f"{name}: no line to score ({len(bad):,} bad)")
    return EvaluationSet(name, sources, references, tuple(bad))


def _lines(path: Path) -> list[str | None]:
    """The file's lines without their line ending (``\\n`` or ``\\r\\n``), split on ``\\n``
    only as the ``sacrebleu`` command reads files; None where not UTF-8."""
    data = read_text_file(path, what="test file")
    raw_lines = data.split(b"\n")
    if raw_lines[-1] == b"":
        raw_lines.pop()  # the final newline ends the last line, it does not start another
    lines: list[str | None] = []
    for raw in raw_lines:
        try:
            lines.append(raw.removesuffix(b"\r").decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(None)
    return lines
