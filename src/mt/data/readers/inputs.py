"""Which corpora one `mt prepare` reads: TSV/CSV files, line-aligned file pairs (as OPUS ships
them), or a list file; prepare.json counts each corpus.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from mt.data.readers.corpus import CorpusInput
from mt.errors import MtError
from mt.storage.files import listed_lines


def corpus_inputs(
    *,
    files: Sequence[Path],
    source_files: Sequence[Path],
    target_files: Sequence[Path],
    list_file: Path | None,
) -> list[CorpusInput]:
    """The corpora in the order given: files, then pairs (the n-th --source-file with the n-th
    --target-file), then the list file's lines."""
    if len(source_files) != len(target_files):
        raise MtError(
            f"{len(source_files)} --source-file but {len(target_files)} --target-file: give "
            "them in pairs (English file, then its line-aligned Spanish file)"
        )
    inputs = [CorpusInput(path=path) for path in files]
    inputs += [
        CorpusInput(source=source, target=target)
        for source, target in zip(source_files, target_files, strict=True)
    ]
    if list_file is not None:
        inputs += read_corpus_list(list_file)
    if not inputs:
        raise MtError(
            "no corpus given: name a TSV/CSV file, or --source-file X.en --target-file X.es, "
            "or --corpus-list FILE"
        )
    return inputs


def read_corpus_list(path: Path) -> list[CorpusInput]:
    """A list file: one corpus a line, `FILE` or `ENGLISH_FILE<TAB>SPANISH_FILE`; blank lines and
    lines starting with # are skipped; relative paths are relative to the list file."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise MtError(f"corpus list {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise MtError(f"cannot read corpus list {path}: {error}") from None
    inputs = []
    for number, text in listed_lines(lines):
        fields = [field.strip() for field in text.split("\t")]
        if len(fields) > 2 or not all(fields):
            raise MtError(
                f"{path} line {number}: expected FILE or ENGLISH_FILE<TAB>SPANISH_FILE, "
                f"got {text!r}"
            )
        paths = [path.parent / field for field in fields]
        if len(paths) == 1:
            inputs.append(CorpusInput(path=paths[0]))
        else:
            inputs.append(CorpusInput(source=paths[0], target=paths[1]))
    if not inputs:
        raise MtError(f"{path}: no corpus listed")
    return inputs
