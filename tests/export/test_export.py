"""`mt export`: CTranslate2 parity with mt's PyTorch search, and the export directory's contract.

Two tiny models are trained for a few hundred steps on the invented corpus, so their search is not
trivial: a pre-norm one with tied embeddings (shared vocabulary) and a post-norm one with separate
embeddings, the two layouts the converter must get right.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import mt
from conftest import cli_output, invented_pairs, run_cli, ship_tiny, write_corpus
from mt.catalog.modelinfo import resolve
from mt.config import DecodeConfig, ModelConfig
from mt.data.tokenization import BOS, EOS, PAD, encode_sources
from mt.decode.ct2_engine import ExportedRun, open_exported
from mt.decode.engine import TorchEngine
from mt.decode.options import TranslateOptions
from mt.decode.translator import translator_for
from mt.evaluate.scores import corpus_scores
from mt.export.writer import export_run
from mt.model.rundir import LoadedRun, load_run, save_weights
from mt.storage.files import CHECKSUMS

CPU = torch.device("cpu")
SCORE_TOLERANCE = 1e-4
INT8_BLEU_MARGIN = 10.0
"""int8 may lose at most this much BLEU against float32 on the training sentences: these d = 64
models quantize coarsely (drops of 1 to 8.2 BLEU seen across runs); the bench model is the real
check (bench-export: int8 within 0.5 BLEU of PyTorch)."""


@pytest.fixture(scope="module")
def corpus_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("export")
    corpus = write_corpus(root / "corpus.tsv")
    run_cli("prepare", corpus, "--out", root / "data", "--src-vocab", "150", "--tgt-vocab", "180")
    run_cli("prepare", corpus, "--out", root / "shared", "--shared-vocab", "220")
    return root


def _train(root: Path, data: str, name: str, *flags: str, steps: int = 300) -> Path:
    run = root / name
    if (run / "best.safetensors").exists():  # trained for an earlier test of this module
        return run
    run_cli(
        "train", root / data, "--out", run, "--preset", "thesis-small", *flags, "--lr", "0.05",
        "--warmup", "30", "--batch-size", "32", "--max-steps", str(steps), "--threads", "1",
        "--device", "cpu",
    )  # fmt: skip
    return run


@pytest.fixture(scope="module", params=["pre-norm-tied", "post-norm"])
def trained(request: pytest.FixtureRequest, corpus_root: Path) -> Path:
    if request.param == "post-norm":
        return request.getfixturevalue("post_norm")
    return _train(corpus_root, "shared", "pre-norm-tied", "--pre-norm", "--tie-embeddings")


@pytest.fixture(scope="module")
def post_norm(corpus_root: Path) -> Path:
    """One of the two models, for tests of the command rather than of the conversion."""
    return _train(corpus_root, "data", "post-norm", "--post-norm")


@pytest.fixture(scope="module")
def float32_export(trained: Path) -> Path:
    out = trained.with_name(trained.name + "-float32")
    export_run(resolve(trained), out, quantization="float32")
    return out


def _sentences(run: LoadedRun) -> list:
    """Every English sentence of the corpus as mt's source ids (ending in EOS)."""
    english = sorted({en for en, _ in invented_pairs()})
    ids = run.source.encode_batch(english)
    return encode_sources(ids, run.config.max_positions - 1)


def _both(trained: Path, export: Path) -> tuple[TorchEngine, ExportedRun, list]:
    run = load_run(resolve(trained), "best", CPU)
    exported = open_exported(resolve(export), device="cpu", threads=1, compute_type="default")
    return TorchEngine(run.model, CPU), exported, _sentences(run)


def _compare(torch_engine, ct2_engine, sentences, config: DecodeConfig) -> None:
    for start in range(0, len(sentences), 64):
        batch = sentences[start : start + 64]
        ours = torch_engine.search(batch, config)
        theirs = ct2_engine.search(batch, config)
        for index, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
            where = f"sentence {start + index}, {config}"
            assert other[0].tokens == mine[0].tokens, where
            assert abs(other[0].score - mine[0].score) <= SCORE_TOLERANCE, where


def test_float32_greedy_gives_pytorch_ids_and_scores(trained: Path, float32_export: Path) -> None:
    torch_engine, exported, sentences = _both(trained, float32_export)
    assert len(sentences) > 300
    _compare(torch_engine, exported.engine, sentences, DecodeConfig(beam_size=1))


def test_float32_beam_gives_pytorch_best_hypothesis(trained: Path, float32_export: Path) -> None:
    torch_engine, exported, sentences = _both(trained, float32_export)
    _compare(torch_engine, exported.engine, sentences, DecodeConfig(beam_size=5))


def test_a_length_penalty_searches_the_batch_as_sentence_by_sentence(
    trained: Path, float32_export: Path
) -> None:
    """With α > 0 the batch's finished hypotheses stand where the search stopped before each
    sentence's own limit; the others are searched again to it: the same best as searching each
    sentence to its own limit, in a fraction of the calls."""
    _, exported, sentences = _both(trained, float32_export)
    engine = exported.engine
    config = DecodeConfig(beam_size=5, length_penalty=1.4, max_len_a=0.5, max_len_b=4)
    batch = sentences[:64]
    together = engine.search(batch, config)
    alone = [
        engine._search_group([engine._source_tokens(ids)], engine._limit(len(ids), config), config)[
            0
        ]
        for ids in batch
    ]
    for index, (one, other) in enumerate(zip(together, alone, strict=True)):
        assert one[0].tokens == other[0].tokens, f"sentence {index}"
        assert abs(one[0].score - other[0].score) <= SCORE_TOLERANCE, f"sentence {index}"
    limits = [engine._limit(len(ids), config) for ids in batch]
    assert len(set(limits)) > 1, "the batch mixes limits"


@pytest.mark.parametrize(
    ("beam", "a", "b"), [(1, 0.0, 3), (5, 0.0, 3), (1, 0.5, 2), (5, 0.5, 2), (5, 0.5, 1)]
)
def test_length_limit_forces_eos_as_pytorch_does(
    trained: Path, float32_export: Path, beam: int, a: float, b: int
) -> None:
    """At most 3 labels: every sentence is cut off, and mt scores the forced EOS; at most
    a * S + b: limits differ inside a batch and some sentences are cut off."""
    torch_engine, exported, sentences = _both(trained, float32_export)
    config = DecodeConfig(beam_size=beam, max_len_a=a, max_len_b=b)
    _compare(torch_engine, exported.engine, sentences[:64], config)


def test_banned_labels_are_never_chosen_and_scores_stay_unnormalised(
    trained: Path, tmp_path: Path
) -> None:
    """A model pushed to prefer [PAD], which mt bans without renormalising. Greedy search must
    still match mt exactly; beam search may rank differently once the ban matters (CTranslate2's
    suppression renormalises), but never emits a banned label and reports true log-probs."""
    run = load_run(resolve(trained), "best", CPU)
    with torch.no_grad():
        run.model.projection.bias[PAD] += 12.0
    biased = tmp_path / "biased"
    shutil.copytree(trained, biased)
    save_weights(biased / "best.safetensors", run.model)
    export_run(resolve(biased), tmp_path / "biased-export", quantization="float32")
    torch_engine, exported, sentences = _both(biased, tmp_path / "biased-export")
    _compare(torch_engine, exported.engine, sentences[:40], DecodeConfig(beam_size=1))
    beams = exported.engine.search(sentences[:40], DecodeConfig(beam_size=5, n_best=5))
    for source, hyps in zip(sentences[:40], beams, strict=True):
        for hyp in hyps:
            assert PAD not in hyp.tokens and BOS not in hyp.tokens
            exact = _log_prob(run.model, source, hyp.tokens)
            assert hyp.log_prob == pytest.approx(exact, abs=SCORE_TOLERANCE)


def _log_prob(model: torch.nn.Module, source, tokens: tuple[int, ...]) -> float:
    """Teacher-forced log-prob of `tokens` then EOS, no label banned or renormalised."""
    src = torch.as_tensor(source)[None]
    tgt_in = torch.tensor([[BOS, *tokens]])
    with torch.no_grad():
        log_probs = model(src, src != PAD, tgt_in)[0].float().log_softmax(-1)
    return float(log_probs[torch.arange(len(tokens) + 1), torch.tensor([*tokens, EOS])].sum())


def test_int8_keeps_bleu_and_finite_scores(trained: Path, float32_export: Path) -> None:
    int8 = trained.with_name(trained.name + "-int8")
    export_run(resolve(trained), int8, quantization="int8", force=True)
    english, spanish = [en for en, _ in invented_pairs()], [[es] for _, es in invented_pairs()]
    bleu = {}
    for name, directory in (("float32", float32_export), ("int8", int8)):
        exported = open_exported(
            resolve(directory), device="cpu", threads=1, compute_type="default"
        )
        translator = translator_for(exported, TranslateOptions(normalize=False), CPU)
        translations = list(translator.translate(english))
        assert all(math.isfinite(t.hypotheses[0][1]) for t in translations)
        bleu[name] = corpus_scores([t.text for t in translations], spanish).bleu
    assert bleu["float32"] > 30, bleu  # the tiny model has learned the corpus
    assert bleu["int8"] >= bleu["float32"] - INT8_BLEU_MARGIN, bleu


def test_cli_translate_and_evaluate_read_an_export(trained: Path, float32_export: Path) -> None:
    sentences = ["Ilse likes bread.", "Where is the museum, Bruno?", "I have 7 cats."]
    for flags in ((), ("--beam-size", "1"), ("--n-best", "3")):
        from_run = run_cli("translate", "--model", trained, *sentences, *flags).stdout
        from_export = run_cli(
            "translate", "--model", float32_export, *sentences, *flags, "--threads", "1"
        )
        assert _nbest_rows(from_export.stdout, approx=True) == _nbest_rows(from_run), flags
    run_report = cli_output("evaluate", trained, "--limit", "40")
    export_report = cli_output("evaluate", float32_export, "--limit", "40", "--threads", "1")
    assert "n/a (export)" in export_report
    # score_batch gives the same teacher-forced cross-entropy as the PyTorch model.
    assert _figure(export_report, "cross-entropy") == pytest.approx(
        _figure(run_report, "cross-entropy"), abs=1e-4
    )
    assert _figure(export_report, "BLEU") == _figure(run_report, "BLEU")


def test_translate_attention_heatmap_from_an_export(
    trained: Path, float32_export: Path, tmp_path: Path
) -> None:
    """--attention reads CTranslate2's attention for an export, as it reads the model's for a
    run: both make the heatmap."""
    for model in (trained, float32_export):
        image = tmp_path / f"{model.name}.png"
        run_cli("translate", "--model", model, "Ilse likes bread.", "--attention", image)
        assert image.read_bytes().startswith(b"\x89PNG")


def test_a_glossary_reaches_the_output_through_an_export(
    trained: Path, float32_export: Path, tmp_path: Path
) -> None:
    terms = tmp_path / "terms.tsv"
    terms.write_text("museum\tpinacoteca\nbread\tbaguette\n", encoding="utf-8")
    sentences = ["Where is the museum, Bruno?", "Ilse likes bread.", "I have 7 cats."]
    glossary = ("--glossary", terms, "--beam-size", "1")
    from_run = run_cli("translate", "--model", trained, *sentences, *glossary).stdout
    from_export = run_cli(
        "translate", "--model", float32_export, *sentences, *glossary, "--threads", "1"
    )
    assert from_export.stdout == from_run
    lines = from_run.lower().splitlines()  # a term that starts the sentence gets its capital
    assert "pinacoteca" in lines[0] and "baguette" in lines[1]


def _nbest_rows(output: str, *, approx: bool = False) -> list[tuple[object, ...]]:
    """Output lines with any n-best score as a number: printed to 4 decimals, two engines'
    scores within SCORE_TOLERANCE may still round to different last digits."""
    rows: list = []
    for line in output.splitlines():
        fields = line.split("\t")
        if len(fields) == 3:
            score = float(fields[1])
            rows.append((fields[0], fields[2], pytest.approx(score, abs=2e-4) if approx else score))
        else:
            rows.append((line,))
    return rows


def _figure(report: str, metric: str) -> float:
    line = next(line for line in report.splitlines() if line.strip("│┃ ").startswith(metric))
    return float(line.split("│")[-2].strip())


# ----- a deep encoder and a shallow decoder (issue 66) ------------------------------------------


@pytest.fixture(scope="module")
def deep_shallow(corpus_root: Path) -> Path:
    """3 encoder layers, 1 decoder layer, trained for a few steps: enough for a search that is
    not trivial, on the shape CTranslate2 must be told twice (its spec's separate counts)."""
    return _train(
        corpus_root, "data", "deep-shallow", "--pre-norm", "--encoder-layers", "3",
        "--decoder-layers", "1", steps=120,
    )  # fmt: skip


def test_unequal_stacks_export_and_search_as_pytorch_does(deep_shallow: Path) -> None:
    info = resolve(deep_shallow)
    assert (info.config.encoder_depth, info.config.decoder_depth) == (3, 1)
    export = deep_shallow.with_name("deep-shallow-float32")
    export_run(info, export, quantization="float32")
    assert resolve(export).config == info.config
    torch_engine, exported, sentences = _both(deep_shallow, export)
    greedy = torch_engine.search(sentences[:64], DecodeConfig(beam_size=1))
    assert sum(len(best[0].tokens) for best in greedy) > 3 * 64  # not a trivial search
    for beam in (1, 5):
        _compare(torch_engine, exported.engine, sentences, DecodeConfig(beam_size=beam))


def test_unequal_stacks_int8_export_shipped_copy_and_listing(
    deep_shallow: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The int8 export; the shipped-model writer, and the int8 copy `mt translate` makes of a
    shipped model; `mt models`' summary: each keeps the 3+1 shape."""
    sentences = ["Ilse likes bread.", "Where is the museum, Bruno?"]
    int8 = deep_shallow.with_name("deep-shallow-int8")
    export_run(resolve(deep_shallow), int8, quantization="int8", force=True)
    from_export = run_cli("translate", "--model", int8, *sentences, "--threads", "1").stdout
    assert len(from_export.splitlines()) == 2 and all(from_export.splitlines())
    shipped = ship_tiny(tmp_path, deep_shallow, monkeypatch)
    stored = ModelConfig.from_dict(json.loads((shipped / "model.json").read_text())["model"])
    assert (stored.encoder_depth, stored.decoder_depth) == (3, 1)
    from_copy = run_cli("translate", *sentences, "--beam-size", "1", "--threads", "1").stdout
    assert len(from_copy.splitlines()) == 2 and all(from_copy.splitlines())
    assert any((tmp_path / "home").rglob("model.bin")), "translated without the int8 copy"
    summaries = [entry.summary for entry in mt.models(deep_shallow.parent)]
    assert any("3+1 layers" in summary for summary in summaries), summaries


def test_export_directory_is_complete_and_checked(float32_export: Path, tmp_path: Path) -> None:
    names = {p.relative_to(float32_export).as_posix() for p in float32_export.rglob("*")}
    for name in ("model.json", "train.json", "source-tokenizer.json", "target-tokenizer.json",
                 "lexicon.tsv", "words.tsv", "ctranslate2/model.bin", CHECKSUMS):  # fmt: skip
        assert name in names
    broken = tmp_path / "broken"
    shutil.copytree(float32_export, broken)
    model_bin = broken / "ctranslate2" / "model.bin"
    data = bytearray(model_bin.read_bytes())
    data[-1] ^= 0xFF
    model_bin.write_bytes(bytes(data))
    output = cli_output("translate", "--model", broken, "Hello.", code=2)
    assert "checksum mismatch" in output and "model.bin" in output


def test_an_export_keeps_the_run_s_length_penalty(trained: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(trained, run)
    (run / "decode.json").write_text('{"length_penalty": 1.4}\n', encoding="utf-8")
    out = tmp_path / "export"
    export_run(resolve(run), out, quantization="int8")
    assert resolve(out).length_penalty == 1.4


def test_rnn_run_is_refused_and_nothing_written(corpus_root: Path) -> None:
    rnn = corpus_root / "rnn"
    run_cli(
        "train", corpus_root / "data", "--out", rnn, "--preset", "rnn-small", "--max-steps", "2",
        "--threads", "1", "--device", "cpu",
    )  # fmt: skip
    output = cli_output("export", rnn, "--out", corpus_root / "rnn-export", code=2)
    assert "CTranslate2 runs Transformers only" in output
    assert len(output.strip().splitlines()) == 1
    assert not (corpus_root / "rnn-export").exists()


def test_existing_out_needs_force_and_force_replaces_only_exports(
    post_norm: Path, tmp_path: Path
) -> None:
    out = tmp_path / "export"
    run_cli("export", post_norm, "--out", out, "--quantization", "float32")
    assert "already exists; use --force" in cli_output("export", post_norm, "--out", out, code=2)
    assert '"quantization": "float32"' in (out / "model.json").read_text()
    run_cli("export", post_norm, "--out", out, "--force")
    assert '"quantization": "int8"' in (out / "model.json").read_text()
    # --force never replaces what `mt export` did not write, nor the run itself.
    refused = cli_output("export", post_norm, "--out", post_norm.parent, "--force", code=2)
    assert "not an mt export" in refused
    refused = cli_output("export", post_norm, "--out", post_norm, "--force", code=2)
    assert "run directory itself" in refused
    assert (post_norm / "best.safetensors").is_file()


def test_failed_export_leaves_nothing_and_keeps_the_old_one(
    post_norm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import mt.export.writer

    def fail(directory: Path) -> None:
        raise OSError(28, "No space left on device")

    out = tmp_path / "export"
    monkeypatch.setattr(mt.export.writer, "write_checksums", fail)
    assert "No space left" in cli_output("export", post_norm, "--out", out, code=1)
    assert list(tmp_path.iterdir()) == []  # no export and no temporary directory
    monkeypatch.undo()
    run_cli("export", post_norm, "--out", out, "--quantization", "float32")
    before = (out / CHECKSUMS).read_text()
    monkeypatch.setattr(mt.export.writer, "write_checksums", fail)
    cli_output("export", post_norm, "--out", out, "--force", code=1)
    assert (out / CHECKSUMS).read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]


def test_missing_ctranslate2_is_one_clear_line(
    post_norm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export_run(resolve(post_norm), tmp_path / "export")
    monkeypatch.setitem(sys.modules, "ctranslate2", None)  # `import ctranslate2` now fails
    output = cli_output("export", post_norm, "--out", tmp_path / "out", code=1)
    assert "needs the ctranslate2 package: pip install 'ctranslate2>=4.5'" in output
    assert not (tmp_path / "out").exists()
    output = cli_output("translate", "--model", tmp_path / "export", "Hello.", code=1)
    assert "needs the ctranslate2 package" in output


def test_mt_imports_without_ctranslate2() -> None:
    """A fresh interpreter in which ctranslate2 cannot be imported at all."""
    code = (
        "import sys; sys.modules['ctranslate2'] = None\n"
        "import mt.cli.app, mt.train.launch, mt.train.trainer, mt.decode.translator\n"
        "import mt.evaluate.evaluation, mt.export.writer\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.stdout.strip() == "ok", result.stderr
