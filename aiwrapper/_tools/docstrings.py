"""Descriptions read from docstrings.

This module owns turning a docstring (Google, NumPy, reST or Epydoc, detected by
docstring-parser) into a description of the whole object and one per parameter or attribute.
Where those descriptions go in a schema is left to :mod:`aiwrapper._tools.schema`.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from functools import lru_cache

import docstring_parser

__all__ = ["Docs", "parse_docstring"]


@dataclass(frozen=True, slots=True)
class Docs:
    """The useful parts of a docstring.

    Attributes:
        description: Short and long description joined by a blank line, without sections.
        params: Description of each documented parameter or attribute, by name.
    """

    description: str = ""
    params: dict[str, str] = field(default_factory=dict)


def parse_docstring(doc: str | None) -> Docs:
    """Read a docstring in any style docstring-parser knows.

    Args:
        doc: The raw docstring (``None`` or empty gives empty docs).

    Returns:
        The description and the per-parameter descriptions.
    """
    if not doc or not doc.strip():
        return Docs()
    return _parse(inspect.cleandoc(doc))


@lru_cache(maxsize=512)
def _parse(doc: str) -> Docs:
    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:
        return Docs(description=doc.strip())
    parts = [p.strip() for p in (parsed.short_description, parsed.long_description) if p]
    params = {
        p.arg_name: " ".join(p.description.split())
        for p in parsed.params
        if p.description and p.arg_name
    }
    return Docs(description="\n\n".join(parts), params=params)
