"""mt.recipes.general_split and model_parts.py: TICO-19 and XQuAD split by document into three
disjoint parts, FLORES only tested, and the held-out files `make model` gives `mt prepare`.
Built on a small invented copy of the shared general data's layout."""

from __future__ import annotations

from pathlib import Path

import pytest

from mt.recipes import general_split, model_parts
from tests.bench_support import write_general


@pytest.fixture
def general(tmp_path: Path) -> Path:
    return write_general(tmp_path / "general")


@pytest.mark.parametrize("name", ["tico", "xquad"])
def test_three_disjoint_parts_by_document_that_use_every_pair(general: Path, name: str) -> None:
    parts = general_split.split_parts(name, general)
    documents = [{pair.document for pair in part} for part in parts]
    assert all(documents)
    train, dev, test = documents
    assert not (train & dev or train & test or dev & test)
    assert sum(len(part) for part in parts) == {"tico": 100, "xquad": 80}[name]
    assert parts == general_split.split_parts(name, general), "not the same on every run"


def test_a_question_stays_with_its_context(general: Path) -> None:
    questions = [
        pair
        for part in general_split.split_parts("xquad", general)
        for pair in part
        if pair.english.startswith("Why ")
    ]
    assert questions
    for pair in questions:
        context = pair.english.removeprefix("Why ").split(".")[0]
        assert pair.document == context


def test_flores_is_only_tested_and_stripped(general: Path) -> None:
    parts = general_split.split_parts("flores", general)
    assert not parts.train and not parts.dev and len(parts.test) == 10
    assert parts.test[0].spanish == "Línea 0 aquí."


def test_held_out_files_take_every_dev_part_and_the_whole_tests(
    general: Path, tmp_path: Path
) -> None:
    tatoeba = tmp_path / "tatoeba"
    tatoeba.mkdir()
    for part in ("selection", "test"):
        rows = "".join(f"{part} {i}.\t{part} {i}.\n" for i in range(1500))
        (tatoeba / f"{part}.tsv").write_text(rows, encoding="utf-8")
    split = tmp_path / "split"
    for name in general_split.SETS:
        general_split.write_parts(split, name, general_split.split_parts(name, general))
    selection, test = model_parts.held_out(tatoeba, [split, tmp_path / "absent"])
    dev_pairs = sum(len(general_split.pairs_of(general, n, "dev")) for n in ("tico", "xquad"))
    assert len(selection) == model_parts.SELECTION_TATOEBA + dev_pairs
    whole = sum(len(general_split.pairs_of(general, n, "test")) for n in general_split.SETS)
    assert len(test) == model_parts.TEST_TATOEBA + whole
    assert not {english for english, _ in selection} & {english for english, _ in test}
