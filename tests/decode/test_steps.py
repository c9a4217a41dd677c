"""Each step of the translation pipeline on its own (mt.decode.steps), then the pipeline they make.

The model is scripted (a search engine that copies its source, or answers what a test says) over a
real tokenizer with the placeholder tokens, so every figure here is what the steps decide.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from conftest import invented_pairs
from mt.catalog.direction import FORWARD
from mt.config import DecodeConfig
from mt.data.tokenization import EOS, PLACEHOLDERS, WordPieceCodec
from mt.decode.glossary import NAME_STAND_INS, Glossary, Term
from mt.decode.loaded import LoadedModel
from mt.decode.options import TranslateOptions
from mt.decode.results import Counts, TermCounts, Translation, total
from mt.decode.search import Hypothesis
from mt.decode.segment import Segmented
from mt.decode.steps.first_word import LowerFirstWords
from mt.decode.steps.judge import Judge
from mt.decode.steps.keep_terms import KeepTerms
from mt.decode.steps.mask import Mask
from mt.decode.steps.protect import ProtectSpans
from mt.decode.steps.search import Found, Search
from mt.decode.steps.segment import Segment
from mt.decode.steps.terms import PlaceTerms
from mt.decode.translator import Translator
from mt.errors import MtError
from mt.quality.confidence import Uncalibrated
from mt.text.first_words import FirstWords
from mt.text.lexicon import NO_LEXICON
from mt.text.spans import find_spans
from placeholder_support import placeholder_codec

SRC = Path(__file__).resolve().parents[2] / "src" / "mt" / "decode"
MUSEUM = Glossary([Term("museum", "pinacoteca")])


@pytest.fixture(scope="module")
def codec() -> WordPieceCodec:
    return placeholder_codec([text for pair in invented_pairs() for text in pair], 300)


class ScriptedEngine:
    """Copies each source, or answers `answer(source text)`: alternatives best first. `calls`
    gets (texts, beam size) of every search."""

    def __init__(
        self, codec: WordPieceCodec, answer: Callable[[str], list[str]] | None = None
    ) -> None:
        self.codec = codec
        self.answer = answer
        self.calls: list[tuple[list[str], int]] = []

    def search(self, sources: list[np.ndarray], config: DecodeConfig) -> list[list[Hypothesis]]:
        texts = [self.codec.decode([int(i) for i in s if i != EOS]) for s in sources]
        self.calls.append((texts, config.beam_size))
        results = []
        for text in texts:
            outputs = [text] if self.answer is None else self.answer(text)
            results.append(
                [
                    Hypothesis(tuple(self.codec.encode(o)), -1.0 - k, -2.0)
                    for k, o in enumerate(outputs)
                ]
            )
        return results


def scripted(codec: WordPieceCodec, engine: ScriptedEngine, **changes: object) -> Translator:
    """A Translator over the scripted engine; nothing is read from a model directory."""
    run = SimpleNamespace(
        info=SimpleNamespace(
            direction=FORWARD,
            max_src_len=63,
            length_penalty=0.0,
            switch=lambda name: False,  # every decode.json switch off
        ),
        directory=Path("nowhere"),
        config=SimpleNamespace(max_positions=64),
        source=codec,
        target=codec,
        model=None,
    )
    model = LoadedModel(run, torch.device("cpu"), engine=engine)  # type: ignore[arg-type]
    options = TranslateOptions(
        decode=DecodeConfig(beam_size=1),
        normalize=False,
        protectable=lambda word, *, initial: not initial,
        calibration=Uncalibrated(),
    )
    return Translator(model, dataclasses.replace(options, **changes))


# ----- segment ----------------------------------------------------------------------------------


def test_segment_cuts_sentences_normalises_each_and_joins_back(codec: WordPieceCodec) -> None:
    step = Segment(codec, limit=60, split=True, normalise=str.upper, span_tokens=False, keep=())
    cut = step.apply("  Hi there.  Where is Ilse? ")
    assert cut.pieces == ("HI THERE.", "WHERE IS ILSE?")
    assert step.reverse(cut, [(("Hola.", -1.0),), (("¿Dónde?", -2.0),)]) == (
        ("  Hola.  ¿Dónde? ", -3.0),
    )


def test_segment_counts_a_protected_span_as_one_token(codec: WordPieceCodec) -> None:
    line = "Ilse likes https://www.example.org/a/very/long/path/to/a/page/index.html now"
    limit = len(codec.encode(f"Ilse likes {PLACEHOLDERS[0]} now")) + 1
    kwargs = {"limit": limit, "split": True, "normalise": None, "keep": ()}
    assert Segment(codec, span_tokens=True, **kwargs).apply(line).pieces == (line,)
    assert len(Segment(codec, span_tokens=False, **kwargs).apply(line).pieces) > 1


def test_segment_gives_no_piece_more_spans_than_there_are_tokens(codec: WordPieceCodec) -> None:
    line = " ".join(["😀", "🎉", "🍕", "✅", "🚀", "⭐"] * 2 + [f"v1.{n}" for n in range(8)])
    step = Segment(codec, limit=500, split=True, normalise=None, span_tokens=True, keep=())
    pieces = step.apply(line).pieces
    assert len(pieces) == 2 and " ".join(pieces) == line
    assert all(len(find_spans(piece)) <= len(PLACEHOLDERS) for piece in pieces)


# ----- first words ------------------------------------------------------------------------------


def lowering(words: set[str]) -> FirstWords:
    """Lowers the capitalised `words` at a sentence's start (one piece lower case, two else)."""
    return FirstWords(
        frozenset(w.lower() for w in words),
        pieces=lambda word: 1 if word.islower() else 2,
        lexicon=NO_LEXICON,
    )


def test_first_words_lowers_only_the_first_word_of_each_sentence() -> None:
    step = LowerFirstWords(lowering({"Happy", "Cheap"}))
    cut = Segmented(
        ("Happy birthday!", "Cheap flights, Happy", "Cheap hotels.", "Happy days.", "Ilse"),
        ("", " ", " ", " ", " ", ""),
    )
    pieces, lowered = step.apply(cut)
    # "Cheap hotels." goes on a sentence cut after a comma: its first word is no sentence's first
    assert pieces == (
        "happy birthday!",
        "cheap flights, Happy",
        "Cheap hotels.",
        "happy days.",
        "Ilse",
    )
    assert lowered == (True, True, False, True, False)
    assert LowerFirstWords(None).apply(cut) == (cut.pieces, (False,) * 5)


def test_first_words_capitalises_a_lowered_piece_s_hypotheses_again() -> None:
    found = Found((("¡feliz cumpleaños!", -1.0), ("feliz día.", -2.0)), counts=Counts(3))
    back = LowerFirstWords.reverse(found, True)
    assert back.hypotheses == (("¡Feliz cumpleaños!", -1.0), ("Feliz día.", -2.0))
    assert back.counts == Counts(3)
    assert LowerFirstWords.reverse(found, False) is found


def test_the_pipeline_gives_the_model_the_lowered_word_and_capitalises_its_answer(
    codec: WordPieceCodec,
) -> None:
    engine = ScriptedEngine(codec, answer=lambda text: [text.replace("Ilse", "bruno")])
    plain = scripted(codec, engine)
    plain.model.__dict__["first_words"] = lowering({"Ilse"})  # what words.tsv would decide
    lowered = plain.with_options(dataclasses.replace(plain.options, first_words=True))
    [both] = lowered.translate(["Ilse likes rice. Ilse likes bread."])
    assert both.text == "Ilse likes rice. Ilse likes bread."
    assert sorted(engine.calls[-1][0]) == ["ilse likes bread.", "ilse likes rice."]
    [alone] = plain.translate(["Ilse likes rice."])
    assert alone.text == "bruno likes rice."


# ----- glossary, protect, restore ---------------------------------------------------------------


def test_terms_go_through_stand_ins_and_come_back_in_spanish() -> None:
    step = PlaceTerms(NAME_STAND_INS)
    text, slots, unplaced = step.apply("Where is the museum, Tom?", MUSEUM)
    assert text == "Where is the Mary, Tom?" and unplaced == 0  # Tom was taken already
    assert step.reverse("¿Dónde está Mary, Tom?", slots) == "¿Dónde está pinacoteca, Tom?"
    assert step.apply("No terms here.", None) == ("No terms here.", (), 0)


def test_a_translation_that_already_has_the_terms_is_kept_and_counted() -> None:
    made = Translation("The museum.", (("La Pinacoteca.", -1.0),), counts=Counts(decoded_tokens=4))
    kept = PlaceTerms.already_there("The museum.", made, MUSEUM, 1)
    assert kept is not None and kept.text == "La Pinacoteca."
    assert kept.counts == Counts(decoded_tokens=4, terms=TermCounts(found=1, already_there=1))
    missing = Translation("The museum.", (("El museo.", -1.0),))
    assert PlaceTerms.already_there("The museum.", missing, MUSEUM, 1) is None


def test_protect_uses_tokens_or_name_stand_ins_and_counts_what_is_lost() -> None:
    def names(word: str, *, initial: bool) -> bool:
        return word == "Zbigniew"

    tokens = ProtectSpans(enabled=True, span_tokens=True, protectable=names, keep=())
    text, slots = tokens.apply("Zbigniew reads www.x.org.")
    assert text == f"{PLACEHOLDERS[0]} reads {PLACEHOLDERS[1]}."
    assert tokens.reverse(f"{PLACEHOLDERS[0]} lee.", slots) == ("Zbigniew lee www.x.org.", 1)
    stand_ins = ProtectSpans(enabled=True, span_tokens=False, protectable=names, keep=())
    assert stand_ins.apply("Zbigniew reads.") == ("Tom reads.", (("Tom", "Zbigniew"),))
    off = ProtectSpans(enabled=False, span_tokens=True, protectable=names, keep=())
    assert off.apply("Zbigniew reads www.x.org.") == ("Zbigniew reads www.x.org.", ())
    with pytest.raises(MtError, match="--keep needs a model whose tokenizers"):
        ProtectSpans(enabled=True, span_tokens=False, protectable=names, keep=("Ilse",))


def test_mask_places_terms_before_spans_and_restores_terms_first() -> None:
    spans = ProtectSpans(
        enabled=True, span_tokens=True, protectable=lambda w, *, initial: False, keep=()
    )
    mask = Mask(PlaceTerms(PLACEHOLDERS), spans)
    masked = mask.apply("The museum is at www.x.org.", MUSEUM)
    assert masked.text == f"The {PLACEHOLDERS[0]} is at {PLACEHOLDERS[1]}."
    assert masked.counts.terms == TermCounts(found=1)
    found = Found(((f"La {PLACEHOLDERS[0]} está en {PLACEHOLDERS[1]}.", -1.0),), counts=Counts(3))
    back = mask.reverse(found, masked)
    assert back.text == "La pinacoteca está en www.x.org."
    assert back.counts == Counts(decoded_tokens=3, terms=TermCounts(found=1))


# ----- search and judge -------------------------------------------------------------------------


def test_search_keeps_input_order_and_counts_the_tokens_of_the_best(codec: WordPieceCodec) -> None:
    engine = ScriptedEngine(codec)
    translator = scripted(codec, engine)
    search = Search(translator.model, DecodeConfig(beam_size=1, batch_size=2))
    found = search.apply(["Ilse likes rice and bread.", "", "Bruno likes rice."])
    assert [f.text for f in found] == ["Ilse likes rice and bread.", "", "Bruno likes rice."]
    assert [texts for texts, _ in engine.calls] == [
        ["Bruno likes rice.", "Ilse likes rice and bread."]
    ]
    assert found[1] == Found(())  # nothing to translate: no search, no counts
    tokens = len(codec.encode("Bruno likes rice.")) + 1  # [EOS] counted
    assert found[2].counts == Counts(decoded_tokens=tokens)
    assert found[2].evidence is not None and found[2].evidence.target_labels == tokens


def test_judge_gives_confidence_and_flags() -> None:
    judged = Judge(Uncalibrated()).apply(
        "Ilse likes bread.",
        (("Ilse likes bread.", -1.0),),
        pieces=1,
        evidence=None,
        counts=Counts(2),
    )
    assert judged.confidence == 0.0 and "copy" in judged.flags and judged.counts == Counts(2)


# ----- keep the terms ---------------------------------------------------------------------------


def test_a_lost_stand_in_is_searched_again_wider(codec: WordPieceCodec) -> None:
    token = PLACEHOLDERS[0]

    def answer(text: str) -> list[str]:
        return ["Nada.", f"A {token} le gusta."]  # the best has lost the stand-in

    engine = ScriptedEngine(codec, answer)
    translator = scripted(codec, engine, decode=DecodeConfig(beam_size=1))
    (translation,) = translator.translate_each(["The museum."], [MUSEUM])
    assert translation.text == "A pinacoteca le gusta."
    assert [beam for _, beam in engine.calls] == [1, 1, 5]  # plain, with stand-in, wider
    assert translation.counts.terms == TermCounts(found=1, searched_again=1)


def test_terms_no_search_keeps_are_translated_around(codec: WordPieceCodec) -> None:
    engine = ScriptedEngine(codec, lambda text: ["Nada."])  # never the stand-in
    spanish = {"Go to the": "Ve a la", "now": "ahora"}

    def translate(lines: list[str]) -> list[Translation]:
        return [Translation(line, ((spanish[line], -1.0),), counts=Counts(2)) for line in lines]

    translator = scripted(codec, engine)
    keep = KeepTerms(Search(translator.model, DecodeConfig(beam_size=1)), translate)
    masked = [translator.pipeline.mask.apply("Go to the museum now", MUSEUM)]
    found, masked = keep.apply([Found((("Nada.", -1.0),))], masked)
    assert found[0].text == "Ve a la pinacoteca ahora"
    assert found[0].counts.terms == TermCounts(searched_again=1, translated_around=1)
    assert found[0].counts.decoded_tokens == len(codec.encode("Nada.")) + 1 + 2 * 2
    assert masked[0].terms == () and masked[0].slots == ()


# ----- the pipeline -----------------------------------------------------------------------------


def test_a_call_returns_its_counts_and_leaves_the_translator_as_it_was(
    codec: WordPieceCodec,
) -> None:
    translator = scripted(codec, ScriptedEngine(codec))
    lines = ["Ilse likes rice. Bruno likes bread.", "", "Where is the museum?"]
    first = translator.translate_each(lines, [None, None, MUSEUM])
    assert [t.pieces for t in first] == [2, 0, 1]
    assert first[2].text == "Where is the pinacoteca?"  # copied through its stand-in
    assert total(first).terms.found == 1 and first[1].counts == Counts()
    again = translator.translate_each(lines, [None, None, MUSEUM])
    assert [t.counts for t in again] == [t.counts for t in first]  # no counter carried over


def test_a_variant_shares_the_model_and_the_options_are_frozen(codec: WordPieceCodec) -> None:
    engine = ScriptedEngine(codec)
    translator = scripted(codec, engine)
    plain = translator.with_options(dataclasses.replace(translator.options, placeholders=False))
    assert plain.model is translator.model and plain.engine is translator.engine
    list(translator.translate(["Ilse reads www.x.org."]))
    list(plain.translate(["Ilse reads www.x.org."]))
    assert [texts[0] for texts, _ in engine.calls] == [
        f"Ilse reads {PLACEHOLDERS[0]}.",
        codec.decode(codec.encode("Ilse reads www.x.org.")),
    ]
    assert translator.options.placeholders and not plain.options.placeholders
    with pytest.raises(dataclasses.FrozenInstanceError):
        translator.options.placeholders = False  # type: ignore[misc]


def test_the_pipeline_stays_small() -> None:
    """No class of the translation pipeline over 150 lines, no module over 400."""
    files = [SRC / "translator.py", SRC / "loaded.py", SRC / "options.py", SRC / "results.py"]
    files += sorted((SRC / "steps").glob("*.py"))
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 400, path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ClassDef):
                assert node.end_lineno - node.lineno + 1 <= 150, f"{path}: {node.name}"  # type: ignore[operator]
