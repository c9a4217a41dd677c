"""benchmarks/quality/bench_general.py's peer: one pass of the lines through a command, one line
back per line in, and a command that returns fewer lines or fails is stopped with a one-line
reason. Its words (issue 66): the same dictionary-attested words asked of both systems, on the
tiny sets with an invented dictionary."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from bench_support import prepared_of, run_main, tiny_domains, tiny_general, tiny_lexicon
from benchmarks.quality import bench_general
from mt.catalog.cards import scores_from

pytestmark = pytest.mark.usefixtures("torch_threads")


def test_each_line_comes_back_in_order_with_its_spacing_collapsed() -> None:
    lines = ["The  cat sat.", "A dog\tran.", "Third."]
    assert bench_general.apertium(lines, "tr a-z A-Z") == ["THE CAT SAT.", "A DOG RAN.", "THIRD."]


@pytest.mark.parametrize("command", ["head -n 1", "false"])
def test_a_peer_that_loses_lines_or_fails_stops_the_benchmark(command: str) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench_general.apertium(["One.", "Two.", "Three."], command)
    assert command.split()[0] in str(stopped.value)


def test_the_words_carried_are_counted_on_the_same_words_for_both_systems(
    tmp_path: Path, trained_run: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_main(
        bench_general.main, "--run", trained_run, "--tatoeba", prepared_of(trained_run),
        "--general", tiny_general(), "--domains", tiny_domains(), "--lexicon", tiny_lexicon(),
        "--limit", 3, "--beam", 1, "--apertium", "sed s/Case/caso/", "--threads", 1,
        "--out", tmp_path,
    )  # fmt: skip
    document = json.loads((tmp_path / "test.json").read_text(encoding="utf-8"))
    sets = document["figures"]["sets"]
    assert all(set(found["words"]) == {"never", "1-9", "10+"} for found in sets.values())
    # Each tico line, "Case N was reported." -> "Se informó el caso N.", attests "case", which the
    # invented corpus never has; the peer writes "caso" for it. "reported" is not attested: the
    # dictionary's "informar" is not undone from "informó".
    tico = sets["tico"]["words"]
    assert tico["never"]["words"] == 3 and tico["1-9"]["words"] == tico["10+"]["words"] == 0
    assert tico["never"]["apertium"] == {"carried": 3, "share": 1.0}
    assert 0 <= tico["never"]["mt"]["carried"] <= 3
    # flores' "Line N here." -> "Línea N aquí.": the peer copies "Line", which is not "línea"
    assert sets["flores"]["words"]["never"]["apertium"] == {"carried": 0, "share": 0.0}
    names = [target["name"] for target in document["targets"]]
    assert "flores: never-seen words carried, mt - Apertium" in names
    assert "dictionary-attested words carried" in capsys.readouterr().out
    # the card (make release's `ship card`) keeps them in its scores (scores-test.json)
    shipped = Path(str(resources.files("mt"))) / "shipped"
    card = json.loads(next(shipped.glob("*/card.json")).read_text(encoding="utf-8"))
    card["scores"]["test"] = scores_from(document)
    assert card["scores"]["test"]["sets"]["tico"]["words"] == tico


def test_the_never_seen_margin_is_in_points_and_absent_without_such_words() -> None:
    def row(words: int, mt: float | None, apertium: float | None) -> dict:
        never = {"words": words, "mt": {"share": mt}, "apertium": {"share": apertium}}
        return {"words": {"never": never}}

    assert bench_general.never_margin(row(4, 0.25, 0.75)) == pytest.approx(-50.0)
    assert bench_general.never_margin(row(0, None, None)) is None
    assert bench_general.never_margin({"pairs": 3}) is None, "no lexicon: no words"
