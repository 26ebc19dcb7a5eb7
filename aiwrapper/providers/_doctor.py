"""What a tool looks like to each provider, and everything lossy or risky about it.

This module owns :func:`diagnose`, behind ``python -m aiwrapper doctor module:function``: it
renders the tool's declaration for OpenAI, Anthropic, Gemini and Ollama and lists findings a
developer should see before a model does: a missing description, a docstring that documents a
parameter the function does not have, OpenAI strict mode falling back, schema keywords a
dialect drops or rewrites, and property names some provider refuses. A declaration that cannot
be rendered at all is an error, not a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from .._errors import ToolDefinitionError
from .._tools import Tool
from .._tools.docstrings import parse_docstring

__all__ = ["PROVIDER_DIALECTS", "Diagnosis", "diagnose"]

PROVIDER_DIALECTS = {
    "openai": "openai",
    "anthropic": "anthropic",
    "gemini": "gemini",
    "ollama": "ollama",
}
# Anthropic's rule for property names is the narrowest of the four wires.
_PORTABLE_PROPERTY = re.compile(r"[a-zA-Z0-9_.-]{1,64}")
_CONTAINERS = ("properties", "$defs", "definitions")
_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")


@dataclass(slots=True)
class Diagnosis:
    """The doctor's report on one tool.

    Attributes:
        declarations: Each provider's declaration of the tool, ready to send.
        findings: Lossy or risky things, one sentence each.
        errors: Providers that cannot declare the tool, and why.
    """

    declarations: dict[str, Any] = field(default_factory=dict)
    findings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def diagnose(tool: Tool) -> Diagnosis:
    """Render ``tool`` for every provider and list what is lossy or risky about it."""
    report = Diagnosis()
    for provider, dialect in PROVIDER_DIALECTS.items():
        try:
            report.declarations[provider] = tool.schema_for(dialect)
        except (ToolDefinitionError, ValueError) as exc:
            report.errors.append(f"{provider}: {exc}")
    report.findings.extend(_description_findings(tool))
    report.findings.extend(_strict_findings(tool))
    for provider in ("gemini", "ollama"):
        if provider in report.declarations:
            report.findings.extend(_dropped(provider, tool.parameters, report.declarations))
    report.findings.extend(_name_findings(tool.parameters))
    return report


def _description_findings(tool: Tool) -> Iterator[str]:
    if not tool.description.strip():
        yield "the tool has no description: the model sees only its name (add a docstring)"
    properties = tool.parameters.get("properties") or {}
    for name, schema in properties.items():
        if isinstance(schema, dict) and not schema.get("description") and "$ref" not in schema:
            yield f"parameter {name!r} has no description (document it under Args:)"
    documented = parse_docstring(getattr(tool.func, "__doc__", None)).params
    hidden = {tool.context_param} if tool.context_param else set()
    for name in documented.keys() - properties.keys() - hidden:
        yield f"the docstring documents {name!r}, which is not a parameter of the function"


def _strict_findings(tool: Tool) -> Iterator[str]:
    if tool.strict is False:
        return
    try:
        tool.schema_for("openai-strict")
    except ToolDefinitionError as exc:
        yield f"openai: strict mode falls back to non-strict ({exc})"
        return
    if not tool.schema_for("openai")["function"].get("strict"):
        yield "openai: strict mode falls back to non-strict (the strict schema would lose meaning)"


def _dropped(
    provider: str, canonical: dict[str, Any], declarations: dict[str, Any]
) -> Iterator[str]:
    declaration = declarations[provider]
    rendered = declaration.get("parameters") or declaration.get("function", {}).get("parameters")
    lost = _keywords(canonical) - _keywords(rendered or {})
    if lost:
        yield (
            f"{provider}: its schema subset drops {', '.join(sorted(lost))} (references are "
            "inlined, unions merged, constraints kept as words in descriptions)"
        )


def _keywords(schema: Any) -> set[str]:
    """Every JSON Schema keyword used anywhere in ``schema`` (property names excluded)."""
    if not isinstance(schema, dict):
        return set()
    # additionalProperties: false is the default reading of every wire; dropping it loses
    # nothing, since arguments are checked locally anyway.
    found = {
        key for key, value in schema.items() if (key, value) != ("additionalProperties", False)
    }
    for key, value in schema.items():
        if key in _CONTAINERS and isinstance(value, dict):
            for sub in value.values():
                found |= _keywords(sub)
        elif key in _LISTS and isinstance(value, list):
            for sub in value:
                found |= _keywords(sub)
        elif isinstance(value, dict):
            found |= _keywords(value)
    return found


def _name_findings(schema: Any, path: str = "") -> Iterator[str]:
    if not isinstance(schema, dict):
        return
    for key, value in schema.items():
        if key == "properties" and isinstance(value, dict):
            for name, sub in value.items():
                if not _PORTABLE_PROPERTY.fullmatch(name):
                    yield (
                        f"property {path + name!r} is not portable "
                        "(Anthropic takes 1-64 of a-z A-Z 0-9 _ . -)"
                    )
                yield from _name_findings(sub, f"{path}{name}.")
        elif isinstance(value, dict):
            yield from _name_findings(value, path)
        elif isinstance(value, list):
            for sub in value:
                yield from _name_findings(sub, path)
