"""Protected spans: what the detector finds (and leaves), and the placeholder training pairs."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import invented_pairs
from mt.config import ConfigError, TrainConfig
from mt.data.feed.augment import PLACEHOLDER_RATE, placeholder_rate
from mt.data.feed.batching import collate, encode_parts
from mt.data.tokenization import PLACEHOLDERS, WordPieceCodec, has_placeholders
from mt.errors import MtError
from mt.text.spans import (
    _DETECTOR,
    find_spans,
    placeheld,
    shared_spans,
)
from placeholder_support import legacy_codec, placeholder_codec

P = PLACEHOLDERS


@pytest.mark.parametrize(
    ("text", "kind", "span"),
    [
        ("Visit www.cisco.com today.", "url", "www.cisco.com"),
        (
            "See https://docs.python.org/3/library/re.html.",
            "url",
            "https://docs.python.org/3/library/re.html",
        ),
        ("Read <https://a.b/c?d=1#wp33>.", "url", "<https://a.b/c?d=1#wp33>"),
        ("Write to john.doe+x@example.co.uk now.", "email", "john.doe+x@example.co.uk"),
        ("Run `ls -l` here.", "code", "`ls -l`"),
        ("Use ``os.path`` here.", "code", "``os.path``"),
        ("See :func:`re.sub` here.", "code", ":func:`re.sub`"),
        ("Hello {name}!", "placeholder", "{name}"),
        ("Got {0} and more.", "placeholder", "{0}"),
        ("Got {name!r:>10} and more.", "placeholder", "{name!r:>10}"),
        ("Got %s files.", "placeholder", "%s"),
        ("Got %d files.", "placeholder", "%d"),
        ("Got %(count)s files.", "placeholder", "%(count)s"),
        ("Set $HOME first.", "variable", "$HOME"),
        ("Set ${PATH} first.", "variable", "${PATH}"),
        ("Edit /etc/hosts.", "path", "/etc/hosts"),
        ("Edit ~/.bashrc now.", "path", "~/.bashrc"),
        ("Run ./configure now.", "path", "./configure"),
        ("Open src/mt/data today.", "path", "src/mt/data"),
        ("Open docs/index.rst today.", "path", "docs/index.rst"),
        ("Run setup.py today.", "path", "setup.py"),
        ("Open C:\\Users\\me\\a.txt.", "path", "C:\\Users\\me\\a.txt"),
        ("Call 555-1234 now.", "number", "555-1234"),
        ("It rose 3.5% today.", "number", "3.5%"),
        ("It costs 1,000.50 dollars.", "number", "1,000.50"),
        ("Cuesta 1.000,50 euros.", "number", "1.000,50"),
        ("Meet at 10:30.", "number", "10:30"),
        ("Born on 2024-01-31.", "number", "2024-01-31"),
        ("I have 42 cats.", "number", "42"),
    ],
)
def test_the_detector_finds_each_shape_whole(text: str, kind: str, span: str) -> None:
    assert [(s.kind, s.text) for s in find_spans(text)] == [(kind, span)]
    (found,) = find_spans(text)
    assert text[found.start : found.end] == span


_SPAN_ALPHABET = st.sampled_from(list("ab Z1./\\@`{}%$:~-_w+()[]!?,;'\"<>") + ["www.", ".py"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_SPAN_ALPHABET, max_size=24).map("".join))
def test_the_quick_check_before_the_detector_never_hides_a_span(text: str) -> None:
    """find_spans skips the detector for text without any character its patterns need: on any
    text it must find what the whole detector finds."""
    expected = [m.group() for m in _DETECTOR.finditer(text) if m.lastgroup != "tldr"]
    assert [s.text for s in find_spans(text) if s.kind != "tldr"] == expected


@pytest.mark.parametrize(
    "text",
    [
        "He said, e.g. this, i.e. that.",
        "Mr. Smith and Mrs. Jones came.",
        "Tom and Mary ate the apples.",
        "Do you like him and/or her?",
        "It was the 21st time.",
        "100 % sure? No.",  # a lone "%" with a space is no directive
        "Use {{path/to/file}} here.",  # tldr's Spanish translates the words inside
    ],
)
def test_ordinary_text_has_no_spans_but_its_numbers(text: str) -> None:
    assert [s.text for s in find_spans(text) if s.kind != "number"] == []


def test_the_most_specific_kind_wins_and_spans_never_overlap() -> None:
    text = "Get https://x.org/a/b.py (mail a@b.com, 10 files) at /usr/lib/python3.11 at 10:30."
    spans = find_spans(text)
    assert [(s.kind, s.text) for s in spans] == [
        ("url", "https://x.org/a/b.py"),
        ("email", "a@b.com"),
        ("number", "10"),
        ("path", "/usr/lib/python3.11"),
        ("number", "10:30"),
    ]
    assert all(a.end <= b.start for a, b in zip(spans, spans[1:], strict=False))


def test_a_keep_list_adds_whole_word_names_outside_other_spans() -> None:
    text = "New York City is not New Yorker, see www.NewYork.com."
    spans = find_spans(text, names=["New York", "New York City", "NewYork"])
    assert [(s.kind, s.text) for s in spans] == [
        ("name", "New York City"),
        ("url", "www.NewYork.com"),
    ]


def test_only_spans_both_sides_copy_are_shared() -> None:
    english = "Tom paid 1,000.50 dollars at 10:30 to Mary at www.x.com."
    spanish = "Tom pagó 1.000,50 dólares a las 10:30 a María en www.x.com."
    assert [(s.kind, s.text) for s in shared_spans(english, spanish)] == [
        ("name", "Tom"),
        ("number", "10:30"),
        ("url", "www.x.com"),
    ]


def test_a_number_is_shared_only_whole() -> None:
    assert shared_spans("I have 10 cats.", "Tengo 10,5 gatos.") == []
    assert shared_spans("I have 10 cats.", "Tengo 100 gatos.") == []


def test_placeheld_numbers_spans_in_english_order_the_same_on_both_sides() -> None:
    english = "Tom met Mary at 10:30, Tom said: see /tmp/a.txt."
    spanish = "Dijo Tom: vea /tmp/a.txt; Tom vio a Mary a las 10:30."
    assert placeheld(english, spanish, P) == (
        f"{P[0]} met {P[1]} at {P[2]}, {P[0]} said: see {P[3]}.",
        f"Dijo {P[0]}: vea {P[3]}; {P[0]} vio a {P[1]} a las {P[2]}.",
    )


def test_placeheld_leaves_a_pair_without_shared_spans_and_spans_past_the_last_token() -> None:
    assert placeheld("I eat.", "Como.", P) == ("I eat.", "Como.")
    english = " ".join(str(n) for n in range(1, 20))
    held_en, held_es = placeheld(english, english, P[:2])
    assert held_en == held_es == f"{P[0]} {P[1]} " + " ".join(str(n) for n in range(3, 20))


def _held(codec: WordPieceCodec, rows) -> list[int]:
    """The rows holding a placeholder token (with or without the word-start mark)."""
    ids = {i for i in range(codec.vocab_size) if codec.id_to_piece(i).lstrip("▁") == P[0]}
    return [i for i, row in enumerate(rows) if ids & set(row.tolist())]


def test_training_pairs_get_placeholders_on_both_sides_each_epoch() -> None:
    pairs = invented_pairs()  # names and numbers both sides copy
    source = placeholder_codec([en for en, _ in pairs])
    target = placeholder_codec([es for _, es in pairs])
    config = TrainConfig(placeholders=0.5, max_src_len=64, max_tgt_len=64)
    data = encode_parts(pairs, pairs[:5], source, target, config)
    epoch0 = data.epoch_train(0)
    held = _held(source, epoch0.src)
    assert held == _held(target, epoch0.tgt)
    candidates = {row for row, (en, es) in enumerate(pairs) if shared_spans(en, es)}
    assert set(held) <= candidates and 0.35 < len(held) / len(candidates) < 0.65
    unchanged = [i for i in range(len(pairs)) if i not in held]
    assert all((epoch0.src[i] == data.train.src[i]).all() for i in unchanged)
    assert all((epoch0.tgt[i] == data.train.tgt[i]).all() for i in unchanged)
    batch = collate(epoch0, held[:8])  # a made row's own length, not the prepared one
    assert batch.src.shape[1] == max(len(epoch0.src[i]) for i in held[:8])
    again = encode_parts(pairs, pairs[:5], source, target, config).epoch_train(0)  # a resume
    assert _held(source, again.src) == held
    assert all((a == b).all() for a, b in zip(again.src, epoch0.src, strict=True))
    assert _held(source, data.epoch_train(1).src) != held


def test_the_rate_is_decided_by_the_tokenizers() -> None:
    plain = legacy_codec()
    carried = placeholder_codec([en for en, _ in invented_pairs()])
    assert has_placeholders(carried) and not has_placeholders(plain)
    assert has_placeholders(carried, carried) and not has_placeholders(carried, plain)
    assert placeholder_rate(TrainConfig(), (carried, carried), "d") == PLACEHOLDER_RATE
    assert placeholder_rate(TrainConfig(), (plain, carried), "d") == 0.0
    assert placeholder_rate(TrainConfig(placeholders=0.2), (carried, carried), "d") == 0.2
    with pytest.raises(MtError, match="--placeholders 0.3: the tokenizers of d have no"):
        placeholder_rate(TrainConfig(placeholders=0.3), (plain, plain), "d")
    assert placeholder_rate(TrainConfig(placeholders=0.0), (plain, plain), "d") == 0.0


def test_a_rate_outside_zero_to_one_is_refused() -> None:
    with pytest.raises(ConfigError, match="--placeholders must be in"):
        TrainConfig(placeholders=1.5)


@pytest.mark.parametrize(
    ("text", "protected"),
    [
        ("{{[-s|--status]}}", True),
        ("{{[r|run]}}", True),
        ("{{50%}}", True),
        ("{{*.jpg}}", True),
        ("{{path/to/file}}", False),
        ("{{version}}", False),
    ],
)
def test_tldr_placeholders_are_protected_when_tldr_copies_them(text: str, protected: bool) -> None:
    spans = find_spans(f"tool {text} now")
    assert [span.text for span in spans] == ([text] if protected else [])
