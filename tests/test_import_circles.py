"""No import circle in the package: every module stands on the ones below it.

The graph is read with ``ast`` from every ``.py`` under ``aiwrapper/``, so imports made only
for type checkers (``if TYPE_CHECKING:``) and imports inside functions count as much as those
at the top: a circle hidden in either still ties the modules into one knot to read, test and
move. ``from pkg import name`` imports ``pkg/__init__`` unless ``name`` is a submodule.
"""

from __future__ import annotations

import ast
import itertools
from pathlib import Path

import aiwrapper

PACKAGE = Path(aiwrapper.__file__).parent

# Graph: each module -> the modules it imports, with the line of the first such import.
Graph = dict[str, dict[str, int]]

# Circles still allowed, each while the change that removes it is under way: none now.
ALLOWED_CIRCLES: set[frozenset[str]] = set()


def module_name(path: Path, root: Path) -> str:
    """``aiwrapper/tools/__init__.py`` -> ``aiwrapper.tools``; ``aiwrapper/lang.py`` likewise."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> Graph:
    """Every import between the modules of the package at ``root``, wherever it is written."""
    paths = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: Graph = {}
    for module, path in paths.items():
        edges = graph.setdefault(module, {})
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            for target in _targets(node, module, paths):
                if target != module:
                    edges[target] = min(edges.get(target, node.lineno), node.lineno)
    return graph


def _targets(node: ast.AST, module: str, paths: dict[str, Path]) -> list[str]:
    if isinstance(node, ast.Import):
        targets = [alias.name for alias in node.names]
    elif isinstance(node, ast.ImportFrom):
        base = _absolute(node, module, paths)
        named = [f"{base}.{alias.name}" for alias in node.names]
        targets = [name if name in paths else base for name in named]  # a submodule, or base
    else:
        return []
    return [target for target in targets if target in paths]  # json, httpx... are not ours


def _absolute(node: ast.ImportFrom, module: str, paths: dict[str, Path]) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if paths[module].name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - node.level + 1]
    return ".".join([*package, *([node.module] if node.module else [])])


def circles(graph: Graph) -> list[list[str]]:
    """The groups of modules that import each other, directly or around (Tarjan's SCCs)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for target in graph.get(module, {}):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def one_loop(graph: Graph, group: list[str]) -> str:
    """A path around ``group``, each step with the line that imports: what to show a reader."""
    start, members = group[0], set(group)
    paths = {start: [start]}
    queue = [start]
    while queue:
        module = queue.pop(0)
        for target in sorted(graph[module]):
            if target == start:
                steps = [*paths[module], start]
                hops = [f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(steps)]
                return " -> ".join([*hops, start])
            if target in members and target not in paths:
                paths[target] = [*paths[module], target]
                queue.append(target)
    raise AssertionError(f"{group} holds no loop through {start}")


def test_no_module_of_the_package_imports_itself_around_a_circle() -> None:
    graph = import_graph(PACKAGE)
    found = [group for group in circles(graph) if frozenset(group) not in ALLOWED_CIRCLES]
    shown = [f"{len(g)} modules {g}, such as {one_loop(graph, g)}" for g in found]
    assert not found, "import circles:\n" + "\n".join(shown)


def test_every_allowed_circle_still_exists() -> None:
    still = {frozenset(group) for group in circles(import_graph(PACKAGE))}
    assert still >= ALLOWED_CIRCLES, "remove the allowance of a circle that is gone"


def test_the_graph_holds_type_checking_and_function_level_imports(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        __init__="from .a import A\n",
        a="from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\nA = 1\n",
        b="def f():\n    from . import a\n    return a\nB = 2\n",
    )
    graph = import_graph(root)
    assert graph == {"pkg": {"pkg.a": 1}, "pkg.a": {"pkg.b": 3}, "pkg.b": {"pkg.a": 2}}
    assert circles(graph) == [["pkg.a", "pkg.b"]]
    assert one_loop(graph, ["pkg.a", "pkg.b"]) == "pkg.a (line 3) -> pkg.b (line 2) -> pkg.a"


def test_a_name_from_a_package_imports_its_init_and_a_submodule_does_not(tmp_path: Path) -> None:
    root = _package(
        tmp_path,
        __init__="from .c import C\nVALUE = 1\n",
        c="from . import d\nfrom pkg import VALUE\nimport pkg.d\nC = VALUE\n",
        d="import json\nfrom ..outside import thing\n",
    )
    graph = import_graph(root)
    assert graph["pkg.c"] == {"pkg.d": 1, "pkg": 2}
    assert graph["pkg.d"] == {}
    assert circles(graph) == [["pkg", "pkg.c"]]


def _package(tmp_path: Path, **modules: str) -> Path:
    root = tmp_path / "pkg"
    root.mkdir()
    for name, source in modules.items():
        (root / f"{name}.py").write_text(source, encoding="utf-8")
    return root
