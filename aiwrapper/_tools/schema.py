"""From a Python function to a tool's canonical JSON Schema, one readable step at a time.

This module owns the signature pipeline behind ``@tool``:

1. list the parameters (``inspect.signature``), refusing ``*args``, ``**kwargs`` and
   positional-only ones, and leaving out ``self``/``cls`` of methods and the parameters a
   ``functools.partial`` already fixed;
2. resolve the annotations (``typing.get_type_hints(include_extras=True)`` on the function that
   describes the call, see :mod:`aiwrapper._tools.callables`), falling back to the function's
   closure and the decorating frame's locals for nested definitions;
3. read descriptions from the docstring;
4. compile each annotation into a node (:mod:`aiwrapper._tools.typemap`), adding its
   description and default, and set aside the one parameter that receives the ``Context``;
5. render the canonical schema: a closed object with ``$defs`` for named types.

Dialect rendering is left to :mod:`aiwrapper._tools.dialects`.
"""

from __future__ import annotations

import contextlib
import inspect
import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ToolDefinitionError
from .callables import Target
from .compound import ObjectNode
from .context import is_context_annotation
from .docstrings import Docs, parse_docstring
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
    target: Target,
    *,
    frame_locals: Callable[[], Mapping[str, Any]] | None = None,
) -> Signature:
    """Run the pipeline on one callable.

    Args:
        target: The classified callable (see :func:`~aiwrapper._tools.callables.inspect_target`).
        frame_locals: Gives the decorating scope's local names, asked only when a name in an
            annotation cannot be resolved otherwise.

    Returns:
        The description, canonical parameters schema, validating node and context parameter.

    Raises:
        ToolDefinitionError: A parameter that cannot be described, naming it.
    """
    owner = str(getattr(target.source, "__qualname__", None) or target.name or repr(target.call))
    params = _list_parameters(target, owner)
    source = _only_annotations_of(target.source, {p.name for p in params})
    hints, localns = _resolve_hints(source, owner, frame_locals)
    docs = _read_docs(target.docs)
    mapper = TypeMapper(owner, localns, _globals_of(target.source))
    root = ObjectNode()
    context_params = []
    for param in params:
        if param.name not in hints:
            raise ToolDefinitionError(f"{owner}: parameter {param.name!r} has no type annotation")
        if is_context_annotation(hints[param.name]):
            context_params.append(param.name)
            continue
        root.fields[param.name] = _parameter_node(mapper, param, hints, docs.params)
        if param.default is inspect.Parameter.empty:
            root.required.append(param.name)
    if len(context_params) > 1:
        names = ", ".join(repr(name) for name in context_params)
        raise ToolDefinitionError(f"{owner}: parameters {names} all ask for the Context; keep one")
    context_param = context_params[0] if context_params else None
    return Signature(docs.description, render_parameters(root), root, context_param)


def render_parameters(root: ObjectNode) -> Schema:
    """Render the canonical schema of a tool's parameters (``$defs`` last)."""
    defs: Defs = {}
    out = root.body(defs)
    if defs:
        out["$defs"] = defs
    return out


def _list_parameters(target: Target, owner: str) -> list[inspect.Parameter]:
    try:
        params = list(inspect.signature(target.call).parameters.values())
    except (TypeError, ValueError) as exc:
        raise ToolDefinitionError(f"{owner}: cannot read the signature: {exc}") from exc
    if target.binding is not None and params:
        params = params[1:]  # self or cls of a method declared on a class
    params = [p for p in params if p.name not in target.hidden]
    for param in params:
        if param.kind in _BAD_KINDS:
            reason = _BAD_KINDS[param.kind]
            raise ToolDefinitionError(f"{owner}: parameter {param.name!r}: {reason}")
    return params


def _resolve_hints(
    source: Any, owner: str, frame_locals: Callable[[], Mapping[str, Any]] | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        return typing.get_type_hints(source, include_extras=True), {}
    except NameError:
        pass
    except TypeError as exc:
        raise ToolDefinitionError(f"{owner}: cannot read the annotations: {exc}") from exc
    localns = dict(frame_locals() if frame_locals else {})
    with contextlib.suppress(TypeError, ValueError):
        localns.update(inspect.getclosurevars(inspect.unwrap(_function_of(source))).nonlocals)
    try:
        return typing.get_type_hints(source, localns=localns, include_extras=True), localns
    except NameError as exc:
        raise ToolDefinitionError(
            f"{owner}: cannot resolve the annotation name {exc.name!r}; define it at module "
            "level or in the scope where @tool is applied"
        ) from exc


def _only_annotations_of(source: Any, names: set[str]) -> Any:
    """Let ``get_type_hints`` see only the listed parameters' annotations: ``self: Shop`` and
    ``-> Shop`` name a class that is still being defined while ``@tool`` runs in its body."""
    annotations = getattr(source, "__annotations__", None)
    if not isinstance(annotations, dict) or annotations.keys() <= names:
        return source
    kept = {k: v for k, v in annotations.items() if k in names}
    return types.SimpleNamespace(__annotations__=kept, __wrapped__=source)  # globals via wrapped


def _function_of(source: Any) -> Any:
    return getattr(source, "__func__", source)


def _globals_of(source: Any) -> dict[str, Any]:
    """The namespace the function was defined in (a notebook cell's namespace included)."""
    found = getattr(inspect.unwrap(_function_of(source)), "__globals__", None)
    return found if isinstance(found, dict) else {}


def _read_docs(texts: tuple[str | None, ...]) -> Docs:
    """Merge docstrings, best first: the first description wins, parameters fill in."""
    found = [parse_docstring(text) for text in texts]
    description = next((d.description for d in found if d.description), "")
    params: dict[str, str] = {}
    for docs in reversed(found):
        params.update(docs.params)
    return Docs(description, params)


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
