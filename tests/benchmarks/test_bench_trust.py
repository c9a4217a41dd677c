"""benchmarks/trust/bench_trust.py's sets: the test parts for the record, and with --part dev the
selection part, less the sentences `mt calibrate` fitted the confidence to, for choices."""

from __future__ import annotations

from pathlib import Path

from benchmarks.trust import bench_trust
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


def test_targets_are_checked_on_every_set_and_copy_recall_is_pooled() -> None:
    def figures(spearman: float, ratio: float, copies: int, recall: float) -> dict:
        return {"spearman": spearman, "bad_ratio": ratio, "copies": copies,
                "copy_recall": recall, "echo_recall": 1.0}  # fmt: skip

    measured = {"test": figures(0.6, 5.0, 0, float("nan")), "news": figures(0.3, 1.5, 19, 1.0)}
    checks = {t.name: t for t in bench_trust.trust_targets(measured)}
    assert checks["test: Spearman(confidence, chrF)"].met
    assert not checks["news: Spearman(confidence, chrF)"].met
    assert not checks["news: bad share, least confident 10% / rest"].met
    assert checks["copy flag recall (19 copies, all sets)"].value == 1.0
    measured["test"] = figures(0.6, 5.0, 1, 0.0)  # one more copy, missed: 19 of 20
    checks = {t.name: t for t in bench_trust.trust_targets(measured)}
    assert checks["copy flag recall (20 copies, all sets)"].value == 0.95
    no_copies = bench_trust.trust_targets({"test": figures(0.6, 5.0, 0, float("nan"))})
    assert not no_copies[-1].met  # no copy at all: recall is not shown, so not met
