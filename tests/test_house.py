"""The rooms of the package: a folder per layer, each importing only the layers below it.

From the top: the faces (the package root's public modules, ``testing``, the gateway and
``durable``), ``providers/``, ``_run/``, the tools (``_tools/`` and ``mcp/``), ``_knowledge/``,
``_conversation/`` and ``_wire/``; the error tree (``_errors``) stands beneath them all. Every
import counts, those made only for type checkers and those inside functions included (see
``importgraph``), and the root holds the faces and folders only, so a module's path says which
room it is in.
"""

from __future__ import annotations

import ast

import pytest

from .importgraph import PACKAGE, package_graph

# Top to bottom; a module is in the first layer whose prefixes it starts with.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("faces", ("aiwrapper.gateway", "aiwrapper.testing", "aiwrapper.durable")),
    ("providers", ("aiwrapper.providers",)),
    ("run", ("aiwrapper._run",)),
    ("tools", ("aiwrapper._tools", "aiwrapper.mcp")),
    ("knowledge", ("aiwrapper._knowledge",)),
    ("conversation", ("aiwrapper._conversation",)),
    ("wire", ("aiwrapper._wire",)),
    ("errors", ("aiwrapper._errors",)),
)
# The faces at the package root, beside the folders.
ROOT_FACES = {
    "__init__",
    "__main__",
    "_cli",
    "_errors",
    "_lang",
    "models",
    "notebook",
}
LAYER_PACKAGES = ("_run", "_conversation", "_knowledge", "_wire")


def layer_of(module: str) -> int:
    """The index in ``LAYERS`` of the layer ``module`` stands in (a root face: 0)."""
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == prefix or module.startswith(prefix + ".") for prefix in prefixes):
            return index
    return 0


def climbs(graph: dict[str, dict[str, int]]) -> list[str]:
    """Every import of a module from a layer above its own, with its line."""
    return [
        f"{module} ({LAYERS[layer_of(module)][0]}) imports {target} "
        f"({LAYERS[layer_of(target)][0]}) at line {line}"
        for module, targets in sorted(graph.items())
        for target, line in targets.items()
        if layer_of(target) < layer_of(module)
    ]


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    assert climbs(package_graph()) == []


def test_the_root_holds_the_faces_and_folders_only() -> None:
    modules = {path.stem for path in PACKAGE.glob("*.py")}
    assert modules == ROOT_FACES


@pytest.mark.parametrize("package", LAYER_PACKAGES)
def test_each_layer_package_says_what_it_owns_and_what_it_may_import(package: str) -> None:
    docstring = ast.get_docstring(ast.parse((PACKAGE / package / "__init__.py").read_text()))
    assert docstring is not None
    assert "May import" in docstring, docstring


def test_a_climbing_import_is_found_wherever_it_is_written() -> None:
    graph = {
        "aiwrapper._wire._http": {"aiwrapper._run._loop": 12},  # a function-level import
        "aiwrapper._run._loop": {"aiwrapper._wire._http": 3, "aiwrapper._errors": 4},
        "aiwrapper._lang": {"aiwrapper.providers._registry": 9},
    }
    assert climbs(graph) == [
        "aiwrapper._wire._http (wire) imports aiwrapper._run._loop (run) at line 12"
    ]


def test_every_module_of_the_package_is_placed_in_a_layer() -> None:
    unplaced = [
        module
        for module in package_graph()
        if layer_of(module) == 0
        and module.split(".")[1:2] != ["gateway"]
        and module.split(".")[1:2] != ["testing"]
        and module.split(".")[1:2] != ["durable"]
        and module.split(".")[-1] not in ROOT_FACES
        and module != "aiwrapper"
    ]
    assert unplaced == []
