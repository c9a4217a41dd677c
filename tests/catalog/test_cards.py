"""A shipped model's card as people read it (README.md, made by render_card from card.json): a short
title, a three-sentence summary, the tables with the benchmark files' figures, the lineage as a
table, one page; the published peers shown beside, never as, the model's own figures."""

from __future__ import annotations

import json
import re

import pytest

from mt.catalog.cards import (
    CARD_LINES,
    PUBLISHED_PEERS,
    SCORES,
    TITLE_CHARACTERS,
    lineage,
    render_card,
)
from mt.catalog.modelinfo import CARD_JSON, CARD_MD, DEFAULT_MODEL, shipped_root


def shipped_card() -> dict:
    return json.loads((shipped_root() / DEFAULT_MODEL / CARD_JSON).read_text(encoding="utf-8"))


def test_the_peers_table_names_its_sets_source_and_that_they_are_not_the_test_parts() -> None:
    card = {**shipped_card(), "peers": json.loads(json.dumps(PUBLISHED_PEERS))}  # as card.json
    text = render_card(card)
    assert "## Published peers (BLEU; not this card's test sets)" in text
    assert "| translator | FLORES-200 devtest | newstest2013 |" in text
    assert "| Argos Translate (LibreTranslate's engine) | 23.3 | 31.9 |" in text
    assert "| Firefox Translations, en-es student (bergamot-tiny) | 26.2 | 34.8 |" in text
    assert "87961cea2855b80b140bb4f65c34b0a903577036" in text
    assert "not this card's test parts" in text
    # after the model's own scores, before its speed
    assert (
        text.index("## Scores (")
        < text.index("## Published peers")
        < text.index("## Known weaknesses")
    )


def test_a_card_made_before_the_peers_renders_as_it_did() -> None:
    card = {key: value for key, value in shipped_card().items() if key != "peers"}
    assert "Published peers" not in render_card(card)
    assert "Published peers" in render_card(shipped_card())  # version 8's card has them


def test_the_dev_curve_is_a_row_with_its_plot_and_none_on_a_card_made_before_it() -> None:
    curve = {"note": "BLEU every CPU-hour", "sets": ["news"], "points": [[0.0, 0, 9.35]]}
    text = render_card({**shipped_card(), "curve": curve})
    assert "| dev curve (BLEU every CPU-hour) | ![dev curve](dev-curve.png) |" in text
    older = {key: value for key, value in shipped_card().items() if key != "curve"}
    assert "dev curve" not in render_card(older)


def test_the_shipped_card_is_one_page_with_a_short_title_and_a_three_sentence_summary() -> None:
    text = (shipped_root() / DEFAULT_MODEL / CARD_MD).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= CARD_LINES
    assert lines[0].startswith(f"# {DEFAULT_MODEL}: ") and len(lines[0]) <= TITLE_CHARACTERS
    summary = lines[2]
    assert 1 <= len(re.findall(r"[.!?](?:\s+(?=[A-Z])|$)", summary)) <= 3, summary
    for heading in ("## Model, compute and speed", "## Data and licences", "## Scores (",
                    "## Published peers", "## Known weaknesses", "## Lineage"):  # fmt: skip
        assert f"\n{heading}" in text, heading
    assert "| corpus | pairs | source | licence |" in text
    assert "| weakness | for example |" in text


def test_a_title_over_its_length_is_refused() -> None:
    card = shipped_card()
    card["name"] = "en-es-" + "x" * TITLE_CHARACTERS
    with pytest.raises(ValueError, match="title is over 100 characters"):
        render_card(card)


def test_the_summary_quotes_the_test_part_beside_apertium_and_the_compute() -> None:
    card = shipped_card()
    folder = shipped_root() / DEFAULT_MODEL
    test = json.loads((folder / SCORES["test"]).read_text(encoding="utf-8"))["figures"]["sets"]
    gaps = [found["mt"]["bleu"] - found["apertium"]["bleu"] for found in test.values()]
    summary = render_card(card).splitlines()[2]
    ahead = sum(gap > 0 for gap in gaps)
    assert f"ahead of Apertium on {ahead} of {len(gaps)} sets" in summary
    assert f"by {min(gaps):+.1f} to {max(gaps):+.1f} BLEU" in summary
    hours = card["compute"]["CPU-hours, with the versions it continues"]
    assert f"trained in {hours} CPU-hours" in summary
    assert card["speed"]['`mt translate "…"`, cold (median of 3)'] in summary


def test_every_score_in_the_table_is_the_benchmark_files() -> None:
    folder = shipped_root() / DEFAULT_MODEL
    text = (folder / CARD_MD).read_text(encoding="utf-8")
    for part, name in SCORES.items():
        for found in json.loads((folder / name).read_text(encoding="utf-8"))["figures"][
            "sets"
        ].values():
            mt, apertium = found["mt"], found["apertium"]
            cells = (
                f"| {found['pairs']:,} | {mt['bleu']:.1f} / {mt['chrf']:.1f} "
                f"| {apertium['bleu']:.1f} / {apertium['chrf']:.1f} |"
            )
            assert cells in text, (part, cells)


def test_the_lineage_is_one_row_a_version_with_its_commands() -> None:
    card = {
        **shipped_card(),
        "recipe": [
            "make model     # version 1: from nothing",
            "mt train a --init-from en-es-general-1   # version 2, 2 CPU cores",
            "cp a b   # versions 3 to 4: the tables again",
            "mkdir runs/v5 && cp x|y runs/v5/   # version 5: a new rule",
            "make release RELEASE_RUN=runs/v5 RELEASE_NAME=en-es-general-5   # scored",
        ],
    }
    assert lineage(card) == [
        ("1", "`make model`", "from nothing"),
        ("2", "`mt train a --init-from en-es-general-1`", "2 CPU cores"),
        ("3 to 4", "`cp a b`", "the tables again"),
        (
            "5",
            "`mkdir runs/v5 && cp x\\|y runs/v5/`; then "
            "`make release RELEASE_RUN=runs/v5 RELEASE_NAME=en-es-general-5`",
            "a new rule; scored",
        ),
    ]
    shipped = lineage(shipped_card())
    assert [row[0] for row in shipped][:4] == ["1", "2", "3", "4 to 6"]
    assert shipped[-1][0] == DEFAULT_MODEL.rsplit("-", 1)[-1]
