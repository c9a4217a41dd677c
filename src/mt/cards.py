"""A shipped model's card: card.json, whose figures are copied from the JSON files the benchmarks
wrote (kept beside it), and README.md, the same card rendered for people by `render_card`.

The form follows OPUS-MT's model READMEs and Hugging Face's model cards: what the model is, the
data with sources, sizes and licences, the recipe and compute, scores beside a peer on the same
lines, speed, known weaknesses with real examples, and how to reproduce it. tests/test_shipped.py
checks that every figure in card.json is the one in the benchmark files, and that README.md is
what render_card makes of card.json.
"""

from __future__ import annotations

from typing import Any

SCORES = {"dev": "scores-dev.json", "test": "scores-test.json"}
"""The benchmark files (`make bench-general` on the shipped model) a card's scores come from."""
SPEED = "speed.json"
"""bench_shipped.py's file (`make bench-shipped`): the start-up a person feels."""
SET_NAMES = {
    "flores": "FLORES-200 dev (Wikipedia-style)",
    "news": "newssyscomb2009 (WMT news)",
    "tico": "TICO-19 (health)",
    "xquad": "XQuAD (Wikipedia paragraphs)",
    "tatoeba": "Tatoeba (everyday sentences)",
    "python-docs": "Python docs (.po)",
    "tldr": "tldr pages",
    "libreoffice": "LibreOffice help",
    "news-500": "news sample (500)",
}
DEV_NAMES = {"news": "news-test2008 (WMT news)", "tatoeba": "Tatoeba selection part"}
"""Where the dev part's set is another than the test part's of the same name."""
PUBLISHED_PEERS: dict[str, Any] = {
    "source": "mozilla/firefox-translations-models, evaluation/bleu-results.json, en-es, at "
    "commit 87961cea2855b80b140bb4f65c34b0a903577036 (sacreBLEU; Mozilla's evals tool ran every "
    "system on the same lines)",
    "sets": ["FLORES-200 devtest", "newstest2013"],
    "systems": [
        ("Argos Translate (LibreTranslate's engine)", 23.3, 31.9),
        ("Firefox Translations, en-es student (bergamot-tiny)", 26.2, 34.8),
        ("NLLB-200-distilled-600M", 26.4, 34.5),
        ("OPUS-MT (Helsinki-NLP/opus-mt-en-es)", 26.7, 35.0),
    ],
    "note": "Published figures of translators that cannot run here, on public sets that are not "
    "this card's test parts (FLORES devtest and newstest2013 are never trained on, chosen on or "
    "scored here): they place the model among its peers, they are not a side-by-side run.",
}
"""What the translators people compare mt with score, as published: every card shows them
(issue 66), beside its own figures on its own sets, never as if measured on the same lines."""


def scores_from(bench: dict[str, Any]) -> dict[str, Any]:
    """What a card keeps of one bench_general JSON file: per set, its pairs and BLEU / chrF of
    mt and of Apertium, mt's sentences a second and, in a file that has them, the words carried
    (issue 66); with the machine and the command."""
    figures = bench["figures"]
    return {
        "part": figures["part"],
        "beam": figures["beam"],
        "sets": {
            name: {
                "pairs": found["pairs"],
                "mt": {"bleu": found["mt"]["bleu"], "chrf": found["mt"]["chrf"]},
                "apertium": {"bleu": found["apertium"]["bleu"], "chrf": found["apertium"]["chrf"]},
                "sentences_per_second": found.get("mt_sentences_per_second"),
                **({"words": found["words"]} if "words" in found else {}),
            }
            for name, found in figures["sets"].items()
        },
        "machine": bench["machine"]["described"],
        "command": bench["command"],
        "commit": bench["commit"],
        "date": bench["date"],
    }


def speed_from(test: dict[str, Any], shipped: dict[str, Any]) -> dict[str, str]:
    """The card's speed rows: beam search on two test sets (bench_general's file) and the cold
    start of `mt translate` and `mt serve` (bench_shipped's)."""
    sets, beam = test["figures"]["sets"], test["figures"]["beam"]
    rows = {
        f"beam {beam}, {name}": f"{sets[name]['mt_sentences_per_second']:.1f} sentences/s"
        for name in ("flores", "tatoeba")
        if sets.get(name, {}).get("mt_sentences_per_second")
    }
    start = shipped["figures"]
    if "translate_first_call_seconds" in start:  # bench_shipped since the int8 copy
        first = start["translate_first_call_seconds"]
        rows["`mt translate`, first call (makes the int8 copy, once)"] = f"{first:.2f} s"
    rows['`mt translate "…"`, cold (median of 3)'] = f"{start['translate_cold_median']:.2f} s"
    if "translate_casual_cold_median" in start:
        rows["the same, casually typed"] = f"{start['translate_casual_cold_median']:.2f} s"
        rows["the same, two busy processes beside it"] = (
            f"{start['translate_loaded_cold_median']:.2f} s"
        )
    rows["`mt serve` to its first translation"] = f"{start['serve_first_answer_seconds']:.2f} s"
    return rows


def render_card(card: dict[str, Any]) -> str:
    """README.md of a shipped model, from its card.json alone."""
    lines = [f"# {card['name']}: {card['summary']}", "", card["description"], ""]
    lines += ["```sh", *card["usage"], "```", ""]
    lines += ["## Model", "", _pairs(card["model"]), ""]
    rows = [(d["name"], f"{d['pairs']:,}", d["source"], d["licence"]) for d in card["data"]]
    lines += ["## Training data", "", _table(("corpus", "pairs", "source", "licence"), rows), ""]
    lines += [*(f"- {note}" for note in card["licence_notes"]), ""]
    lines += ["## Recipe and compute", "", _pairs(card["compute"]), ""]
    lines += ["```sh", *card["recipe"], "```", ""]
    for part in ("dev", "test"):
        lines += _scores(part, card["scores"][part])
    lines += _peers(card.get("peers"))
    lines += ["## Speed on this machine", "", _pairs(card["speed"]), ""]
    lines += ["## Known weaknesses", "", *(f"- {w}" for w in card["weaknesses"]), ""]
    lines += ["## Reproduce", "", *(f"- {step}" for step in card["reproduce"]), ""]
    return "\n".join(lines)


def _scores(part: str, scores: dict[str, Any]) -> list[str]:
    rows = [
        (
            (DEV_NAMES if part == "dev" else {}).get(name) or SET_NAMES.get(name, name),
            f"{found['pairs']:,}",
            f"{found['mt']['bleu']:.1f} / {found['mt']['chrf']:.1f}",
            f"{found['apertium']['bleu']:.1f} / {found['apertium']['chrf']:.1f}",
            f"{found['mt']['bleu'] - found['apertium']['bleu']:+.1f}",
        )
        for name, found in scores["sets"].items()
    ]
    header = ("set", "pairs", "mt", "Apertium", "mt − Apertium (BLEU)")
    return [
        f"## Scores: {part} part (BLEU / chrF, beam {scores['beam']}, beside Apertium)",
        "",
        _table(header, rows),
        "",
        *_words(part, scores),
        f"Measured by `{scores['command']}` at {scores['commit']} on {scores['date']}; "
        f"{scores['machine']}. The figures are in `{SCORES[part]}` beside this card.",
        "",
    ]


def _words(part: str, scores: dict[str, Any]) -> list[str]:
    """The words carried, by how often the training English has them: only for a card whose
    benchmark files measured them (none before issue 66)."""
    names = DEV_NAMES if part == "dev" else {}
    measured = {name: found["words"] for name, found in scores["sets"].items() if "words" in found}
    if not measured:
        return []
    buckets = list(next(iter(measured.values())))  # as the benchmark wrote them: never, 1-9, 10+
    rows = [
        (names.get(name) or SET_NAMES.get(name, name), *(_carried(words[b]) for b in buckets))
        for name, words in measured.items()
    ]
    return [
        "Words carried: of the English content words (4 letters or more, not among the 300 most "
        "common) whose Wiktionary translation the reference holds, the share each output holds "
        "too, % mt / Apertium (words), by how often the training English has the word "
        "(mt.evaluate.words).",
        "",
        _table(("set", *(f"{bucket} in training" for bucket in buckets)), rows),
        "",
    ]


def _peers(peers: dict[str, Any] | None) -> list[str]:
    """The published peers (PUBLISHED_PEERS as the card kept them); none on an older card."""
    if not peers:
        return []
    rows = [(name, *(f"{bleu:.1f}" for bleu in scores)) for name, *scores in peers["systems"]]
    return [
        "## Published peers (BLEU; not this card's test sets)",
        "",
        _table(("translator", *peers["sets"]), rows),
        "",
        f"{peers['note']} Source: {peers['source']}.",
        "",
    ]


def _carried(row: dict[str, Any]) -> str:
    if not row["words"]:
        return "–"
    mt, apertium = 100 * row["mt"]["share"], 100 * row["apertium"]["share"]
    return f"{mt:.1f} / {apertium:.1f} ({row['words']:,})"


def _pairs(values: dict[str, Any]) -> str:
    return _table(("", ""), [(key, str(value)) for key, value in values.items()])


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    cells = [header, tuple("---" for _ in header), *rows]
    return "\n".join("| " + " | ".join(row) + " |" for row in cells)
