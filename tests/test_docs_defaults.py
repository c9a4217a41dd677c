"""The defaults README.md and docs/*.md quote are the code's: each number is read from the prose
with a pattern anchored on the phrase that quotes it, and compared with mt.config (or the Makefile,
the normaliser and the casual generator, where the default lives there). Changing one without the
docs fails here; so does rewording the phrase, which then needs its pattern updated."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mt.config import PREPARE, RECIPES
from mt.evaluate import calibrate
from mt.quality import flags
from mt.text import casual, normalize

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = RECIPES["default"]
KINDS = {"lower case": "lower", "final punctuation": "punctuation"}
WORDS = {"two": 2, "three": 3, "four": 4, "five": 5}


def prose(name: str) -> str:
    """The file's text with every run of white space (line breaks too) one space."""
    return " ".join((ROOT / name).read_text(encoding="utf-8").split())


def quoted(name: str, pattern: str) -> tuple[str, ...]:
    """The groups of `pattern` in `name`: exactly one place must quote it."""
    found = re.findall(pattern, prose(name))
    assert len(found) == 1, f"{name}: {len(found)} matches of {pattern!r} (want one)"
    return found[0] if isinstance(found[0], tuple) else (found[0],)


def number(text: str) -> float:
    return float(text.replace(",", ""))


def default_kinds() -> set[str]:
    return set(DEFAULT.train.source_noise_kinds.split(","))


def test_the_source_noise_share_and_kinds() -> None:
    share = DEFAULT.train.source_noise
    (percent,) = quoted("README.md", r"The default recipe trains on (\d+)% casual sources")
    assert number(percent) / 100 == share
    rate, kinds = quoted(
        "docs/text.md",
        r"The default recipe trains with `--source-noise ([\d.]+)` and all (\w+) kinds",
    )
    assert number(rate) == share and WORDS[kinds] == len(default_kinds())
    (listed,) = quoted("docs/text.md", r"`--source-noise-kinds` names \(([^)]*)\)")
    assert set(re.findall(r"`(\w+)`", listed)) == default_kinds()
    (percent,) = quoted("docs/text.md", r"The default recipe makes (\d+)% of the training sources")
    assert number(percent) / 100 == share
    percent, kinds = quoted(
        "docs/recipe.md",
        r"\| source noise \| (\d+)% of the prose sources made casual each epoch \(([^;]+);",
    )
    assert number(percent) / 100 == share
    assert {KINDS.get(kind, kind) for kind in kinds.split(", ")} == default_kinds()
    (rate,) = quoted(
        "docs/performance.md", r"Since 2026-11-25 it trains with `--source-noise ([\d.]+)`"
    )
    assert number(rate) == share


def test_the_vocabulary_sizes() -> None:
    sizes = (PREPARE.src_vocab, PREPARE.tgt_vocab)
    found = quoted("docs/commands.md", r"source ([\d,]+) and target ([\d,]+) labels by default")
    assert tuple(map(number, found)) == sizes
    found = quoted("docs/recipe.md", r"\| parameters \(([\d,]+)/([\d,]+) labels\)")
    assert tuple(map(number, found)) == sizes


def test_the_split_and_the_held_out_caps() -> None:
    split = tuple(round(share * 100) for share in PREPARE.split)
    assert (
        tuple(map(int, quoted("docs/commands.md", r"splits (\d+)/(\d+)/(\d+) by default"))) == split
    )
    assert (
        tuple(map(int, quoted("README.md", r"splits it (\d+)/(\d+)/(\d+) \(`--split`\)"))) == split
    )
    (cap,) = quoted("docs/commands.md", r"`--max-test` \(([\d,]+) pairs each by default\)")
    assert number(cap) == PREPARE.max_selection == PREPARE.max_test
    (sample,) = quoted("docs/commands.md", r"`--tokenizer-sample N` \(([\d,]+) by default\)")
    assert number(sample) == PREPARE.tokenizer_sample


def test_the_default_recipe_table() -> None:
    shape, train = DEFAULT.shape, DEFAULT.train
    d, ff, heads, layers, decoder = quoted(
        "docs/recipe.md", r"\| shape \| d (\d+), d_p (\d+), (\d+) heads, (\d+)\+(\d+) layers \|"
    )
    assert (int(d), int(ff), int(heads)) == (shape.d_model, shape.ff, shape.heads)
    assert int(layers) == int(decoder) == shape.layers
    lr, warmup = quoted("docs/recipe.md", r"\| learning rate \| η0 ([\d.]+), t_w (\d+):")
    assert (number(lr), int(warmup)) == (train.lr, train.warmup)
    rows = {
        r"\| batches \| (\d+) sentences": train.batch_size,
        r"\| label smoothing \| ([\d.]+)": train.label_smoothing,
        r"\| dropout \| ([\d.]+)": shape.dropout,
        r"\| maximum lengths \| (\d+) labels each side": train.max_src_len,
        r"\| stopping \| (\d+) epochs without a better selection loss": train.patience,
        r"\| at the end \| average of the last (\d+) evaluation snapshots": train.average_last,
    }
    for pattern, value in rows.items():
        assert number(quoted("docs/recipe.md", pattern)[0]) == value, pattern
    assert train.max_tgt_len == train.max_src_len


def test_the_budgets_the_makefile_sets() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")

    def made(name: str) -> str:
        return re.search(rf"^{name} \?= (\S+)$", makefile, re.MULTILINE).group(1)

    (budget,) = quoted("README.md", r"train the default recipe for BUDGET \((\w+)\)")
    assert budget == made("BUDGET")
    (budget,) = quoted("README.md", r"`MODEL_BUDGET=(\w+)` by default")
    assert budget == made("MODEL_BUDGET")
    (steps,) = quoted("README.md", r"for a fixed ([\d,]+) steps \(`DEMO_STEPS`\)")
    assert number(steps) == int(made("DEMO_STEPS"))


def test_the_casual_generator_and_the_normaliser() -> None:
    found = quoted("docs/text.md", r"makes a keyboard slip in about (\d+)% of words \(")
    assert number(found[0]) / 100 == casual.TYPO_RATE
    (per,) = quoted("docs/text.md", r"at most one per (\w+) words, none in a one-word sentence")
    assert WORDS[per] == casual.WORDS_PER_TYPO
    (shortest,) = quoted("docs/text.md", r"and slips: a word of (\d)\+ letters")
    assert int(shortest) == normalize.MIN_TYPO_LENGTH
    (share,) = quoted("docs/text.md", r"writes the word with one in at least (\d+)% of its uses")
    assert number(share) / 100 == normalize.CONTRACTED
    (uses,) = quoted("docs/text.md", r"one edit from a word the training uses (\d+)\+ times")
    assert int(uses) == normalize.TYPO_TARGET
    (uses,) = quoted("docs/text.md", r"of a word the training uses (\d+) times or more")
    assert int(uses) == normalize.SHORT_TYPO_TARGET
    (odds,) = quoted("docs/text.md", r"makes it (\d+) times likelier")
    assert number(odds) == normalize.CONTEXT_ODDS


def test_the_confidence_target_and_the_copy_thresholds() -> None:
    found = quoted(
        "docs/trust.md",
        r"at least (\d+)% of the letters of the output's words are in words of the source, or "
        r"(\d+)% where the output has (\d+) letters or more",
    )
    assert number(found[0]) / 100 == flags.COPY_OVERLAP
    assert number(found[1]) / 100 == flags.HALF_COPY_OVERLAP
    assert int(found[2]) == flags.COPY_MIN_LETTERS
    (score,) = quoted("docs/trust.md", r"the confidence is the probability that the translation is "
                      r"good, sentence chrF \(sacrebleu\) of (\d+) or more")  # fmt: skip
    assert calibrate.TARGET == "good" and number(score) == calibrate.GOOD_CHRF


@pytest.mark.parametrize(
    "name", ["README.md", *sorted(p.name for p in (ROOT / "docs").glob("*.md"))]
)
def test_no_doc_says_the_default_trains_without_source_noise(name: str) -> None:
    """The contradiction issue 42 found: "the default recipe keeps `--source-noise 0`"."""
    path = name if name == "README.md" else f"docs/{name}"
    assert not re.search(r"default recipe keeps `--source-noise 0`", prose(path))
