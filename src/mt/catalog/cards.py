"""A shipped model's card: card.json, whose figures are copied from the benchmark files kept
beside it, and README.md rendered from it by `render_card`, in the form of OPUS-MT's READMEs and
Hugging Face's model cards. tests/test_shipped.py checks both against those files.
"""

from __future__ import annotations

import re
from typing import Any

SCORES = {"dev": "scores-dev.json", "test": "scores-test.json"}
"""The benchmark files (`make bench-general` on the shipped model) a card's scores come from."""
SPEED = "speed.json"
"""bench_shipped.py's file (`make bench-shipped`): the start-up a person feels."""
CURVE_PLOT = "dev-curve.png"
"""The training run's dev curve (dev_curve.py), drawn; card.json keeps the points."""
COLD_CALL = '`mt translate "…"`, cold (median of 3)'
"""The speed row a card's summary quotes."""
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
    rows[COLD_CALL] = f"{start['translate_cold_median']:.2f} s"
    if "translate_casual_cold_median" in start:
        rows["the same, casually typed"] = f"{start['translate_casual_cold_median']:.2f} s"
        rows["the same, two busy processes beside it"] = (
            f"{start['translate_loaded_cold_median']:.2f} s"
        )
    rows["`mt serve` to its first translation"] = f"{start['serve_first_answer_seconds']:.2f} s"
    return rows


TITLE_CHARACTERS = 100
"""A card's first line is read at a glance (issue 77): at most this many characters."""
CARD_LINES = 120
"""README.md of a shipped model stays one short page (issue 77)."""


def render_card(card: dict[str, Any]) -> str:
    """README.md of a shipped model, from its card.json alone: a title line, a three-sentence
    summary from the card's figures, then its tables."""
    lines = [card_title(card), "", card_summary(card), ""]
    lines += ["```sh", *card["usage"], "```", ""]
    compute = {key: value for key, value in card["compute"].items() if key != "lineage"}
    facts = {**card["model"], **compute, **_curve(card.get("curve")), **card["speed"]}
    lines += ["## Model, compute and speed", "", _pairs(facts), ""]
    rows = [(d["name"], f"{d['pairs']:,}", d["source"], d["licence"]) for d in card["data"]]
    lines += ["## Data and licences", "", _table(("corpus", "pairs", "source", "licence"), rows)]
    lines += ["", *(f"- {note}" for note in card["licence_notes"]), ""]
    lines += _scores(card["scores"])
    lines += _peers(card.get("peers"))
    rows = [_weakness(text) for text in card["weaknesses"]]
    lines += ["## Known weaknesses", "", _table(("weakness", "for example"), rows), ""]
    lines += ["## Lineage", "", _table(("version", "commands", "what it did"), lineage(card)), ""]
    lines += [*(f"- {step}" for step in card["reproduce"]), ""]
    return "\n".join(lines)


def card_title(card: dict[str, Any]) -> str:
    """`# NAME: direction translation, a Transformer of N.NM parameters`."""
    parameters = int(card["model"]["parameters"].replace(",", "")) / 1e6
    title = f"# {card['name']}: {card['model']['direction']} translation, "
    title += f"a Transformer of {parameters:.1f}M parameters"
    if len(title) > TITLE_CHARACTERS:
        raise ValueError(f"{card['name']}: the card's title is over {TITLE_CHARACTERS} characters")
    return title


def card_summary(card: dict[str, Any]) -> str:
    """Three sentences: what the model is (the description's first sentence), how it scores beside
    Apertium on the test part, and what it cost to train and how fast it answers."""
    what = _first_sentence(card["description"])
    test = card["scores"]["test"]
    gaps = [found["mt"]["bleu"] - found["apertium"]["bleu"] for found in test["sets"].values()]
    ahead = sum(gap > 0 for gap in gaps)
    scores = (
        f"On its test part it is ahead of Apertium on {ahead} of {len(gaps)} sets, by "
        f"{min(gaps):+.1f} to {max(gaps):+.1f} BLEU (beam {test['beam']})."
    )
    compute, chained = card["compute"], "CPU-hours, with the versions it continues"
    hours = compute.get(chained) or compute.get("CPU-hours (2 cores)")
    minutes = compute.get("GPU-minutes, with the versions it continues", "0")
    cost = f"It was trained in {hours} CPU-hours on 2 cores and {minutes} GPU-minutes"
    cold = card["speed"].get(COLD_CALL)
    cost += f"; a cold `mt translate` takes {cold}." if cold else "."
    return " ".join((what, scores, cost))


def lineage(card: dict[str, Any]) -> list[tuple[str, str, str]]:
    """The recipe's lines as one row a version: (version, its commands, what it did). A line's
    version comes from its comment ("# version 3: ...", "# versions 4 to 6: ...") or from its
    RELEASE_NAME; a line of the same version as the row above joins that row."""
    rows: list[list[str]] = []
    for line in card["recipe"]:
        command, *after = re.split(r"\s{2,}#\s", line, maxsplit=1)
        comment = after[0].strip() if after else ""
        said = re.match(r"versions? (\d+(?: to \d+)?)[:,]?\s*(.*)", comment)
        named = re.search(r"RELEASE_NAME=\S+-(\d+)\b", command)
        version = said.group(1) if said else named.group(1) if named else ""
        what = said.group(2) if said else comment
        cell = f"`{command.strip()}`"
        if rows and rows[-1][0] == version:
            rows[-1][1] += f"; then {cell}"
            rows[-1][2] = "; ".join(part for part in (rows[-1][2], what) if part)
        else:
            rows.append([version, cell, what])
    return [tuple(cell.replace("|", "\\|") for cell in row) for row in rows]


def _weakness(text: str) -> tuple[str, str]:
    """(the weakness, its example): split at the first ": " that comes before any quotation."""
    head, colon, tail = text.partition(": ")
    if colon and '"' not in head and "(" not in head:
        return head, tail
    return text, ""


def _first_sentence(text: str) -> str:
    found = re.match(r"(.+?[.!?])(?:\s+(?=[A-Z])|$)", text, re.DOTALL)
    return found.group(1) if found else text


def _scores(scores: dict[str, Any]) -> list[str]:
    """One table of both parts, a row a set (a dev set named after the test set of its kind), and
    where each part's figures were measured."""
    dev, test = scores["dev"], scores["test"]
    names = list(test["sets"]) + [name for name in dev["sets"] if name not in test["sets"]]
    rows = []
    for name in names:
        label = SET_NAMES.get(name, name)
        if name in DEV_NAMES and name in dev["sets"]:
            label += f"; dev: {DEV_NAMES[name]}"
        found = test["sets"].get(name)
        gap = f"{found['mt']['bleu'] - found['apertium']['bleu']:+.1f}" if found else "–"
        rows.append((label, *_score_cells(dev["sets"].get(name)), *_score_cells(found), gap))
    header = ("set", "dev pairs", "dev mt", "dev Apertium", "test pairs", "test mt",
              "test Apertium", "test mt − Apertium")  # fmt: skip
    measured = " ".join(
        f"The {part} part: `{found['command']}` at {found['commit']} on {found['date']}; "
        f"{found['machine']}; `{SCORES[part]}` beside this card."
        for part, found in (("dev", dev), ("test", test))
    )
    return [
        f"## Scores (BLEU / chrF, beam {test['beam']}, beside Apertium on the same lines)",
        "",
        _table(header, rows),
        "",
        measured + " Those files also hold the words carried by how often the training English "
        "has them (mt.evaluate.words).",
        "",
    ]


def _score_cells(found: dict[str, Any] | None) -> tuple[str, ...]:
    """(pairs, mt, Apertium) of one set in one part; dashes where the part lacks the set."""
    if found is None:
        return ("–", "–", "–")
    scores = (f"{by['bleu']:.1f} / {by['chrf']:.1f}" for by in (found["mt"], found["apertium"]))
    return (f"{found['pairs']:,}", *scores)


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


def _curve(curve: dict[str, Any] | None) -> dict[str, str]:
    """The run's dev curve as a row of the compute table, its plot; none on an older card."""
    return {f"dev curve ({curve['note']})": f"![dev curve]({CURVE_PLOT})"} if curve else {}


def _pairs(values: dict[str, Any]) -> str:
    return _table(("", ""), [(key, str(value)) for key, value in values.items()])


def _table(header: tuple[str, ...], rows: list[tuple[str, ...]]) -> str:
    cells = [header, tuple("---" for _ in header), *rows]
    return "\n".join("| " + " | ".join(row) + " |" for row in cells)
