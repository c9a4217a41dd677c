"""The package's shape is a rule, not a habit: which stage may import which, no cycles, and
Typer and rich consoles only in the command line.

Every import counts, also one inside a function: a lazy import still ties two modules together.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "mt"

# Each stage and what it may import besides itself. Data flows one way: files -> data (prepared
# directory) -> train (run directory) -> decode (text, scores) -> evaluate / export / serving;
# `text` is the English-text layer under every stage, `model` what train and decode share,
# `quality` what decode judges its translations with, `core` the top-level modules every
# stage uses, and `api` the library's door beside the command line.
ALLOWED = {
    "core": set(),
    "text": {"core"},
    "data": {"core", "text"},
    "model": {"core", "text", "data"},
    "train": {"core", "text", "data", "model"},
    "quality": {"core", "text"},
    "decode": {"core", "text", "data", "model", "quality"},
    "evaluate": {"core", "text", "data", "model", "quality", "decode"},
    "export": {"core", "data", "model", "decode"},
    "serving": {"core", "text", "data", "model", "quality", "decode"},
    "recipes": {"core", "text", "data"},
    # the library's door (mt.api, and the package's __init__ that fetches its names): a caller
    # of the stages, which the command line calls in its turn (`mt models`)
    "api": {"core", "text", "data", "model", "quality", "decode", "export"},
    "cli": {
        "api",
        "core",
        "text",
        "data",
        "model",
        "train",
        "quality",
        "decode",
        "evaluate",
        "export",
        "serving",
        "recipes",
    },
}
CONSOLE_ONLY_IN = {"cli"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage(module: str) -> str:
    parts = module.split(".")
    if module == "mt.__main__":
        return "cli"  # `python -m mt` is the command line
    if module == "mt":
        return "api"  # `import mt`: the public names, fetched from mt.api
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ALLOWED) else "core"


def modules() -> dict[str, Path]:
    return {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every import of the file, at any depth; `from mt.x import y` counts as
    mt.x.y when that is a module."""
    known = modules()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
            for alias in node.names:
                if f"{node.module}.{alias.name}" in known:
                    yield node.lineno, f"{node.module}.{alias.name}"


def mt_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        for _, target in imports(path):
            if target in known and target != name and not name.startswith(target + "."):
                graph[name].add(target)
    return graph


def test_every_stage_imports_only_the_stages_before_it() -> None:
    wrong = []
    for name, path in modules().items():
        for line, target in imports(path):
            if target.split(".")[0] != "mt" or target == "mt":
                continue
            own, other = stage(name), stage(target)
            if other != own and other not in ALLOWED[own]:
                wrong.append(f"{path.relative_to(PACKAGE)}:{line}: {own} imports {target}")
    assert not wrong, "\n".join(wrong)


def test_typer_and_rich_consoles_only_in_the_command_line() -> None:
    wrong = []
    for name, path in modules().items():
        if stage(name) in CONSOLE_ONLY_IN:
            continue
        for line, target in imports(path):
            if target.split(".")[0] in ("typer", "click") or target in ("rich.console", "rich"):
                wrong.append(f"{path.relative_to(PACKAGE)}:{line}: imports {target}")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    graph = mt_graph()
    cycles = [component for component in strongly_connected(graph) if len(component) > 1]
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(sorted(c)) for c in cycles)


def strongly_connected(graph: dict[str, set[str]]) -> list[set[str]]:
    """Tarjan's algorithm, iterative: the groups of modules that reach each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    components.append(component)
    return components


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert [c for c in strongly_connected(graph) if len(c) > 1] == [{"a", "b", "c"}]


def test_the_rules_see_a_forbidden_import(tmp_path: Path) -> None:
    source = "def f():\n    from mt.train.trainer import Trainer\n"
    path = tmp_path / "x.py"
    path.write_text(source)
    assert ("mt.train.trainer", 2) in [(target, line) for line, target in imports(path)]


@pytest.mark.parametrize("folder", sorted(set(ALLOWED) - {"core", "api"}))  # api: one module
def test_each_stage_is_a_package(folder: str) -> None:
    assert (PACKAGE / folder / "__init__.py").is_file()


def test_function_bodies_fit_on_a_screen() -> None:
    """≤ 60 lines of body; a Typer command's parameter list is not counted (it is the help)."""
    long = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                body = node.body[1:] if ast.get_docstring(node) else node.body
                if body and body[-1].end_lineno - body[0].lineno + 1 > 60:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name}")
    assert not long, "\n".join(long)
