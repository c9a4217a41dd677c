"""The bilingual dictionary of ../shared/data/lexicon from its downloads, as its README says it
was made: open-dsl-dict/wiktionary-dict's two files byte for byte, under the names `mt translate
--dictionary FILE` is pointed at (`lexicon/en-es.wiktionary.txt`, `lexicon/es-en.wiktionary.txt`).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from mt.errors import MtError

WIKTIONARY_FILES = {
    "src/en-es-enwiktionary.txt": "lexicon/en-es.wiktionary.txt",
    "src/es-en-enwiktionary.txt": "lexicon/es-en.wiktionary.txt",
}
"""The file's path in the repository -> its path under the data root."""


def wiktionary(downloads: Sequence[Path], root: Path) -> None:
    """Each download, named as in the repository, copied to its place; any other is an error
    rather than a file under a dictionary's name."""
    placed = {PurePosixPath(path).name: out for path, out in WIKTIONARY_FILES.items()}
    for download in downloads:
        if download.name not in placed:
            raise MtError(f"{download}: not one of the dictionary's files ({', '.join(placed)})", 1)
        target = root / placed[download.name]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(download, target)
