"""From a Python function to a tool's canonical JSON Schema, one readable step at a time.

This module owns the signature pipeline behind ``@tool``:

1. list the parameters (``inspect.signature``), refusing ``*args``, ``**kwargs`` and
   positional-only ones, and leaving out ``self``/``cls`` of methods;
2. resolve the annotations (``typing.get_type_hints(include_extras=True)``, falling back to the
   function's closure and the decorating frame's locals for nested definitions);
3. read descriptions from the docstring;
4. compile each annotation into a node (:mod:`aiwrapper.tools.typemap`), adding its
   description and default, and set aside the parameter that receives the ``Context``;
5. render the canonical schema: a closed object with ``$defs`` for named types.

Dialect rendering is left to :mod:`aiwrapper.tools.dialects`.
"""

from __future__ import annotations

import contextlib
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import ToolDefinitionError
from .compound import ObjectNode
from .context import is_context_annotation
from .docstrings import parse_docstring
from .metadata import jsonable_default
from .nodes import Defs, Node, Schema
from .typemap import TypeMapper

__all__ = ["Signature", "read_signature", "render_parameters"]

_BAD_KINDS = {
    inspect.Parameter.VAR_POSITIONAL: "*args is not supported; declare each parameter",
    inspect.Parameter.VAR_KEYWORD: "**kwargs is not supported; declare each parameter",
    inspect.Parameter.POSITIONAL_ONLY: "positional-only parameters are not supported",
}


@dataclass(frozen=True, slots=True)
class Signature:
    """What a function's signature contributes to a tool.

    Attributes:
        description: The docstring's description (without its parameter sections).
        parameters: The canonical JSON Schema of the model-visible parameters.
        root: The compiled node that validates arguments.
        context_param: Name of the parameter that receives the ``Context``, if any.
    """

    description: str
    parameters: Schema
    root: ObjectNode
    context_param: str | None


def read_signature(
    func: Callable[..., Any],
    *,
    skip_first: bool = False,
    frame_locals: Callable[[], Mapping[str, Any]] | None = None,
) -> Signature:
    """Run the pipeline on one function.

    Args:
        func: The function (or bound method) to describe.
        skip_first: Leave out the first parameter (``self``/``cls`` of an unbound method).
        frame_locals: Gives the decorating scope's local names, asked only when a name in an
            annotation cannot be resolved otherwise.

    Returns:
        The description, canonical parameters schema, validating node and context parameter.

    Raises:
        ToolDefinitionError: A parameter that cannot be described, naming it.
    """
    owner = getattr(func, "__qualname__", repr(func))
    params = _list_parameters(func, owner, skip_first)
    hints, localns = _resolve_hints(func, owner, frame_locals)
    docs = parse_docstring(inspect.getdoc(func))
    mapper = TypeMapper(owner, localns)
    root = ObjectNode()
    context_param = None
    for param in params:
        if param.name not in hints:
            raise ToolDefinitionError(f"{owner}: parameter {param.name!r} has no type annotation")
        if is_context_annotation(hints[param.name]):
            context_param = param.name
            continue
        root.fields[param.name] = _parameter_node(mapper, param, hints, docs.params)
        if param.default is inspect.Parameter.empty:
            root.required.append(param.name)
    return Signature(docs.description, render_parameters(root), root, context_param)


def render_parameters(root: ObjectNode) -> Schema:
    """Render the canonical schema of a tool's parameters (``$defs`` last)."""
    defs: Defs = {}
    out = root.body(defs)
    if defs:
        out["$defs"] = defs
    return out


def _list_parameters(
    func: Callable[..., Any], owner: str, skip_first: bool
) -> list[inspect.Parameter]:
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"{owner}: cannot read the signature: {exc}") from exc
    if skip_first and params:
        params = params[1:]
    for param in params:
        if param.kind in _BAD_KINDS:
            reason = _BAD_KINDS[param.kind]
            raise ToolDefinitionError(f"{owner}: parameter {param.name!r}: {reason}")
    return params


def _resolve_hints(
    func: Callable[..., Any], owner: str, frame_locals: Callable[[], Mapping[str, Any]] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        return typing.get_type_hints(func, include_extras=True), {}
    except NameError:
        pass
    localns = dict(frame_locals() if frame_locals else {})
    target = inspect.unwrap(getattr(func, "__func__", func))
    with contextlib.suppress(TypeError, ValueError):
        localns.update(inspect.getclosurevars(target).nonlocals)
    try:
        return typing.get_type_hints(func, localns=localns, include_extras=True), localns
    except NameError as exc:
        raise ToolDefinitionError(
            f"{owner}: cannot resolve the annotation name {exc.name!r}; define it at module "
            "level or in the scope where @tool is applied"
        ) from exc


def _parameter_node(
    mapper: TypeMapper, param: inspect.Parameter, hints: dict[str, Any], docs: dict[str, str]
) -> Node:
    node = mapper.node(hints[param.name], param.name)
    meta: Schema = {}
    if "description" not in node.meta and docs.get(param.name):
        meta["description"] = docs[param.name]
    if param.default is not inspect.Parameter.empty:
        shown = jsonable_default(param.default)
        if shown is not None:
            meta["default"] = shown[0]
    return node.with_extras(meta) if meta else node
