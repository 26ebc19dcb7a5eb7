"""The public names: complete, sorted, importable, and the names the project promises."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path
from types import ModuleType

import pytest

import aiwrapper
from aiwrapper import _errors as errors

# The public modules; every other module is internal, whatever its name says.
PUBLIC_MODULES = [
    "aiwrapper",
    "aiwrapper.testing",
    "aiwrapper.notebook",
    "aiwrapper.models",
    "aiwrapper.gateway",
    "aiwrapper.mcp",
]

PROMISED = {
    "Lang", "LangOptions", "LangResult", "LangMessages", "LangMessage", "FunctionCall", "Usage",
    "tool", "Tool", "Param", "Context", "AIWrapperError", "ConfigError", "ToolDefinitionError",
    "ToolArgumentsError", "ProviderError", "AuthenticationError", "PermissionDeniedError",
    "NotFoundError", "BadRequestError", "RateLimitError", "ServerError", "OverloadedError",
    "ConnectionError", "RequestTimeoutError", "StreamError", "MaxIterationsError",
    "RunTimeoutError", "TurnStarted", "TextDelta", "ThinkingDelta", "CallStarted",
    "CallArgumentsDelta", "CallReady", "CallFinished", "TurnFinished", "RunFinished",
}  # fmt: skip


def _public_module(name: str) -> ModuleType:
    if name == "aiwrapper.mcp":
        pytest.importorskip("mcp", reason="the mcp extra is not installed")
    return importlib.import_module(name)


def _top_level_names(path: Path) -> set[str]:
    """The public names a module defines at top level and, in an ``__init__``, re-exports.

    A definition is a ``def``, a ``class`` or an assignment; a re-export is a name an
    ``__init__`` imports from its own package. Imports only for type checkers do not count.
    """
    found: set[str] = set()
    for node in _top_level(ast.parse(path.read_text(encoding="utf-8")).body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom) and node.level == 1 and path.name == "__init__.py":
            found.update(alias.asname or alias.name for alias in node.names)
    return {name for name in found if not name.startswith("_")}


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements run on import: a module's own, and those of its ``if`` and ``try``."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            continue
        if isinstance(node, ast.If):
            out.extend(_top_level(node.body + node.orelse))
        elif isinstance(node, ast.Try):
            handled = [statement for handler in node.handlers for statement in handler.body]
            out.extend(_top_level(node.body + handled + node.orelse))
        else:
            out.append(node)
    return out


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_each_public_all_is_sorted_complete_and_importable(name: str) -> None:
    module = _public_module(name)
    assert module.__all__ == sorted(module.__all__)
    assert len(set(module.__all__)) == len(module.__all__)
    missing = _top_level_names(Path(inspect.getfile(module))) - set(module.__all__)
    assert not missing, f"public but not in {name}.__all__: {sorted(missing)}"
    for exported in module.__all__:
        assert getattr(module, exported) is not None


def test_public_names_are_definitions_and_an_inits_re_exports(tmp_path: Path) -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from .a import A\n"
        "if TYPE_CHECKING:\n    from .b import B\n"
        "try:\n    X: int = 1\nexcept ImportError:\n    Y = 2\n"
        "def f(): pass\nclass C: pass\n_hidden = 3\n"
    )
    (tmp_path / "__init__.py").write_text(source, encoding="utf-8")
    (tmp_path / "plain.py").write_text(source, encoding="utf-8")
    assert _top_level_names(tmp_path / "__init__.py") == {"A", "X", "Y", "f", "C"}
    assert _top_level_names(tmp_path / "plain.py") == {"X", "Y", "f", "C"}


def test_every_promised_name_is_public() -> None:
    assert set(aiwrapper.__all__) >= PROMISED


def test_every_error_is_exported_and_derives_from_the_root() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, aiwrapper.AIWrapperError)
        assert name in aiwrapper.__all__
        assert cls.__doc__, f"{name} needs a docstring saying when it is raised"


def test_overloaded_is_a_server_error() -> None:
    assert issubclass(aiwrapper.OverloadedError, aiwrapper.ServerError)
    assert issubclass(aiwrapper.RateLimitError, aiwrapper.ProviderError)


def test_the_public_text_delta_is_the_run_event_not_the_decoder_event() -> None:
    from aiwrapper._conversation import _events as events
    from aiwrapper._conversation import _runevents as runevents

    assert aiwrapper.TextDelta is runevents.TextDelta is not events.TextDelta
    assert aiwrapper.ThinkingDelta is runevents.ThinkingDelta is not events.ThinkingDelta
