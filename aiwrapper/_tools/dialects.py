"""Schema dialects: each provider's tool declaration, found by the dialect's name.

This module owns :func:`render` and the list of dialect names without knowing any provider.
A dialect is named ``"<provider>"`` or ``"<provider>-<variant>"``, and the name leads to the
provider package ``aiwrapper.providers.<provider>``, imported when first asked for (the way
anyio finds a backend module by its name). The package exposes ``SCHEMA_DIALECTS``: each of
its dialect names mapped to the function that renders a declaration from the tool's name,
description and canonical JSON Schema. What a dialect keeps, rewrites or notes is the
provider's business; a keyword it cannot carry is never dropped silently but becomes a
sentence in the description (:mod:`aiwrapper._tools.notes`).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["DialectError", "DialectRenderer", "dialect_names", "find_dialect", "render"]

Schema = dict[str, Any]
DialectRenderer = Callable[[Schema, Schema, "bool | None"], Schema]
"""Renders one declaration from its head (name, description), parameters and strictness."""


class DialectError(ValueError):
    """Raised by a dialect for a schema it cannot express at all (the tool is at fault)."""


def render(
    dialect: str, *, name: str, description: str, parameters: Schema, strict: bool | None
) -> Schema:
    """Render one tool's declaration in a dialect.

    Args:
        dialect: One of :func:`dialect_names`.
        name: The tool's name.
        description: The tool's description (left out when empty).
        parameters: The canonical JSON Schema of the parameters.
        strict: The tool's strictness (``None``: strict only where lossless), for the
            dialects that have a strict mode.

    Returns:
        The declaration, ready to send (it may share parts with ``parameters``).

    Raises:
        ValueError: An unknown dialect.
        DialectError: A schema the dialect cannot express.
    """
    head: Schema = {"name": name}
    if description:
        head["description"] = description
    return find_dialect(dialect)(head, parameters, strict)


def find_dialect(dialect: str) -> DialectRenderer:
    """The renderer of ``dialect``, from the provider package its name leads to.

    Raises:
        ValueError: No provider package offers ``dialect``; the message lists those that do.
    """
    renderer = _offered(dialect.partition("-")[0]).get(dialect)
    if renderer is None:
        valid = ", ".join(dialect_names())
        raise ValueError(f"unknown dialect {dialect!r}; valid dialects: {valid}")
    return renderer


@functools.cache
def dialect_names() -> tuple[str, ...]:
    """Every dialect the provider packages offer, package by package in name order."""
    # Only packages: the plain modules beside them (the HTTP glue, say) declare no dialect,
    # and importing them would load the transport.
    found = pkgutil.iter_modules(_providers().__path__)
    packages = sorted(module.name for module in found if module.ispkg)
    return tuple(name for package in packages for name in _offered(package))


def _providers() -> Any:
    # Imported by name, not statically: the tools sit below the providers.
    return importlib.import_module("..providers", __package__)


def _offered(package: str) -> Mapping[str, DialectRenderer]:
    if not package.isidentifier() or package.startswith("_"):
        return {}
    module_name = f"{_providers().__name__}.{package}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:  # the package exists but something it needs is missing
            raise
        return {}
    offered: Mapping[str, DialectRenderer] = getattr(module, "SCHEMA_DIALECTS", {})
    return offered
