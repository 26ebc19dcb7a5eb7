"""Names a provider package exports but loads only when first read (PEP 562).

A package ``__init__`` imports eagerly what every lookup needs (defaults, model rules, dialect
tables) and hands the rest to ``lazy_exports``: choosing one provider, or looking up one
model's rules, then never loads the wire code, decoders or gateway front-ends of the others.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str,
    from_modules: Mapping[str, str],
    built: Mapping[str, Callable[[], object]] | None = None,
) -> Callable[[str], object]:
    """A module ``__getattr__`` for ``package`` that loads each name once, when first read.

    Args:
        package: The package's ``__name__``.
        from_modules: Each name, with the relative module (``"._provider"``) that defines it.
        built: Each name whose value a function of the package makes (the front-ends,
            instances rather than names of a module).

    Returns:
        The function to bind as the package's ``__getattr__``; the value it finds is kept
        on the package, so later reads are plain attribute reads.
    """
    makers = dict(built or {})

    def __getattr__(name: str) -> object:
        if name in from_modules:
            value = getattr(importlib.import_module(from_modules[name], package), name)
        elif name in makers:
            value = makers[name]()
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
