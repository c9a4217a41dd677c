"""Translation input and output: lines read as `mt prepare` cleans them, files others can read."""

from __future__ import annotations

import io
import os
import random
import re
import shutil
import stat
from dataclasses import replace
from pathlib import Path

import pytest

from conftest import invented_pairs
from mt.catalog.modelinfo import DECODE_SWITCHES, resolve
from mt.cli.textio import read_lines, write_translations
from mt.config import DecodeConfig
from mt.decode.glossary import glossary_from_pairs
from mt.decode.options import TranslateOptions
from mt.decode.results import Translation
from mt.decode.translator import Translator, open_translator
from mt.errors import MtError
from mt.text.first_words import candidates, capitalised_first
from mt.text.lexicon import read_lexicon
from mt.text.wordstats import read_word_stats


def test_lines_lose_their_newline_and_a_leading_byte_order_mark() -> None:
    stream = io.BytesIO("\ufeffOne.\r\n\ufeffTwo.\nThree.".encode())
    assert list(read_lines(stream, "in.txt")) == ["One.", "\ufeffTwo.", "Three."]
    with pytest.raises(MtError, match=r"in\.txt:2: not valid UTF-8 \(byte 3\)"):
        list(read_lines(io.BytesIO(b"ok\nno\xff\n"), "in.txt"))


def test_an_output_file_gets_the_permissions_of_the_umask(tmp_path: Path) -> None:
    out = tmp_path / "es.txt"
    translations = [Translation("Hi.", (("Hola.", -0.5), ("Buenas.", -1.25)))]
    previous = os.umask(0o022)
    try:
        write_translations(translations, out, style="nbest")
    finally:
        os.umask(previous)
    assert out.read_text(encoding="utf-8") == "0\t-0.5000\tHola.\n0\t-1.2500\tBuenas.\n"
    assert stat.S_IMODE(out.stat().st_mode) == 0o644, "a service account must be able to read it"
    with pytest.raises(MtError, match="is a directory"):
        write_translations(translations, tmp_path, style="text")


def test_input_is_cleaned_the_way_prepare_cleans_the_corpus(trained_run: Path) -> None:
    translator = open_translator(
        resolve(trained_run), TranslateOptions(decode=DecodeConfig(beam_size=1)), device="cpu"
    )
    clean = "Thank you, Ilse!"
    dirty = "  Thank\u200b you,\u00a0Ilse!\x07 "
    first, second = translator.translate([clean, dirty])
    assert second.text.strip() == first.text  # the line's outer spacing is given back


def test_no_output_gains_outer_doubled_or_leaked_spacing(trained_run: Path) -> None:
    """Lines the tiny model has never seen, with spans, names and casual typing mixed in: an
    unsure model writes stray placeholder tokens and lone word-start pieces, and neither may
    leave a space at an end, two in a row, or a token in the text (CI once found "¡Qué ")."""
    chance = random.Random(7)
    english = [en for en, _ in invented_pairs()]
    extras = ["www.example.com", "10:30", "/etc/hosts", "Zbigniew", "Kowalski", "{0}", "Ilse"]
    lines = []
    for _ in range(120):
        words = chance.choice(english).split()
        for _ in range(chance.randint(0, 3)):
            words.insert(chance.randint(0, len(words)), chance.choice(extras))
        line = " ".join(words)
        lines.append(line.lower().rstrip(".!?") if chance.random() < 0.3 else line)
    glossary = glossary_from_pairs([("station", "estación"), ("museum", "museo")], "terms")
    for beam, terms in ((1, None), (4, glossary)):
        options = TranslateOptions(decode=DecodeConfig(beam_size=beam), glossary=terms)
        translator = open_translator(resolve(trained_run), options, device="cpu")
        for line, translation in zip(lines, translator.translate(lines), strict=True):
            text = translation.text
            assert text == text.strip() and "  " not in text and "｟" not in text, (line, text)


def test_a_run_brings_the_lexicon_of_its_training_part(trained_run: Path) -> None:
    translator = open_translator(
        resolve(trained_run), TranslateOptions(decode=DecodeConfig(beam_size=1)), device="cpu"
    )
    lexicon = translator.model.name_rule.lexicon
    assert lexicon == read_lexicon(trained_run / "lexicon.tsv") and lexicon.pairs > 100
    assert lexicon.copied_share("Ilse") == 1.0 and lexicon.copied_share("Where") == 0.0
    assert translator.model.name_rule("Kowalski", initial=False) is True
    assert translator.model.name_rule("Thursday", initial=False) is False


def test_casual_input_is_normalised_unless_turned_off(trained_run: Path) -> None:
    from mt.text.wordstats import read_word_stats

    assert read_word_stats(trained_run / "words.tsv").sentences > 100  # copied from prepare
    config = DecodeConfig(beam_size=1)
    on = open_translator(resolve(trained_run), TranslateOptions(decode=config), device="cpu")
    off = open_translator(
        resolve(trained_run), TranslateOptions(decode=config, normalize=False), device="cpu"
    )
    assert on.pipeline.segment.normalise == on.model.normalise
    assert "normalizer" not in vars(on.model)  # a careful line never reads the word statistics
    assert next(on.translate(["Hello there."])).source == "Hello there."
    assert "normalizer" not in vars(on.model)
    assert on.model.normalise("hello there") == on.model.normalizer("hello there")
    assert off.pipeline.segment.normalise is None
    seen: list[str] = []
    watched = on.with_options(
        replace(on.options, normalizer=lambda text: seen.append(text) or text.capitalize() + ".")
    )
    casual, clean = next(watched.translate(["hello there"])), next(off.translate(["Hello there."]))
    assert seen == ["hello there"] and casual.source == "hello there"
    assert casual.text == clean.text  # the model was given the normalised sentence


def copy_of(trained_run: Path, tmp_path: Path) -> Path:
    """A run of one's own to give a decode.json."""
    run = tmp_path / "run"
    shutil.copytree(trained_run, run)
    return run


def opened(run: Path, options: TranslateOptions) -> Translator:
    """The run's Translator on the CPU, with its decode.json read as it is now."""
    return open_translator(resolve(run), options, device="cpu")


def test_a_model_decodes_with_its_own_length_penalty_unless_told(
    trained_run: Path, tmp_path: Path
) -> None:
    run = copy_of(trained_run, tmp_path)
    unset = TranslateOptions(decode=DecodeConfig(beam_size=3))
    assert opened(run, unset).config.length_penalty == 0.0
    (run / "decode.json").write_text('{"length_penalty": 1.4}\n', encoding="utf-8")
    assert opened(run, unset).config.length_penalty == 1.4
    told = TranslateOptions(decode=DecodeConfig(beam_size=3, length_penalty=0.0))
    assert opened(run, told).config.length_penalty == 0.0


def test_a_model_gives_never_seen_nouns_their_cognates_when_its_decode_json_says(
    trained_run: Path, tmp_path: Path
) -> None:
    run = copy_of(trained_run, tmp_path)
    unset = TranslateOptions(decode=DecodeConfig(beam_size=2))
    plain = opened(run, unset)
    assert plain.options.cognates is False and plain.unseen is None
    (run / "decode.json").write_text('{"cognates": true}\n', encoding="utf-8")
    helped = opened(run, unset)
    assert helped.options.cognates is True
    lines = ["Where is the velocity?", "Where is the museum?"]
    before = [t.text for t in plain.translate(lines)]
    after = [t.text for t in helped.translate(lines)]
    each = [t.text for t in helped.translate_each(lines, [None, None])]  # the server's way
    assert "velocidad" not in before[0] and "velocidad" in after[0].lower()
    assert after[1] == before[1] and each == after
    told = replace(unset, cognates=False)
    assert opened(run, told).unseen is None


@pytest.mark.parametrize("switch", DECODE_SWITCHES)
def test_each_decode_json_switch_is_the_model_s_own_unless_told(
    trained_run: Path, tmp_path: Path, switch: str
) -> None:
    run = copy_of(trained_run, tmp_path)
    unset = TranslateOptions(decode=DecodeConfig(beam_size=2))
    assert getattr(opened(run, unset).options, switch) is False
    (run / "decode.json").write_text(f'{{"{switch}": true}}\n', encoding="utf-8")
    assert resolve(run).switch(switch) is True
    assert getattr(opened(run, unset).options, switch) is True
    told = replace(unset, **{switch: False})
    assert getattr(opened(run, told).options, switch) is False


def test_a_name_that_is_no_decode_json_switch_is_a_programming_error(trained_run: Path) -> None:
    with pytest.raises(ValueError, match="'beam' is not a decode.json switch"):
        resolve(trained_run).switch("beam")


@pytest.mark.parametrize(
    ("setting", "refused"),
    [('"length_penalty": "long"', "length_penalty must be a number >= 0")]
    + [
        (f'"{switch}": "yes"', f"{switch} must be true or false, got 'yes'")
        for switch in DECODE_SWITCHES
    ],
)
def test_a_decode_json_setting_of_the_wrong_kind_is_refused(
    trained_run: Path, tmp_path: Path, setting: str, refused: str
) -> None:
    run = copy_of(trained_run, tmp_path)
    (run / "decode.json").write_text(f"{{{setting}}}\n", encoding="utf-8")
    with pytest.raises(MtError, match=rf"decode\.json: {re.escape(refused)}"):
        resolve(run)


def test_a_model_lowers_a_sentence_s_first_word_when_its_decode_json_says(
    trained_run: Path, tmp_path: Path
) -> None:
    run = copy_of(trained_run, tmp_path)
    unset = TranslateOptions(decode=DecodeConfig(beam_size=2), normalize=False)
    plain = opened(run, unset)
    assert plain.options.first_words is False and plain.pipeline.first_words.words is None
    (run / "decode.json").write_text('{"first_words": true}\n', encoding="utf-8")
    lowering = opened(run, unset)
    words = lowering.pipeline.first_words.words
    assert words is not None
    assert words.candidates == candidates(read_word_stats(run / "words.tsv"))
    lowered = sorted(w for w in words.candidates if words.lowered(w.capitalize()) is not None)
    assert lowered, "the tiny run has lower-case words its vocabulary splits when capitalised"
    line = f"{lowered[0].capitalize()} is near the station."
    [as_lower] = plain.translate([line[0].lower() + line[1:]])
    [helped] = lowering.translate([line])
    assert helped.text == capitalised_first(as_lower.text) and helped.source == line
    told = replace(unset, first_words=False)
    assert opened(run, told).pipeline.first_words.words is None
    assert not words.titles
    (run / "decode.json").write_text('{"first_words": true, "titles": true}\n', encoding="utf-8")
    titled = opened(run, unset).pipeline.first_words.words
    assert titled is not None and titled.titles and titled.candidates == words.candidates


def test_a_decode_json_with_a_retired_switch_loads_and_the_switch_does_nothing(
    trained_run: Path, tmp_path: Path
) -> None:
    """end_marks and stutters were measured and shipped in no version: an old decode.json that
    still names them loads as any key mt does not know, and translates as without them."""
    run = copy_of(trained_run, tmp_path)
    unset = TranslateOptions(decode=DecodeConfig(beam_size=2))
    lines = ["Ilse is near the station!", "Where is the museum?"]
    before = [t.text for t in opened(run, unset).translate(lines)]
    (run / "decode.json").write_text('{"end_marks": true, "stutters": true}\n', encoding="utf-8")
    old = opened(run, unset)
    assert not hasattr(old.options, "end_marks") and not hasattr(old.options, "stutters")
    assert [t.text for t in old.translate(lines)] == before
