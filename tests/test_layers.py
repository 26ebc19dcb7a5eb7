"""The transport stands below the providers: it imports no provider module, not even for types."""

from __future__ import annotations

import ast
from pathlib import Path

import aiwrapper

PACKAGE = Path(aiwrapper.__file__).parent


def _imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, ``TYPE_CHECKING`` blocks included, as written."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_the_transport_imports_no_provider_module() -> None:
    for name in ("http.py", "bodies.py", "framing.py", "httpcall.py"):
        imported = _imported_modules(PACKAGE / name)
        assert not {m for m in imported if "providers" in m}, name


def test_the_shared_request_type_imports_nothing_of_aiwrapper() -> None:
    imported = _imported_modules(PACKAGE / "httpcall.py")
    assert not {m for m in imported if m.startswith(".") or m.startswith("aiwrapper")}
