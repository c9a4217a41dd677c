"""WordPiece codec: fixed special ids, exact round trips, save/load, unseen characters."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import invented_pairs
from mt.data.tokenization import EOS, PAD, PLACEHOLDERS, SPECIAL_TOKENS, UNK, WordPieceCodec
from mt.errors import MtError

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZáéíóúüñÁÉÍÓÚÑ0123456789"
PUNCTUATION = "¿¡\"'.,:;!?-"
# Every letter inside a word (so it has a "##" piece) and every mark on its own.
ALPHABET_LINES = [f"x{LETTERS}", f"x{LETTERS[::-1]}", " ".join(PUNCTUATION)]


@cache
def codec() -> WordPieceCodec:
    sentences = [text for pair in invented_pairs() for text in pair] + ALPHABET_LINES
    return WordPieceCodec.train(sentences, vocab_size=300)


def round_trip(text: str) -> list[int]:
    """`text`'s ids, having checked that they decode to `text` exactly."""
    ids = codec().encode(text)
    assert codec().decode(ids) == text
    return ids


def test_special_tokens_have_fixed_ids() -> None:
    assert [codec().id_to_piece(i) for i in range(4)] == list(SPECIAL_TOKENS)
    assert (PAD, EOS) == (0, 3)


def test_vocabulary_has_exactly_the_requested_size() -> None:
    assert codec().vocab_size == 300


def test_tiny_text_gives_a_smaller_vocabulary_not_an_error() -> None:
    assert 4 < WordPieceCodec.train(["ab ab"], vocab_size=500).vocab_size < 500


def test_vocabulary_of_twenty_or_less_is_refused() -> None:
    with pytest.raises(MtError, match="more than 20"):
        WordPieceCodec.train(["hola"], vocab_size=20)


@pytest.mark.parametrize(
    "text",
    [
        "¿Dónde está la estación ahora?",
        "¡Qué bien!",
        "Tom's",
        "No, gracias.",
        '"Hola", dijo.',
        "Tengo 25 años.",
        "It's 3:30.",
        "Ilse's cheese is red , isn't it ?",
    ],
)
def test_decode_inverts_encode(text: str) -> None:
    assert UNK not in round_trip(text)


def test_no_bos_or_eos_is_added_and_decode_drops_special_ids() -> None:
    ids = codec().encode("Hola")
    assert ids[0] > EOS and ids[-1] > EOS
    assert codec().decode([2, *ids, 3, 0, 0]) == "Hola"


def test_a_lone_word_start_piece_gives_one_space_and_none_at_either_end() -> None:
    """A model's output is decoded this way: a tiny one ended a line with "▁" ("A A A ")."""
    assert codec().decode(codec().encode("Hola ")) == "Hola"
    assert codec().decode(codec().encode("Hola  amigo")) == "Hola amigo"
    assert codec().decode(codec().encode(" Hola")) == "Hola"


def test_punctuation_keeps_the_word_start_mark() -> None:
    assert codec().pieces("¿Dónde?")[0] == "▁¿"


def test_pieces_spell_the_sentence() -> None:
    pieces = codec().pieces("Wanda likes coffee.")
    text = "".join(p.removeprefix("##") for p in pieces).replace("▁", " ").lstrip()
    assert text == "Wanda likes coffee."


def test_encode_batch_equals_encode_one_by_one() -> None:
    texts = [es for _, es in invented_pairs()[:50]]
    assert codec().encode_batch(texts) == [codec().encode(t) for t in texts]


def test_unseen_character_costs_one_unknown_not_the_whole_word() -> None:
    ids = codec().encode("Bruno likes Køge cheese.")
    assert ids.count(UNK) == 1
    assert codec().decode(ids) == "Bruno likes Kge cheese."


def test_save_then_load_encodes_identically(tmp_path: Path) -> None:
    path = tmp_path / "tok.json"
    codec().save(path)
    loaded = WordPieceCodec.load(path)
    texts = [en for en, _ in invented_pairs()] + ["Bruno likes Køge cheese."]
    assert loaded.encode_batch(texts) == codec().encode_batch(texts)
    assert loaded.vocab_size == codec().vocab_size
    assert [p.name for p in tmp_path.iterdir()] == ["tok.json"]  # no temporary file left


def test_load_missing_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(MtError, match="missing"):
        WordPieceCodec.load(tmp_path / "nope.json")


def test_load_corrupt_file_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "tok.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(MtError, match="corrupt"):
        WordPieceCodec.load(path)


def test_load_foreign_tokenizer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tok.json"
    codec().save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["added_tokens"] = []
    data["model"]["vocab"] = {"[UNK]": 0, "a": 1}
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(MtError, match="not from mt"):
        WordPieceCodec.load(path)


words = st.text(alphabet=LETTERS, min_size=1, max_size=10)
tokens = st.one_of(words, st.sampled_from(PUNCTUATION))


@settings(max_examples=200, deadline=None)
@given(first=tokens, rest=st.lists(st.tuples(st.sampled_from(["", " "]), tokens), max_size=12))
def test_round_trip_on_generated_sentences(first: str, rest: list[tuple[str, str]]) -> None:
    text = first + "".join(space + token for space, token in rest)
    assert UNK not in round_trip(text)


@pytest.mark.parametrize(
    "text",
    [
        "Visit ｟1｠ today.",
        "｟16｠ is here",
        "Run ｟2｠｟3｠, then ｟4｠!",
        'The file is "｟5｠" and x｟6｠y.',
        "¿Dónde está ｟1｠?",
    ],
)
def test_placeholders_are_whole_labels_and_decode_with_their_spacing(text: str) -> None:
    ids = round_trip(text)
    for placeholder in PLACEHOLDERS:
        if placeholder in text:
            assert ids.count(codec().encode(placeholder)[0]) == text.count(placeholder)
    pieces = codec().pieces(text)
    assert all(p in pieces for p in PLACEHOLDERS if p in text), "never cut into pieces"


def test_trained_vocabularies_hold_the_placeholders_in_the_size_asked() -> None:
    last = [codec().id_to_piece(i) for i in range(300 - len(PLACEHOLDERS), 300)]
    assert last == list(PLACEHOLDERS) and codec().vocab_size == 300
    assert codec().encode("｟1｠") == [300 - len(PLACEHOLDERS)]


def test_extension_appends_and_keeps_every_old_id() -> None:
    old = codec()
    grown = old.extended(pieces=["<", "##<", "|", "##|"], placeholders=[])
    assert grown.vocab_size == old.vocab_size + 4
    assert [grown.id_to_piece(i) for i in range(old.vocab_size)] == [
        old.id_to_piece(i) for i in range(old.vocab_size)
    ]
    assert [grown.id_to_piece(i) for i in range(old.vocab_size, grown.vocab_size)] == [
        "<", "##<", "|", "##|",
    ]  # fmt: skip
    for en, es in invented_pairs()[:50]:
        assert grown.encode(en) == old.encode(en) and grown.encode(es) == old.encode(es)
    text = "Use <b or a|b here <"
    assert UNK in old.encode(text) and UNK not in grown.encode(text)
    assert grown.decode(grown.encode(text)) == text


def test_placeholders_added_to_an_old_vocabulary_round_trip(tmp_path: Path) -> None:
    """A tokenizer saved before placeholders existed (prepend scheme "always") gets them."""
    data = json.loads(codec()._tokenizer.to_str())
    data["added_tokens"] = data["added_tokens"][: len(SPECIAL_TOKENS)]
    vocab = data["model"]["vocab"]
    data["model"]["vocab"] = {p: i for p, i in vocab.items() if p not in PLACEHOLDERS}
    data["pre_tokenizer"]["pretokenizers"][0]["prepend_scheme"] = "always"
    (tmp_path / "old.json").write_text(json.dumps(data), encoding="utf-8")
    old = WordPieceCodec.load(tmp_path / "old.json")
    assert old.vocab_size == 300 - len(PLACEHOLDERS) and not old.knows("｟1｠")
    grown = old.extended(pieces=[], placeholders=PLACEHOLDERS)
    grown.save(tmp_path / "grown.json")
    grown = WordPieceCodec.load(tmp_path / "grown.json")
    text = "Visit ｟1｠ today, ｟12｠."
    assert grown.decode(grown.encode(text)) == text
    assert grown.encode("｟12｠") == [old.vocab_size + 11]
    for en, _ in invented_pairs()[:50]:
        assert grown.encode(en) == old.encode(en)
    with pytest.raises(MtError, match="'｟1｠' to the vocabulary: it is there already"):
        grown.extended(pieces=[], placeholders=["｟1｠"])
