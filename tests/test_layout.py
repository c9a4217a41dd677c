"""The package's shape is a rule, not a habit: a ground floor you can read at a glance, which stage
may import which, no cycles, and Typer and rich consoles only in the command line.

Every import counts, also one inside a function: a lazy import still ties two modules together.
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "mt"
MOST_TOP_LEVEL_MODULES = 8
"""`__init__.py` and `__main__.py` included: more, and the rest is grouped into a package."""

# Each stage and what it may import besides itself. Data flows one way: files -> data (prepared
# directory) -> train (run directory) -> decode (text, scores) -> evaluate / export / serving;
# `text` is the English-text layer under every stage, `model` what train and decode share,
# `quality` what decode judges its translations with, and `api` the library's door beside the
# command line. The ground floor every stage uses: `core` (the top-level modules: errors, notes,
# config, the version), `storage` (the files mt writes), `runtime` (the process it runs in) and
# `catalog` (the models it knows).
GROUND_FLOOR = {"core", "storage", "runtime", "catalog"}
ALLOWED = {
    "core": set(),
    "storage": {"core"},
    "runtime": {"core"},
    "catalog": {"core", "storage"},
    "text": GROUND_FLOOR,
    "data": GROUND_FLOOR | {"text"},
    "model": GROUND_FLOOR | {"text", "data"},
    "train": GROUND_FLOOR | {"text", "data", "model"},
    "quality": GROUND_FLOOR | {"text"},
    "decode": GROUND_FLOOR | {"text", "data", "model", "quality"},
    "evaluate": GROUND_FLOOR | {"text", "data", "model", "quality", "decode"},
    "export": GROUND_FLOOR | {"data", "model", "decode"},
    "serving": GROUND_FLOOR | {"text", "data", "model", "quality", "decode"},
    "recipes": GROUND_FLOOR | {"text", "data"},
    # the library's door (mt.api, and the package's __init__ that fetches its names): a caller
    # of the stages, which the command line calls in its turn (`mt models`)
    "api": GROUND_FLOOR | {"text", "data", "model", "quality", "decode", "export"},
    "cli": GROUND_FLOOR
    | {
        "api",
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


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def stage(module: str) -> str:
    parts = module.split(".")
    if module == "mt.__main__":
        return "cli"  # `python -m mt` is the command line
    if module == "mt":
        return "api"  # `import mt`: the public names, fetched from mt.api
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ALLOWED) else "core"


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    return {module_name(path, package): path for path in sorted(package.rglob("*.py"))}


def imports(path: Path, known: dict[str, Path] | None = None) -> Iterator[tuple[int, str]]:
    """(line, module) for every import of the file, at any depth; `from mt.x import y` counts as
    mt.x.y when that is a module."""
    known = modules() if known is None else known
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module
            for alias in node.names:
                if f"{node.module}.{alias.name}" in known:
                    yield node.lineno, f"{node.module}.{alias.name}"


def import_lines(package: Path = PACKAGE) -> dict[str, dict[str, int]]:
    """Each module's imports of the package's modules, the package face included, with the line
    of the first."""
    known = modules(package)
    lines: dict[str, dict[str, int]] = {name: {} for name in known}
    for name, path in known.items():
        for line, target in imports(path, known):
            if target in known and target != name:
                lines[name].setdefault(target, line)
    return lines


def mt_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    return {name: set(targets) for name, targets in import_lines(package).items()}


def described_cycles(package: Path = PACKAGE) -> list[str]:
    """One shortest cycle through each group of modules that import each other, as
    `a (a.py:3) -> b (b/c.py:9) -> a`: the line in each module that imports the next."""
    lines = import_lines(package)
    graph = {name: set(targets) for name, targets in lines.items()}
    known = modules(package)
    described = []
    for component in strongly_connected(graph):
        if len(component) < 2:
            continue
        cycle = shortest_cycle(graph, component)
        steps = [
            f"{module} ({known[module].relative_to(package)}:{lines[module][after]})"
            for module, after in zip(cycle, cycle[1:], strict=False)
        ]
        described.append(" -> ".join([*steps, cycle[0]]))
    return described


def shortest_cycle(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """The shortest way from the component's first module back to itself, inside the component."""
    start = min(component)
    came_from: dict[str, str] = {}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        for nxt in sorted(graph[node] & component):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(came_from[path[-1]])
                return [*reversed(path), start]
            if nxt not in came_from:
                came_from[nxt] = node
                queue.append(nxt)
    raise AssertionError(f"{sorted(component)} is not a cycle")


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
    """The package face counts too: `from mt import X` in a module mt.api reaches is a cycle."""
    cycles = described_cycles()
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_at_most_eight_modules_at_the_top() -> None:
    top = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert len(top) <= MOST_TOP_LEVEL_MODULES, (
        f"{len(top)} modules at the top of src/mt (at most {MOST_TOP_LEVEL_MODULES}; group the "
        f"rest into a package by what they serve): {', '.join(top)}"
    )


def test_no_module_reads_a_name_from_the_package_face() -> None:
    """`__version__` comes from mt._version: the face (mt/__init__.py) reaches mt.api, and so
    every stage, so a name read from it ties its reader to all of them."""
    known = modules()
    wrong = []
    for name, path in known.items():
        if name == "mt":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            where = f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, ast.Import) and any(alias.name == "mt" for alias in node.names):
                wrong.append(f"{where}: import mt")
            if isinstance(node, ast.ImportFrom) and node.module == "mt" and node.level == 0:
                names = [alias.name for alias in node.names if f"mt.{alias.name}" not in known]
                if names:
                    wrong.append(f"{where}: from mt import {', '.join(names)}")
    assert not wrong, "\n".join(wrong)


def test_every_import_of_mt_is_absolute() -> None:
    """The import rules and the cycle finder read absolute imports only."""
    relative = [
        f"{path.relative_to(PACKAGE)}:{node.lineno}"
        for path in modules().values()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom) and node.level > 0
    ]
    assert not relative, "relative imports: " + ", ".join(relative)


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
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"a"}}
    assert [c for c in strongly_connected(graph) if len(c) > 1] == [{"a", "b", "c"}]
    assert shortest_cycle(graph, {"a", "b", "c"}) == ["a", "b", "a"]


def test_the_cycle_finder_names_a_cycle_through_the_face_and_a_function(tmp_path: Path) -> None:
    """The cycle issue 77 found: the face fetches mt.api, whose function imports a module that
    reads `__version__` from the face."""
    package = tmp_path / "mt"
    (package / "export").mkdir(parents=True)
    (package / "__init__.py").write_text("def __getattr__(name):\n    from mt import api\n")
    (package / "api.py").write_text("def load():\n    from mt.export.copy import made\n")
    (package / "export" / "__init__.py").write_text("")
    (package / "export" / "copy.py").write_text("import os\n\nfrom mt import __version__\n")
    assert described_cycles(package) == [
        "mt (__init__.py:2) -> mt.api (api.py:2) -> mt.export.copy (export/copy.py:3) -> mt"
    ]


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
