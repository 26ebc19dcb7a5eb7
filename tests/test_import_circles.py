"""No import circle in the package: every module stands on the ones below it.

Imports made only for type checkers and imports inside functions count as much as those at
the top (see ``importgraph``): a circle hidden in either still ties the modules into one knot
to read, test and move.
"""

from __future__ import annotations

from pathlib import Path

from .importgraph import circles, import_graph, one_loop, package_graph


def test_no_module_of_the_package_imports_itself_around_a_circle() -> None:
    graph = package_graph()
    found = circles(graph)
    shown = [f"{len(g)} modules {g}, such as {one_loop(graph, g)}" for g in found]
    assert not found, "import circles:\n" + "\n".join(shown)


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
