"""A prepared directory's token arrays made again from its own TSVs and tokenizers, and held to
the digests prepare.json recorded. A device call carries 64 MiB: the text of the student's data
travels (25 MB in xz) and its arrays, which would not fit beside it, are made where it lands,
byte for byte the arrays `mt prepare` wrote, or a one-line error says which differ.

    python -m mt.data.prepare.rebuild runs/student-data
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from mt.data.prepare.paragraphs import WholeParagraphs
from mt.data.prepare.part_arrays import EncodedPart
from mt.data.prepare.stages import NoStages
from mt.data.prepared_dir import ARRAY_PARTS, PART_FILES, load_prepared
from mt.errors import MtError
from mt.storage.atomic import building_beside
from mt.storage.checksums import file_sha256


def rebuild_arrays(directory: Path) -> list[str]:
    """The array files of train and selection written again; the names of those rewritten.
    Files that already hold their recorded digest are left alone. Each part is built beside the
    directory and moved in only once every file holds its digest, so a refusal or an interruption
    leaves no array that is not the prepared one."""
    prepared = load_prepared(directory)
    recorded = prepared.info.get("token_arrays", {}).get("parts", {})
    written = []
    for part in ARRAY_PARTS:
        entries = recorded.get(part)
        if not entries:
            raise MtError(f"{directory / 'prepare.json'}: no token arrays recorded for {part}")
        digests = _digests(entries)
        if all(_holds(directory / name, digest) for name, digest in digests.items()):
            continue
        with building_beside(directory, doing=f"rebuild-{part}") as building:
            building.mkdir()
            (building / PART_FILES[part]).symlink_to((directory / PART_FILES[part]).resolve())
            encoded = EncodedPart(
                building, part, prepared.source, prepared.target, WholeParagraphs({})
            )
            encoded.run(0, NoStages())
            made = _digests(encoded.entries)
            differ = sorted(name for name, digest in digests.items() if made.get(name) != digest)
            if differ:
                raise MtError(
                    f"{directory}: {', '.join(differ)} made from {part}.tsv differ from what "
                    "prepare.json records; the text or tokenizers are not the ones prepared, "
                    "run `mt prepare` again"
                )
            for name in digests:
                os.replace(building / name, directory / name)
            shutil.rmtree(building)
        written += sorted(digests)
    return written


def _digests(entries: dict[str, Any]) -> dict[str, str]:
    """File name -> sha256 of both sides' array files, from a part's prepare.json entries."""
    return {name: digest for entry in entries.values() for name, digest in entry["sha256"].items()}


def _holds(path: Path, digest: str) -> bool:
    return path.is_file() and file_sha256(path) == digest


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m mt.data.prepare.rebuild PREPARED_DIR", file=sys.stderr)
        return 2
    try:
        written = rebuild_arrays(Path(argv[0]))
    except MtError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(f"{argv[0]}: {len(written)} array files made again, each as prepare.json records it")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
