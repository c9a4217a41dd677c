"""A card's published peers: shown beside, never as, the model's own side-by-side figures."""

from __future__ import annotations

import json

from mt.cards import PUBLISHED_PEERS, render_card
from mt.modelinfo import CARD_JSON, DEFAULT_MODEL, shipped_root


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
        text.index("## Scores: test part")
        < text.index("## Published peers")
        < text.index("## Speed on this machine")
    )


def test_a_card_made_before_the_peers_renders_as_it_did() -> None:
    card = {key: value for key, value in shipped_card().items() if key != "peers"}
    assert "Published peers" not in render_card(card)
    assert "Published peers" in render_card(shipped_card())  # version 8's card has them
