"""The vendor SDKs stay out of test collection, and their users all run on one worker.

``tests/vendor_sdks.py`` imports ``anthropic`` and ``openai`` on first use and lists the test
files that use them (``USERS``, read by conftest's scheduler). Both are read from the tests'
source with ``ast`` here, so a new test that imports an SDK at its top, or that uses one
without being listed, fails this file rather than slowing every worker down unnoticed.
"""

from __future__ import annotations

import ast
import functools
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from .importgraph import import_graph, module_name, reachable, statements
from .vendor_sdks import USERS, _OnFirstUse

TESTS = Path(__file__).parent
SDKS = ("anthropic", "openai")
HELPER = "tests.vendor_sdks"


def _imports(tree: ast.Module, *, at_import: bool) -> list[ast.Import | ast.ImportFrom]:
    """The imports in ``tree``: all of them, or only those run when the module is imported."""
    found = statements(tree.body, into_functions=not at_import)
    return [node for node in found if isinstance(node, (ast.Import, ast.ImportFrom))]


def _imports_an_sdk(node: ast.Import | ast.ImportFrom) -> bool:
    if isinstance(node, ast.Import):
        return any(alias.name.split(".")[0] in SDKS for alias in node.names)
    return not node.level and (node.module or "").split(".")[0] in SDKS


def _takes_a_stand_in(node: ast.Import | ast.ImportFrom) -> bool:
    """``from .vendor_sdks import openai`` (``USERS`` alone is no use of an SDK)."""
    module = node.module if isinstance(node, ast.ImportFrom) else None
    return (module or "").endswith("vendor_sdks") and any(a.name in SDKS for a in node.names)


@functools.cache
def _sources() -> dict[str, ast.Module]:
    """Every module of the tests, parsed once per worker."""
    return {
        module_name(path, TESTS): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(TESTS.rglob("*.py"))
    }


@functools.cache
def _using_an_sdk() -> frozenset[str]:
    """The modules that use an SDK, themselves or through other modules of the tests."""
    sources = _sources()
    direct = {
        module
        for module, tree in sources.items()
        if module != HELPER
        and any(
            _imports_an_sdk(node) or _takes_a_stand_in(node)
            for node in _imports(tree, at_import=False)
        )
    }
    graph = import_graph(TESTS)
    return frozenset(m for m in sources if ({m} | reachable(graph, m)) & direct)


def _node_path(module: str) -> str:
    """``tests.gateway.test_x`` -> ``tests/gateway/test_x.py``, as in pytest's node ids."""
    return module.replace(".", "/") + ".py"


def test_no_test_module_imports_an_sdk_when_it_is_imported() -> None:
    found = {
        module: lines
        for module, tree in _sources().items()
        if module != HELPER
        and (lines := [n.lineno for n in _imports(tree, at_import=True) if _imports_an_sdk(n)])
    }
    assert found == {}, "import them in the test, or take them from tests/vendor_sdks.py"


def test_the_list_of_users_is_the_test_files_that_use_an_sdk() -> None:
    users = {m for m in _using_an_sdk() if m.rsplit(".", 1)[-1].startswith("test_")}
    assert {_node_path(module) for module in users} == USERS


def test_importing_every_user_imports_no_sdk() -> None:
    """As collecting does: a module-level read such as ``openai.types`` would import it."""
    code = (
        "import importlib, sys\n"
        "for name in sys.argv[1:]: importlib.import_module(name)\n"
        "print(sorted({name.split('.')[0] for name in sys.modules} & {'anthropic', 'openai'}))"
    )
    modules = [path.removesuffix(".py").replace("/", ".") for path in sorted(USERS)]
    run = subprocess.run(
        [sys.executable, "-c", code, *modules], cwd=TESTS.parent, capture_output=True, text=True
    )
    assert (run.returncode, run.stdout, run.stderr) == (0, "[]\n", "")


def test_no_conftest_uses_an_sdk() -> None:
    """A fixture using one would import it on whichever worker runs the tests that ask for it."""
    assert "tests.conftest" in _sources()
    assert {m for m in _using_an_sdk() if m.endswith("conftest")} == set()


def test_the_stand_in_imports_the_module_on_the_first_attribute_read() -> None:
    assert _OnFirstUse("json").dumps is json.dumps
    assert _OnFirstUse("email").mime is importlib.import_module("email.mime")  # a submodule


def test_the_stand_in_imports_nothing_for_a_private_name() -> None:
    """pytest and ``copy`` probe objects for such names; no module is imported for them."""
    with pytest.raises(AttributeError, match="_probe"):
        _ = _OnFirstUse("no_such_module_anywhere")._probe
    with pytest.raises(ModuleNotFoundError):
        _ = _OnFirstUse("no_such_module_anywhere").anything
