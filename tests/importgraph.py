"""The package's import graph, read with ``ast``: for the tests of its circles and layers.

Every ``.py`` under the package counts, and every import in it: those made only for type
checkers (``if TYPE_CHECKING:``) and those inside functions as much as those at the top.
``from pkg import name`` imports ``pkg/__init__`` unless ``name`` is a submodule; imports of
modules outside the package are left out.
"""

from __future__ import annotations

import ast
import functools
import itertools
from collections.abc import Iterator
from pathlib import Path

import aiwrapper

PACKAGE = Path(aiwrapper.__file__).parent

# Graph: each module -> the modules it imports, with the line of the first such import.
Graph = dict[str, dict[str, int]]


def module_name(path: Path, root: Path) -> str:
    """``aiwrapper/_tools/__init__.py`` -> ``aiwrapper._tools``; ``aiwrapper/_lang.py`` likewise."""
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(root: Path) -> Graph:
    """Every import between the modules of the package at ``root``, wherever it is written."""
    paths = {module_name(path, root): path for path in sorted(root.rglob("*.py"))}
    graph: Graph = {}
    for module, path in paths.items():
        edges = graph.setdefault(module, {})
        for node in statements(ast.parse(path.read_text(encoding="utf-8")).body):
            for target in _targets(node, module, paths):
                if target != module:
                    edges[target] = min(edges.get(target, node.lineno), node.lineno)
    return graph


def package_graph() -> Graph:
    """The graph of the package itself, read once per test process (each caller gets a copy)."""
    return {module: dict(edges) for module, edges in _package_graph().items()}


@functools.cache
def _package_graph() -> Graph:
    return import_graph(PACKAGE)


def statements(body: list[ast.stmt], *, into_functions: bool = True) -> Iterator[ast.stmt]:
    """Every statement, however nested (imports are statements: expressions need no visit);
    without ``into_functions``, only those run when the module is imported."""
    for statement in body:
        yield statement
        if not into_functions and isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # a body runs when called
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                yield from statements([child], into_functions=into_functions)
            elif isinstance(child, (ast.excepthandler, ast.match_case)):
                yield from statements(child.body, into_functions=into_functions)


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


def reachable(graph: Graph, module: str) -> set[str]:
    """Every module that importing ``module`` may import, directly or through others."""
    found: set[str] = set()
    pending = [module]
    while pending:
        for target in graph[pending.pop()]:
            if target not in found:
                found.add(target)
                pending.append(target)
    return found
