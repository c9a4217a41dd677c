"""Protected spans through the Translator: a model with placeholder tokens gets every span as a
token and every span back; an older model keeps its stand-ins; --keep files and their errors.

The model here echoes its source (a scripted search engine), so what comes out is exactly what the
protection put in, and the test sees what a trained model would be asked to copy.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
import torch

from conftest import invented_pairs, legacy_models, run_cli, tiny_run
from mt.catalog.modelinfo import read_train_config, resolve
from mt.config import DecodeConfig
from mt.data.feed.augment import PLACEHOLDER_RATE
from mt.data.tokenization import EOS, PLACEHOLDERS, WordPieceCodec
from mt.decode.loaded import LoadedModel
from mt.decode.options import TranslateOptions
from mt.decode.results import total
from mt.decode.search import Hypothesis
from mt.decode.translator import Translator, open_translator
from mt.errors import MtError
from placeholder_support import placeholder_codec

LEGACY_RUN = legacy_models() / "run"


class EchoEngine:
    """A search engine that copies its source (or answers `answer`); `seen` gets each text the
    model was given."""

    def __init__(self, codec: WordPieceCodec, answer: str | None = None) -> None:
        self.codec = codec
        self.answer = answer
        self.seen: list[str] = []

    def search(self, sources: list[np.ndarray], config: object) -> list[list[Hypothesis]]:
        tokens = [tuple(int(i) for i in s if i != EOS) for s in sources]
        self.seen.extend(self.codec.decode(t) for t in tokens)
        if self.answer is not None:
            tokens = [tuple(self.codec.encode(self.answer)) for _ in tokens]
        return [[Hypothesis(t, 0.0, 0.0)] for t in tokens]


def echo_translator(
    trained_run: Path, keep: tuple[str, ...] = (), answer: str | None = None
) -> tuple[Translator, list]:
    """A Translator whose model has placeholder tokens and copies its source (or answers
    `answer`); the list gets each text the model was given."""
    options = TranslateOptions(decode=DecodeConfig(beam_size=1))
    loaded = open_translator(resolve(trained_run), options, device="cpu").run
    codec = placeholder_codec([text for pair in invented_pairs() for text in pair], 300)
    run = dataclasses.replace(loaded, source=codec, target=codec)
    engine = EchoEngine(codec, answer)
    model = LoadedModel(run, torch.device("cpu"), engine=engine)
    return Translator(model, dataclasses.replace(options, keep=keep)), engine.seen


def test_every_span_goes_through_a_token_and_comes_back_exactly(trained_run: Path) -> None:
    translator, seen = echo_translator(trained_run, keep=("Ilse Berg",))
    line = "Ilse Berg likes www.cisco.com, /etc/hosts, 1,000.50 and %s at 10:30, Zbigniew."
    (translation,) = translator.translate([line])
    p = PLACEHOLDERS
    assert seen == [f"{p[0]} likes {p[1]}, {p[2]}, {p[3]} and {p[4]} at {p[5]}, {p[6]}."]
    assert translation.text == line
    assert translation.counts.lost_spans == 0


def test_a_span_the_model_loses_is_put_back_and_counted(trained_run: Path) -> None:
    translator, _ = echo_translator(trained_run, answer="Ilse likes soup.")
    (translation,) = translator.translate(["Ilse likes www.x.org."])
    assert translation.text == "Ilse likes soup www.x.org."
    assert translation.counts.lost_spans == 1


def test_a_model_without_tokens_keeps_its_stand_ins_and_refuses_keep() -> None:
    translator = open_translator(
        resolve(LEGACY_RUN), TranslateOptions(decode=DecodeConfig(beam_size=1)), device="cpu"
    )
    assert not translator.model.span_tokens
    masked = translator.pipeline.mask.apply("Zbigniew likes 4817 cats.", None)
    assert masked.text == "Tom likes Mary cats."
    with pytest.raises(MtError, match="--keep needs a model whose tokenizers have placeholder"):
        open_translator(
            resolve(LEGACY_RUN),
            TranslateOptions(decode=DecodeConfig(), keep=("Ilse",)),
            device="cpu",
        )


def test_keep_file_errors_are_one_clear_line(trained_run: Path, tmp_path: Path) -> None:
    def error(keep: Path, run: Path = trained_run) -> str:
        result = run_cli(
            "translate", "--model", run, "Hi.", "--device", "cpu", "--keep", keep, code=2
        )
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), result.output
        return lines[0]

    assert f"--keep {tmp_path / 'none.txt'}: no such file" in error(tmp_path / "none.txt")
    (tmp_path / "bad.txt").write_bytes(b"Ilse\nBerg\xff\n")
    assert "bad.txt, line 2: not UTF-8 text" in error(tmp_path / "bad.txt")
    (tmp_path / "tab.txt").write_text("# names\n\nIlse\nIlse\tBerg\n", encoding="utf-8")
    assert "tab.txt, line 4: a tab; give one name a line" in error(tmp_path / "tab.txt")
    served = run_cli("serve", trained_run, "--keep", tmp_path / "none.txt", code=2)
    assert "--keep" in served.stderr and "no such file" in served.stderr  # before listening
    (tmp_path / "good.txt").write_text("Ilse\n", encoding="utf-8")
    assert "--keep needs a model whose tokenizers" in error(tmp_path / "good.txt", LEGACY_RUN)
    output = run_cli(
        "translate",
        "--model",
        trained_run,
        "Ilse.",
        "--device",
        "cpu",
        "--keep",
        tmp_path / "good.txt",
    )
    assert output.stdout.strip()


@pytest.fixture(scope="module")
def placeholder_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The invented corpus (names and numbers its pairs copy), prepared, and a thesis-small run
    trained 120 steps with the default --placeholders 0.5."""
    return tiny_run(tmp_path_factory.mktemp("placeholders"), steps=120)


def test_a_model_trained_with_placeholders_copies_unseen_numbers_and_names(
    placeholder_run: Path,
) -> None:
    assert read_train_config(placeholder_run)[0].placeholders == PLACEHOLDER_RATE
    translator = open_translator(
        resolve(placeholder_run), TranslateOptions(decode=DecodeConfig(beam_size=1)), device="cpu"
    )
    lines = ["I have 4817 books.", "It's 10:45 already.", "Where is the museum, Zbigniew?"]
    spans = ["4817", "10:45", "Zbigniew"]
    translations = list(translator.translate(lines))
    protected = [t.text for t in translations]
    assert all(span in text for span, text in zip(spans, protected, strict=True)), protected
    assert total(translations).lost_spans == 0
    # the same model without them mangles what it never saw: a four-digit number and a name
    # (a time it may put together from the hours and minutes the corpus has: "10:45" did, once)
    without = translator.with_options(dataclasses.replace(translator.options, placeholders=False))
    plain = [t.text for t in without.translate(lines)]
    unseen = [(span, text) for span, text in zip(spans, plain, strict=True) if span != "10:45"]
    assert not any(span in text for span, text in unseen), plain
