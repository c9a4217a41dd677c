"""benchmarks/bench_trust.py's sets: the test parts for the record, and with --part dev the
selection part, less the sentences `mt calibrate` fitted the confidence to, for choices."""

from __future__ import annotations

import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import bench_trust  # noqa: E402

from mt.evaluate.calibrate import grouped_references, sample_sources  # noqa: E402


def write_part(path: Path, tag: str, count: int) -> dict[str, list[str]]:
    pairs = [(f"{tag} sentence {i}.", f"Frase {tag} {i}.") for i in range(count)]
    path.write_text("".join(f"{en}\t{es}\n" for en, es in pairs), encoding="utf-8")
    return grouped_references(pairs)


def test_dev_sets_leave_out_what_the_confidence_was_fitted_on(tmp_path: Path) -> None:
    selection = write_part(tmp_path / "selection.tsv", "Selection", 50)
    write_part(tmp_path / "test.tsv", "Test", 40)
    no_domains = tmp_path / "absent"
    fitted = set(sample_sources(selection, 20, 3))

    (name, dev), *domains = bench_trust.sets(
        tmp_path, no_domains, 1000, 300, 1, part="dev", calibrated_on={"sentences": 20, "seed": 3}
    )
    assert (name, domains) == ("selection", [])
    assert len(dev) == 30 and not fitted & set(dev)
    assert all(dev[source] == selection[source] for source in dev)

    (name, test), *_ = bench_trust.sets(tmp_path, no_domains, 1000, 300, 1)
    assert name == "test" and len(test) == 40 and all(s.startswith("Test") for s in test)
