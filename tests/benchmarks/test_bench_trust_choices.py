"""benchmarks/trust/bench_trust_choices.py's rules: the calibration target and the copy thresholds
are chosen from development figures as its docstring says, and the code's own setting wins ties."""

from __future__ import annotations

from pathlib import Path

from benchmarks.trust import bench_trust_choices as choices
from mt.evaluate.calibrate import TARGET, TARGETS  # noqa: E402
from mt.quality.flags import CopyThresholds  # noqa: E402


def figures(spearman: dict[str, float], copy: list[dict[str, int]] | None = None) -> dict:
    return {"ranking": {t: {"spearman": s} for t, s in spearman.items()}, "copy": copy or []}


def test_the_target_with_the_higher_mean_spearman_wins_unless_within_the_tie() -> None:
    other = next(t for t in TARGETS if t != TARGET)
    ahead = {
        "m": {"a": figures({TARGET: 0.40, other: 0.50}), "b": figures({TARGET: 0.6, other: 0.6})}
    }
    assert choices.choose_target(ahead)[0] == other
    close = {"m": {"a": figures({TARGET: 0.500, other: 0.505})}}
    assert choices.choose_target(close) == (TARGET, {TARGET: 0.5, other: 0.505})


def counts(caught: int, copies: int, false: int, others: int = 1000, echo: int = 100) -> dict:
    return {"caught": caught, "copies": copies, "false": false, "others": others,
            "echo_caught": echo, "echoes": 100}  # fmt: skip


def test_copy_thresholds_most_caught_among_the_admissible_then_fewest_false_then_the_code() -> None:
    grid = choices.GRID
    code = grid.index(CopyThresholds())
    eager, careful, same = 0, 1, 2  # three other settings of the grid
    assert code not in (eager, careful, same)

    def per_setting(special: dict[int, dict]) -> list[dict]:
        return [special.get(i, counts(0, 10, 0)) for i in range(len(grid))]

    sets = {
        # eager catches all but flags 2% of others: not admissible; careful catches most
        eager: counts(10, 10, 20), careful: counts(9, 10, 5), code: counts(9, 10, 5),
        same: counts(9, 10, 3),
    }  # fmt: skip
    chosen, table = choices.choose_copy({"m": {"dev": figures({}, per_setting(sets))}})
    assert chosen == grid[same] and not table[eager]["admissible"]
    sets[same] = counts(9, 10, 5)  # now three tie on caught and false: the code's wins
    assert choices.choose_copy({"m": {"dev": figures({}, per_setting(sets))}})[0] == grid[code]
    sets[code] = counts(9, 10, 5, echo=90)  # misses echoes: not admissible
    assert choices.choose_copy({"m": {"dev": figures({}, per_setting(sets))}})[0] != grid[code]


def test_pooled_results_join_the_choice_only_on_the_same_grid(tmp_path: Path) -> None:
    import json
    from dataclasses import asdict

    import pytest

    grid = [asdict(setting) for setting in choices.GRID]
    measured = {"run beam 1": {"dev": figures({TARGET: 0.5})}}
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"figures": {"grid": grid, "models": measured}}))
    assert choices.pooled_models([path]) == {"results.json: run beam 1": measured["run beam 1"]}
    path.write_text(json.dumps({"figures": {"grid": grid[:3], "models": measured}}))
    with pytest.raises(SystemExit, match="another grid"):
        choices.pooled_models([path])
