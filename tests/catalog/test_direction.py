"""Both directions: a Spanish→English prepared directory and run made from the same inputs
(prepare, train, translate, evaluate, export, serve) and tagged back-translation in prepare."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from conftest import cli_output, invented_pairs, run_cli, write_corpus
from mt.catalog.direction import FORWARD, REVERSE, direction_of
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig, TrainConfig
from mt.data.prepared_dir import load_prepared
from mt.data.tokenization import SYNTHETIC_TAG
from mt.decode.line_engines import ModelEngine
from mt.decode.options import TranslateOptions
from mt.decode.translator import open_translator
from mt.errors import MtError
from mt.text.lexicon import read_lexicon
from noise_support import noisy_sources
from serve_support import model_app, wait_healthy


@pytest.fixture(scope="module")
def reverse_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The invented corpus prepared --reverse and a thesis-small run trained on it briefly."""
    root = tmp_path_factory.mktemp("reverse")
    corpus = write_corpus(root / "corpus.tsv")
    data, run = root / "data", root / "run"
    run_cli("prepare", corpus, "--out", data, "--reverse", "--src-vocab", "180",
            "--tgt-vocab", "150")  # fmt: skip
    run_cli(
        "train", data, "--out", run, "--preset", "thesis-small", "--lr", "0.05",
        "--warmup", "30", "--batch-size", "32", "--max-steps", "45",
        "--eval-every", "15", "--threads", "1", "--device", "cpu",
    )  # fmt: skip
    return run


def test_reverse_parts_are_spanish_first_with_the_forward_split(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.tsv")
    run_cli(
        "prepare", corpus, "--out", tmp_path / "fwd", "--src-vocab", "150", "--tgt-vocab", "180"
    )
    run_cli("prepare", corpus, "--out", tmp_path / "rev", "--reverse", "--src-vocab", "180",
            "--tgt-vocab", "150")  # fmt: skip
    forward, reverse = load_prepared(tmp_path / "fwd"), load_prepared(tmp_path / "rev")
    assert direction_of(forward.info) == FORWARD and direction_of(reverse.info) == REVERSE
    for part in ("train", "selection", "test"):
        assert reverse.read_part(part) == [(es, en) for en, es in forward.read_part(part)]
    assert reverse.source.knows("¿") and not forward.source.knows("¿")
    assert read_lexicon(tmp_path / "rev" / "lexicon.tsv").pairs == 0  # English-only: empty


def test_given_held_out_files_are_written_spanish_first_too(tmp_path: Path) -> None:
    """--selection/--test files are english<TAB>spanish like every input; a reverse directory
    must score them Spanish→English, as its training part is written."""
    pairs = invented_pairs()
    corpus = write_corpus(tmp_path / "corpus.tsv", pairs[20:])
    selection = write_corpus(tmp_path / "selection.tsv", pairs[:10])
    test = write_corpus(tmp_path / "test.tsv", pairs[10:20])
    run_cli("prepare", corpus, "--out", tmp_path / "rev", "--reverse", "--src-vocab", "180",
            "--tgt-vocab", "150", "--selection", selection, "--test", test)  # fmt: skip
    reverse = load_prepared(tmp_path / "rev")
    assert reverse.read_part("selection") == [(es, en) for en, es in pairs[:10]]
    assert reverse.read_part("test") == [(es, en) for en, es in pairs[10:20]]


def test_a_reverse_run_translates_evaluates_and_exports(reverse_run: Path, tmp_path: Path) -> None:
    assert resolve(reverse_run).direction == REVERSE
    recorded = json.loads((reverse_run / "train.json").read_text())
    assert recorded["source_language"] == "es" and recorded["target_language"] == "en"
    output = cli_output("translate", "--model", reverse_run, "¿Dónde está la biblioteca, Ilse?")
    assert output.strip() and "¿" not in output  # English out
    scores = tmp_path / "scores.json"
    run_cli("evaluate", reverse_run, "--limit", "20", "--json", scores)
    assert json.loads(scores.read_text())["pairs"] == 20
    tsv = write_corpus(tmp_path / "test.tsv", invented_pairs()[:5])  # english<TAB>spanish
    hyps = tmp_path / "hyps.txt"
    run_cli("evaluate", reverse_run, "--tsv", tsv, "--hyps", hyps)
    assert "¿" not in hyps.read_text()
    run_cli("export", reverse_run, "--out", tmp_path / "export")
    assert resolve(tmp_path / "export").direction == REVERSE


def test_serve_answers_the_reverse_pair(reverse_run: Path) -> None:
    with TestClient(model_app(reverse_run)) as client:
        wait_healthy(client)
        languages = client.get("/languages").json()
        assert languages == [
            {"code": "en", "name": "English", "targets": []},
            {"code": "es", "name": "Spanish", "targets": ["en"]},
        ]
        model = client.get("/model").json()
        assert (model["source_language"], model["target_language"]) == ("es", "en")
        answer = client.post("/translate", json={"q": "Hola, Ilse.", "source": "es",
                                                 "target": "en"})  # fmt: skip
        assert answer.status_code == 200 and answer.json()["translatedText"]
        refused = client.post("/translate", json={"q": "Hello", "source": "en", "target": "es"})
        assert refused.status_code == 400 and "es → en" in refused.json()["error"]


def write_synthetic(path: Path, count: int) -> Path:
    """`count` back-translated pairs, English that no real pair has."""
    rows = [(f"{en[:-1]} indeed {i}.", es) for i, (en, es) in enumerate(invented_pairs()[:count])]
    return write_corpus(path, rows)


def test_synthetic_pairs_are_tagged_train_only_and_capped(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.tsv")
    synthetic = write_synthetic(tmp_path / "bt.tsv", 300)
    out = tmp_path / "data"
    run_cli("prepare", corpus, "--synthetic", synthetic, "--synthetic-share", "0.25", "--out", out,
            "--src-vocab", "150", "--tgt-vocab", "180")  # fmt: skip
    prepared = load_prepared(out)
    train = prepared.read_part("train")
    tagged = [en for en, _ in train if en.startswith(f"{SYNTHETIC_TAG} ")]
    assert (
        len(tagged)
        == prepared.info["synthetic"]["train"]
        == int(0.25 / 0.75 * (len(train) - len(tagged)))
    )
    assert all(" indeed " in en for en in tagged)
    for part in ("selection", "test"):
        assert not any(
            " indeed " in en or SYNTHETIC_TAG in en for en, _ in prepared.read_part(part)
        )
    ids = prepared.source.encode(tagged[0])
    assert (
        ids[0] == prepared.source.tag_id
        and prepared.source.decode(ids) == tagged[0].split(" ", 1)[1]
    )
    assert prepared.target.tag_id is None  # never an output label
    assert SYNTHETIC_TAG not in "".join(row for row in (out / "lexicon.tsv").read_text().split())


def test_synthetic_pairs_with_held_out_english_leave(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.tsv")
    real = write_corpus(tmp_path / "fwd.tsv")
    run_cli(
        "prepare", real, "--out", tmp_path / "plain", "--src-vocab", "150", "--tgt-vocab", "180"
    )
    test_part = load_prepared(tmp_path / "plain").read_part("test")
    leaking = write_corpus(tmp_path / "bt.tsv", [(en, f"{es} (sintético)") for en, es in test_part])
    out = tmp_path / "data"
    run_cli("prepare", corpus, "--synthetic", leaking, "--synthetic-share", "1", "--out", out,
            "--src-vocab", "150", "--tgt-vocab", "180")  # fmt: skip
    placed = load_prepared(out).info["synthetic"]
    assert placed["held_out_english"] == len(test_part)
    assert placed["train"] == 0


def test_shared_vocabulary_gets_the_tag_on_both_sides_and_decode_drops_it(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.tsv")
    synthetic = write_synthetic(tmp_path / "bt.tsv", 20)
    out = tmp_path / "data"
    run_cli("prepare", corpus, "--synthetic", synthetic, "--shared-vocab", "300", "--out", out)
    prepared = load_prepared(out)
    assert prepared.target.tag_id == prepared.source.tag_id is not None
    assert (
        prepared.target.decode([prepared.target.tag_id, *prepared.target.encode(" Hola")]) == "Hola"
    )


def test_noise_keeps_the_tag_and_spanish_sources_get_neutral_kinds() -> None:
    texts = [f"{SYNTHETIC_TAG} Tom doesn't like bread." for _ in range(50)]
    noisy = noisy_sources(texts, rate=1.0, seed=0, epoch=0, kinds="lower,punctuation,apostrophes")
    assert all(text.startswith(f"{SYNTHETIC_TAG} ") for text in noisy)
    assert any(text != texts[0] for text in noisy)
    spanish = ["¿Dónde está la biblioteca? Don't."] * 50
    kept = noisy_sources(spanish, rate=1.0, seed=0, epoch=0, kinds="apostrophes,typos",
                         english_source=False)  # fmt: skip
    assert kept == spanish  # no English kind applies to a Spanish source


def test_synthetic_share_is_checked() -> None:
    from mt.config import PrepareConfig

    with pytest.raises(MtError, match="--synthetic-share must be in"):
        PrepareConfig(synthetic_share=0)


def test_backtranslate_with_a_reverse_run_and_its_sampled_export(
    reverse_run: Path, tmp_path: Path
) -> None:
    """`mt backtranslate RUN` writes english<TAB>spanish pairs that `mt prepare --synthetic`
    reads; an export samples the same with the same seed and differently with another."""
    spanish = [f"{es} Ilse está cerca de la biblioteca con sus {n} libros." for n, (_, es) in
               enumerate(invented_pairs()[:30])]  # fmt: skip
    mono = tmp_path / "mono.txt"
    mono.write_text("".join(f"{line}\n" for line in spanish), encoding="utf-8")
    pairs = tmp_path / "bt.tsv"
    run_cli("backtranslate", reverse_run, mono, "--out", pairs, "--no-language-check",
            "--device", "cpu", "--threads", "1")  # fmt: skip
    rows = [line.split("\t") for line in pairs.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 30 and all(len(row) == 2 and row[1] for row in rows)
    corpus = write_corpus(tmp_path / "corpus.tsv")
    run_cli("prepare", corpus, "--synthetic", pairs, "--out", tmp_path / "data",
            "--src-vocab", "150", "--tgt-vocab", "180")  # fmt: skip
    assert load_prepared(tmp_path / "data").info["synthetic"]["read"] == len(rows)
    export = tmp_path / "export"
    run_cli("export", reverse_run, "--out", export)

    def draw(seed: int) -> list[str]:
        """CTranslate2 seeds its draws when the model is opened (ModelEngine does so)."""
        config = DecodeConfig(beam_size=1, sampling_topk=0, sampling_temperature=2.0, seed=seed)
        return ModelEngine(resolve(export), config, device="cpu", threads=1).translate(spanish)

    assert draw(1) == draw(1)
    assert draw(1) != draw(2)


def test_english_only_steps_are_off_for_a_spanish_source(
    reverse_run: Path, trained_run: Path
) -> None:
    """A Spanish input is flagged not_english by an English→Spanish run, never by a reverse one,
    and the reverse run's pipeline neither normalises (casual English) nor splits as English."""
    line = "¿Dónde está la biblioteca grande del pueblo, Ilse? Está cerca del puerto."
    forward = json.loads(
        cli_output("translate", "--model", trained_run, "--json", line).splitlines()[-1]
    )
    reverse = json.loads(
        cli_output("translate", "--model", reverse_run, "--json", line).splitlines()[-1]
    )
    assert "not_english" in forward["flags"]
    assert "not_english" not in reverse["flags"] and "copy" not in reverse["flags"]
    translator = open_translator(
        resolve(reverse_run), TranslateOptions(normalize=True), device="cpu"
    )
    pipeline = translator.pipeline
    assert pipeline.segment.normalise is None and pipeline.segment.language == "es"
    assert pipeline.judge.english_source is False


def test_tokenizers_from_a_run_of_the_other_direction_are_refused(
    reverse_run: Path, tmp_path: Path
) -> None:
    corpus = write_corpus(tmp_path / "corpus.tsv")
    message = cli_output("prepare", corpus, "--out", tmp_path / "data", "--tokenizers-from",
                         reverse_run, code=2)  # fmt: skip
    assert "translates Spanish→English; this data is English→Spanish (add --reverse)" in message


def test_training_noise_of_a_spanish_source_keeps_to_the_neutral_kinds(
    reverse_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """train_data tells the augmentation which language the sources are in: a reverse run's
    Spanish gets no English apostrophes or typos."""
    import dataclasses

    import mt.data.feed.batching as batching
    from mt.train.launch import train_data

    seen = []
    real = batching.augmentation

    def spy(*args, **kwargs):
        seen.append(args[5] if len(args) > 5 else kwargs.get("english_source"))
        return real(*args, **kwargs)

    monkeypatch.setattr(batching, "augmentation", spy)
    prepared = load_prepared(reverse_run.parent / "data")
    config = dataclasses.replace(
        TrainConfig(), source_noise=0.3, source_noise_kinds="lower,apostrophes,typos"
    )
    train_data(prepared, config)
    assert seen == [False]
