"""benchmarks/peers/: bench_peer needs eole in .venv-eole (`make bench-peer` installs it) and
minutes of training, so here: its options, its clear stop without eole, and the pieces that read
eole's log, write its config and check the targets; peer_spm (eole's Python runs it) with the
dev extras' sentencepiece."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.peers import bench_peer

pytestmark = pytest.mark.usefixtures("torch_threads")

PEER_SPM = Path(bench_peer.__file__).with_name("peer_spm.py")
EOLE_LOG = "".join(
    f"[2026-11-26 10:00:{second:02} INFO] Step {step}/ 400; acc: 8.3; ppl: 400.5; xent: 6.0; "
    f"lr: 0.0002; sents: 3200; bsz: 700/ 650/ 64; 2000/ {tokens} tok/s;     {second} sec;\n"
    for step, tokens, second in ((50, 1800, 20), (100, 1850, 40))
)
"""Two of eole 0.6.4's report lines."""


def test_bench_peer_says_what_it_needs_without_eole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as done:
        bench_peer.main(["--help"])
    assert (
        done.value.code == 0 and "python -m benchmarks.peers.bench_peer" in capsys.readouterr().out
    )
    monkeypatch.setattr(bench_peer, "EOLE_VENV", tmp_path / "no-eole" / "bin")
    with pytest.raises(SystemExit, match="make bench-peer"):
        bench_peer.main(["--out", str(tmp_path)])


def test_bench_peer_reads_eoles_log_writes_its_config_and_checks_the_targets(
    tmp_path: Path,
) -> None:
    assert bench_peer.eole_steps_per_second(EOLE_LOG) == (100, 2.5, 1850.0)
    config = bench_peer.eole_config(tmp_path / "data", tmp_path / "run", 400)
    assert "train_steps: 400" in config and f"tgt_vocab_size: {bench_peer.VOCAB['es']}" in config
    results = {"eole": {"steps_per_second": 2.604, "tokens_per_second": 935.0},
               "mt_fp32": {"steps_per_second": 1.866, "tokens_per_second": 1121.0},
               "mt_auto": {"steps_per_second": 1.866, "tokens_per_second": 1121.0}}  # fmt: skip
    [check] = bench_peer.targets(results)
    assert check.met and check.value == 1.2, "the AVX2 run of 2026-11-27 holds the target"
    assert (results["ratio_fp32"], results["token_ratio_fp32"]) == (0.717, 1.199)
    assert results["token_ratio_auto"] == 1.199, "the auto run's ratios are figures, no target"
    results["mt_fp32"]["tokens_per_second"] = 1000.0
    [check] = bench_peer.targets(results)
    assert not check.met and check.value == 1.07


def test_peer_spm_trains_encodes_and_decodes(corpus_file: Path, tmp_path: Path) -> None:
    english = tmp_path / "train.en"
    lines = [line.split("\t")[0] for line in corpus_file.read_text().splitlines()]
    english.write_text("\n".join(lines) + "\n")
    model = tmp_path / "spm"

    def spm(*args: Path | str) -> None:
        subprocess.run([sys.executable, PEER_SPM, *map(str, args)], check=True)

    spm("train", english, model, 100)
    spm("encode", f"{model}.model", english, tmp_path / "pieces")
    spm("decode", f"{model}.model", tmp_path / "pieces", tmp_path / "back")
    spm("vocab", f"{model}.model", tmp_path / "vocab")
    assert (tmp_path / "back").read_text().splitlines() == lines
    assert len((tmp_path / "vocab").read_text().splitlines()) == 100 - 3
