"""Structured output: the schema of an ``output_type`` and the check of a model's answer.

``output_spec(output_type)`` compiles the type with the ``@tool`` schema engine
(``aiwrapper._tools``) into an ``OutputSpec``: a canonical JSON Schema whose root is an object
(a type that is not an object, such as ``list[int]``, a ``Literal`` or an ``int``, is wrapped as
``{"value": ...}`` because most wires want an object at the root), and a ``Tool`` named
``final_result`` that carries that schema and validates with the same validator as any tool's
arguments. Providers render the schema in their own structured-output field; the fallback for
models without one declares the tool itself. ``OutputSpec.parse`` turns the answer (JSON text,
or the fallback tool's arguments) into the Python value, unwrapped. Running the rounds is the
loop's (``aiwrapper._run._structured``).
"""

from __future__ import annotations

import copy
import functools
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ToolArgumentsError, ToolDefinitionError
from .._tools import Tool
from .._tools.compound import ObjectNode
from .._tools.models import PydanticNode
from .._tools.nodes import Node, Schema
from .._tools.schema import render_parameters
from .._tools.typemap import TypeMapper
from .._wire._jsontext import loads_standard

__all__ = ["OUTPUT_TOOL", "OutputSpec", "output_spec"]

OUTPUT_TOOL = "final_result"
_FENCE = re.compile(r"^\s*```(?:json)?\s*\n?(.*?)\n?\s*```\s*$", re.S)
_NAME_CHARS = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """The compiled ``output_type``.

    Attributes:
        output_type: The type the user asked for.
        name: A name for the schema (the type's name, ``[A-Za-z0-9_-]``), for wires that want one.
        tool: The ``final_result`` tool: ``parameters`` is the schema, ``validate`` the check.
        wrapped: True when the value travels as ``{"value": ...}``.
    """

    output_type: Any
    name: str
    tool: Tool
    wrapped: bool

    @property
    def schema(self) -> Schema:
        """The canonical JSON Schema of the answer (a fresh copy)."""
        return copy.deepcopy(self.tool.parameters)

    def parse(self, answer: str | Mapping[str, Any]) -> Any:
        """The Python value of an answer: JSON text, or the fallback tool's arguments.

        Raises:
            ToolArgumentsError: The answer does not fit; ``errors`` name each field by path.
        """
        if isinstance(answer, str):
            answer = _json_object(answer)
        checked = self.tool.validate(answer)
        return checked["value"] if self.wrapped else checked


def _json_object(text: str) -> Mapping[str, Any]:
    fenced = _FENCE.match(text)  # models without a native mode often fence their JSON
    try:
        value = loads_standard(fenced.group(1) if fenced else text)
    except ValueError as exc:  # invalid, NaN, or nested too deeply, as for tool arguments
        message = f"the answer is not valid JSON ({exc}); answer with the JSON value only"
        raise ToolArgumentsError(OUTPUT_TOOL, [{"path": "", "message": message}]) from exc
    if not isinstance(value, Mapping):
        message = "the answer must be a JSON object, as the schema says"
        raise ToolArgumentsError(OUTPUT_TOOL, [{"path": "", "message": message}])
    return value


@functools.lru_cache(maxsize=128)
def _cached_spec(output_type: Any) -> OutputSpec:
    return _compile(output_type)


def output_spec(output_type: Any) -> OutputSpec | None:
    """The compiled ``output_type``; None for ``str`` and ``None`` (a plain text answer).

    Raises:
        ToolDefinitionError: A type the schema engine cannot describe, naming it.
    """
    if output_type is None or output_type is str:
        return None
    try:
        try:
            return _cached_spec(output_type)
        except TypeError:  # an unhashable type object: compiled each time
            return _compile(output_type)
    except RecursionError as exc:  # the schema engine recurses with the type's nesting
        name = getattr(output_type, "__name__", repr(output_type))
        raise ToolDefinitionError(f"output_type: {name} nests too deeply to describe") from exc


def _compile(output_type: Any) -> OutputSpec:
    module = sys.modules.get(getattr(output_type, "__module__", ""), None)
    mapper = TypeMapper("output_type", globalns=dict(vars(module)) if module else {})
    node = mapper.node(output_type, "output")
    root, schema, wrapped = _root(node)
    tool = Tool(
        name=OUTPUT_TOOL,
        description="Give the final answer: call this once, with the answer as arguments.",
        parameters=schema,
        validator=root,
    )
    name = _NAME_CHARS.sub("_", getattr(output_type, "__name__", "") or "output")[:64]
    return OutputSpec(output_type, name or "output", tool, wrapped)


def _root(node: Node) -> tuple[Node, Schema, bool]:
    """The node that checks the whole answer, its schema, and whether it is wrapped."""
    if isinstance(node, ObjectNode) and node.closed and node.extra is None:
        root = copy.copy(node)
        root.name = None  # the root itself, not a $ref (recursive fields still refer by name)
        schema = {**{k: v for k, v in node.info.items() if k != "title"}}
        return root, {**schema, **render_parameters(root)}, False
    if isinstance(node, PydanticNode):
        defs = copy.deepcopy(node.defs)
        return node, {**defs[node.name], "$defs": defs}, False
    wrapper = ObjectNode()
    wrapper.fields["value"] = node
    wrapper.required.append("value")
    return wrapper, render_parameters(wrapper), True
