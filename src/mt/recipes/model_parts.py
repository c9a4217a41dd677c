"""The held-out files `make model` gives `mt prepare --selection/--test`, so that the English of
both stays out of training: selection.tsv (SELECTION_TATOEBA Tatoeba pairs and SELECTION_EACH of
every dev part) and test.tsv (TEST_TATOEBA Tatoeba pairs and every general test part).

    python -m mt.recipes.model_parts --tatoeba runs/tatoeba-split --split runs/model-split \
        --general runs/model-general --out runs/model-parts
"""

from __future__ import annotations

import argparse
from pathlib import Path

from mt.data.prepared_dir import read_pairs
from mt.storage.atomic import atomic_write_text

SELECTION_TATOEBA = 1000
SELECTION_EACH = 500
TEST_TATOEBA = 1000
WHOLE_TESTS = ("news", "tico", "xquad", "flores")


def held_out(tatoeba: Path, splits: list[Path]) -> tuple[list, list]:
    """(selection pairs, test pairs); a split directory that is absent gives none."""
    selection = read_pairs(tatoeba / "selection.tsv")[:SELECTION_TATOEBA]
    test = read_pairs(tatoeba / "test.tsv")[:TEST_TATOEBA]
    for split in splits:
        for path in sorted((split / "dev").glob("*.tsv")):
            selection += read_pairs(path)[:SELECTION_EACH]
        for path in sorted((split / "test").glob("*.tsv")):
            if path.stem in WHOLE_TESTS:
                test += read_pairs(path)
    return selection, test


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tatoeba", type=Path, required=True, help="Tatoeba prepared alone")
    parser.add_argument("--split", type=Path, default=Path("runs/model-split"))
    parser.add_argument("--general", type=Path, default=Path("runs/model-general"))
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    selection, test = held_out(args.tatoeba, [args.split, args.general])
    args.out.mkdir(parents=True, exist_ok=True)
    for name, pairs in (("selection", selection), ("test", test)):
        text = "".join(f"{english}\t{spanish}\n" for english, spanish in pairs)
        atomic_write_text(args.out / f"{name}.tsv", text)
        print(f"{args.out / name}.tsv: {len(pairs):,} pairs")


if __name__ == "__main__":
    main()
