"""mt as a library, called as a user would: `import mt` is cheap, a string gives a string and a
list a list, the answers are the command's, one Translator serves many threads, and every problem
is an MtError with the command's one-line message, never an exit or a print."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

import mt
from conftest import cli_output
from mt.catalog.modelinfo import DEFAULT_MODEL

SENTENCES = ["Where is the train station?", "I don't like coffee.", "Save the document."]


@pytest.fixture(scope="module")
def shipped() -> mt.Translator:
    return mt.load()


def test_importing_mt_loads_no_model_engine_or_array_library() -> None:
    loaded = subprocess.run(
        [sys.executable, "-c", "import mt, sys; print(sorted(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    heavy = {
        "torch",
        "ctranslate2",
        "numpy",
        "pandas",
        "tokenizers",
        "typer",
        "mt.catalog.modelinfo",
    }
    assert heavy.isdisjoint(eval(loaded))  # noqa: S307 - our own child's printed list


def test_a_string_gives_a_string_and_a_list_a_list_as_the_command_gives(
    shipped: mt.Translator,
) -> None:
    one = mt.translate(SENTENCES[0])
    assert isinstance(one, str) and one.startswith("¿")
    many = shipped.translate(SENTENCES)
    assert isinstance(many, list) and many[0] == one
    assert cli_output("translate", *SENTENCES).splitlines() == many
    assert shipped.translate([]) == []
    assert shipped.model.name == DEFAULT_MODEL and shipped.engine == "ctranslate2 int8 copy"


def test_one_translator_serves_many_threads_with_the_answers_of_one(
    shipped: mt.Translator,
) -> None:
    lines = [f"{sentence} {n}" for n in range(6) for sentence in SENTENCES]
    expected = shipped.translate(lines)
    results: dict[int, list[str]] = {}

    def work(index: int) -> None:
        results[index] = shipped.translate(lines, beam_size=5 if index % 2 else None)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[i] for i in range(4)] == [expected] * 4


def test_call_options_apply_to_that_call_only(shipped: mt.Translator) -> None:
    sentence = "Save the document before closing it."
    plain = shipped.translate(sentence)
    forced = shipped.translate(sentence, glossary={"document": "expediente"})
    assert "expediente" in forced and "expediente" not in plain
    assert shipped.translate(sentence) == plain
    assert shipped.translate(sentence, beam_size=1) == mt.load(beam_size=1).translate(sentence)


def test_scored_gives_confidence_flags_and_the_n_best(shipped: mt.Translator) -> None:
    best = shipped.scored("I like cheese.")
    assert isinstance(best, mt.Scored) and best.text == shipped.translate("I like cheese.")
    assert best.confidence is not None and 0 <= best.confidence <= 1
    three = shipped.scored(["I like cheese.", "Good night."], n_best=3)
    assert [len(s.alternatives) for s in three] == [3, 3]
    assert three[0].alternatives[0][0] == three[0].text
    assert shipped.scored("Das ist ein Haus.").flags == ("not_english",)


def test_a_document_keeps_its_markup(shipped: mt.Translator) -> None:
    html = '<p>Where is the <a href="/station">train station</a>?</p>\n'
    out = shipped.translate_document(html, format="html")
    assert out.startswith("<p>") and 'href="/station"' in out and "estación" in out
    srt = "1\n00:00:01,000 --> 00:00:02,000\nGood morning.\n"
    assert shipped.translate_document(srt.encode(), format="srt").startswith(
        "1\n00:00:01,000 --> 00:00:02,000\n"
    )


def test_models_lists_the_shipped_model_and_the_runs_under_a_folder(trained_run: Path) -> None:
    entries = mt.models(under=trained_run.parent)
    assert entries[0].name == DEFAULT_MODEL and entries[0].default and entries[0].kind == "shipped"
    runs = [e for e in entries if e.kind == "run"]
    assert str(trained_run) in [e.name for e in runs]
    assert mt.load(runs[0].name).translate("Hello.") == mt.translate("Hello.", model=runs[0].name)


@pytest.mark.parametrize(
    ("call", "command"),
    [
        (lambda: mt.load("no-such-model"), ["translate", "--model", "no-such-model", "Hi."]),
        (lambda: mt.load(beam_size=0), ["translate", "--beam-size", "0", "Hi."]),
        (lambda: mt.translate("Hi.", glossary="missing.tsv"), ["translate", "--glossary",
                                                               "missing.tsv", "Hi."]),
        (lambda: mt.load().translate_document("x", format="docx"), ["translate", "--format",
                                                                    "docx", "Hi."]),
    ],
)  # fmt: skip
def test_problems_are_mt_errors_with_the_commands_message_and_nothing_printed(
    call, command: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(mt.Error) as raised:
        call()
    assert capsys.readouterr() == ("", "")
    line = cli_output(*command, code=2).strip()
    assert line == f"error: {raised.value}"


def test_a_bad_text_item_is_named_by_its_number(shipped: mt.Translator) -> None:
    with pytest.raises(mt.MtError, match=r"^text 2: expected a string, got int$"):
        shipped.translate(["Hello.", 3])  # type: ignore[list-item]


@pytest.mark.parametrize("text", [None, 5, b"bytes", 2.5])
def test_a_wrong_type_is_one_mt_error_naming_it_before_a_model_loads(text) -> None:
    with pytest.raises(mt.Error) as raised:
        mt.translate(text)  # type: ignore[arg-type]
    named = type(text).__name__
    assert str(raised.value).startswith(
        f"text: expected a string or a list of strings, got {named}"
    )


def test_the_public_names_are_all_there() -> None:
    assert set(mt.__all__) <= set(dir(mt))
    for name in mt.__all__:
        assert getattr(mt, name) is not None
    with pytest.raises(AttributeError):
        _ = mt.open_translator  # type: ignore[attr-defined]


def test_one_call_resolves_its_model_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The door resolves; everything below takes the ModelInfo (issue 67: three times before)."""
    from mt import api
    from mt.catalog import modelinfo

    described: list[str] = []
    describe = modelinfo.describe

    def counted(directory: Path, **options):
        described.append(str(directory))
        return describe(directory, **options)

    monkeypatch.setattr(modelinfo, "describe", counted)
    cli_output("translate", "Good morning.")
    assert len(described) == 1
    monkeypatch.setattr(api, "_loaded", {})
    mt.translate("Good morning.")
    assert len(described) == 2
    mt.load().translate(["Good morning."])
    assert len(described) == 3


def test_a_dictionary_gives_a_never_seen_noun_its_spanish(tmp_path: Path) -> None:
    lexicon = tmp_path / "en-es.txt"
    lexicon.write_text("zorblat {n} (an invented machine) :: zorbláculo {m}\n", encoding="utf-8")
    sentence = "She bought a new zorblat."
    assert "zorbláculo" not in mt.translate(sentence)
    assert "zorbláculo" in mt.load(dictionary=lexicon).translate(sentence)
    with pytest.raises(mt.Error, match="^dictionary .*missing.txt: no such file$"):
        mt.load(dictionary=tmp_path / "missing.txt")
