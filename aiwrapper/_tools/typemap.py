"""Type hints to nodes: the mapping from Python types to JSON Schema types.

This module owns :class:`TypeMapper`, which turns one resolved annotation into a
:class:`~aiwrapper._tools.nodes.Node`: scalars, containers, unions, ``Literal``, ``Enum``,
dataclasses, TypedDicts, NamedTuples, pydantic models (by duck typing), string formats and
``Annotated`` metadata. Named types are compiled once and shared, so recursive types close into
a cyclic graph. Reading a whole function signature is left to :mod:`aiwrapper._tools.schema`.
"""

from __future__ import annotations

import collections.abc as cabc
import dataclasses
import datetime as dt
import decimal
import enum
import pathlib
import types
import typing
import uuid
from collections.abc import Callable
from typing import Any, get_args, get_origin

import typing_extensions as tx

from .._errors import ToolDefinitionError
from .compound import ArrayNode, DictNode, ObjectNode, TupleNode, UnionNode
from .docstrings import parse_docstring
from .exact import DecimalNode
from .metadata import apply_metadata, jsonable_default
from .models import PydanticNode, is_pydantic_model
from .nodes import AnyNode, BoolNode, EnumNode, IntNode, Node, NullNode, NumberNode, StrNode

__all__ = ["TypeMapper"]


def _parse_datetime(text: str) -> dt.datetime:
    # Python 3.10's fromisoformat does not read the "Z" suffix models often write.
    return dt.datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)


def _parse_time(text: str) -> dt.time:
    return dt.time.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)


_STRING_TYPES: dict[Any, Callable[[], StrNode]] = {
    str: StrNode,
    dt.datetime: lambda: StrNode(
        fmt={"format": "date-time"}, build=_parse_datetime, expect="an ISO 8601 date-time string"
    ),
    dt.date: lambda: StrNode(
        fmt={"format": "date"}, build=dt.date.fromisoformat, expect="an ISO 8601 date (YYYY-MM-DD)"
    ),
    dt.time: lambda: StrNode(
        fmt={"format": "time"}, build=_parse_time, expect="an ISO 8601 time (HH:MM:SS)"
    ),
    uuid.UUID: lambda: StrNode(fmt={"format": "uuid"}, build=uuid.UUID, expect="a UUID string"),
    decimal.Decimal: DecimalNode,
    pathlib.Path: lambda: StrNode(build=pathlib.Path, expect="a path string"),
    pathlib.PurePath: lambda: StrNode(build=pathlib.PurePath, expect="a path string"),
}
_SCALARS: dict[Any, Callable[[], Node]] = {
    bool: BoolNode,
    int: IntNode,
    float: NumberNode,
    type(None): NullNode,
    None: NullNode,
    Any: AnyNode,
    object: AnyNode,
}
_LISTS = {list, cabc.Sequence, cabc.MutableSequence, cabc.Iterable, cabc.Collection}
_SETS = {set: set, frozenset: frozenset, cabc.Set: frozenset, cabc.MutableSet: set}
_MAPPINGS = {dict, cabc.Mapping, cabc.MutableMapping}
_WRAPPERS = {tx.Required, tx.NotRequired, tx.ReadOnly, typing.Final, typing.ClassVar}
_UNIONS = (typing.Union, types.UnionType)


class TypeMapper:
    """Compiles annotations into nodes for one tool, sharing named types between parameters.

    Args:
        owner: The tool's function name, used in error messages.
        localns: Extra names for resolving string annotations of nested classes.
        globalns: The tool function's globals: classes defined beside it (in a notebook cell,
            or in a namespace given to ``exec``) resolve their annotations there when their
            ``__module__`` does not lead to that namespace.
    """

    def __init__(
        self,
        owner: str,
        localns: dict[str, Any] | None = None,
        globalns: dict[str, Any] | None = None,
    ) -> None:
        self.owner = owner
        self.localns = localns or {}
        self.globalns = globalns or {}
        self._named: dict[Any, Node] = {}
        self._names: set[str] = set()
        self._pydantic_defs: dict[str, dict[str, Any]] = {}

    def node(self, tp: Any, where: str) -> Node:
        """Compile one annotation; ``where`` names the parameter or field for errors."""
        origin = get_origin(tp)
        if origin is tx.Annotated:
            base, *metadata = get_args(tp)
            return apply_metadata(self.node(base, where), metadata)
        if origin in _WRAPPERS:
            return self.node(get_args(tp)[0], where)
        if isinstance(tp, typing.NewType):
            return self.node(tp.__supertype__, where)
        if tp in _SCALARS:
            return _SCALARS[tp]()
        if tp in _STRING_TYPES:
            return _STRING_TYPES[tp]()
        if origin in _UNIONS:
            return UnionNode([self.node(arm, where) for arm in get_args(tp)])
        if origin is typing.Literal:
            return self._literal(tp, where)
        if origin is not None:
            return self._generic(tp, origin, where)
        if isinstance(tp, type):
            return self._named_type(tp, where)
        raise self._unsupported(tp, where)

    def _literal(self, tp: Any, where: str) -> Node:
        values = list(get_args(tp))
        if any(v is not None and not isinstance(v, (str, int, float)) for v in values):
            raise self._unsupported(tp, where)
        if None in values and len(values) > 1:
            literal = EnumNode([v for v in values if v is not None], fold_case=False)
            return UnionNode([literal, NullNode()])
        return EnumNode(values, fold_case=False)

    def _generic(self, tp: Any, origin: Any, where: str) -> Node:
        args = get_args(tp)
        if origin in _LISTS:
            return ArrayNode(self._item(args, where))
        if origin in _SETS:
            return ArrayNode(self._item(args, where), container=_SETS[origin])
        if origin is tuple:
            if len(args) == 2 and args[1] is Ellipsis:
                return ArrayNode(self.node(args[0], where), container=tuple)
            if args in ((), ((),)):
                empty = ArrayNode(AnyNode(), container=tuple)
                return empty.with_extras(constraints={"maxItems": 0})
            return TupleNode([self.node(arg, where) for arg in args])
        if origin in _MAPPINGS:
            key = args[0] if args else str
            value = self.node(args[1], where) if args else None
            if key in (str, Any):
                return DictNode(value)
            if get_origin(key) is typing.Literal and all(isinstance(k, str) for k in get_args(key)):
                return DictNode(value, key=self.node(key, where))
            raise self._unsupported(tp, where, "mapping keys must be str (JSON object keys)")
        raise self._unsupported(tp, where)

    def _item(self, args: tuple[Any, ...], where: str) -> Node:
        return self.node(args[0], where) if args else AnyNode()

    def _named_type(self, tp: type, where: str) -> Node:
        if tp in (list, set, frozenset, tuple, dict):
            return self._generic(tp, tp, where)
        if tp in self._named:
            return self._named[tp]
        if issubclass(tp, enum.Enum):
            return self._enum(tp, where)
        if is_pydantic_model(tp):
            node: Node = PydanticNode(tp, self._claim)
            self._named[tp] = node
            return node
        if dataclasses.is_dataclass(tp) or tx.is_typeddict(tp) or _is_namedtuple(tp):
            return self._record(tp, where)
        raise self._unsupported(tp, where)

    def _enum(self, tp: type[enum.Enum], where: str) -> Node:
        values = [member.value for member in tp]
        if any(not isinstance(v, (str, int, float, bool)) for v in values):
            raise self._unsupported(tp, where, "Enum values must be str, int, float or bool")
        node = EnumNode(values, build=tp, name=self._def_name(tp), info=_class_info(tp))
        self._named[tp] = node
        return node

    def _record(self, tp: type, where: str) -> Node:
        node = ObjectNode(name=self._def_name(tp), info=_class_info(tp))
        self._named[tp] = node  # registered before the fields: recursive types refer back
        hints = self._class_hints(tp)
        docs = parse_docstring(tp.__doc__).params
        for name, default, description, required in _record_fields(tp, hints):
            field = f"{where} -> {tp.__name__}.{name}"
            if name not in hints:
                raise ToolDefinitionError(f"{self.owner}: field {field!r} has no type annotation")
            field_node = self.node(hints[name], field)
            meta: dict[str, Any] = {}
            if description or docs.get(name):
                meta["description"] = description or docs[name]
            shown = None if default is dataclasses.MISSING else jsonable_default(default)
            if shown is not None:
                meta["default"] = shown[0]
            node.fields[name] = field_node.with_extras(meta) if meta else field_node
            if required:
                node.required.append(name)
        node.build = None if tx.is_typeddict(tp) else tp
        return node

    def _class_hints(self, tp: type) -> dict[str, Any]:
        localns = {**self.localns, tp.__name__: tp}
        try:
            return typing.get_type_hints(tp, localns=localns, include_extras=True)
        except NameError:
            pass
        try:  # names the class's module does not know: try the tool function's namespace
            wider = {**self.globalns, **localns}
            return typing.get_type_hints(tp, localns=wider, include_extras=True)
        except NameError as exc:
            raise ToolDefinitionError(
                f"{self.owner}: cannot resolve the annotation {exc.name!r} in {tp.__qualname__}; "
                "define that type at module level"
            ) from exc

    def _def_name(self, tp: type) -> str:
        return self._unique(tp.__name__)

    def _unique(self, wanted: str) -> str:
        name, n = wanted, 2
        while name in self._names:
            name, n = f"{wanted}{n}", n + 1
        self._names.add(name)
        return name

    def _claim(self, wanted: str, body: dict[str, Any]) -> str:
        """Name a pydantic model's definition; the same definition met twice keeps its name."""
        if self._pydantic_defs.get(wanted) == body:
            return wanted
        name = self._unique(wanted)
        self._pydantic_defs[name] = body
        return name

    def _unsupported(self, tp: Any, where: str, why: str = "") -> ToolDefinitionError:
        shown = getattr(tp, "__qualname__", None) or repr(tp)
        hint = why or (
            "use str, int, float, bool, lists, dicts with str keys, Literal, Enum, dataclasses, "
            "TypedDicts, NamedTuples or pydantic models"
        )
        return ToolDefinitionError(
            f"{self.owner}: parameter {where!r} has unsupported type {shown}: {hint}"
        )


def _is_namedtuple(tp: type) -> bool:
    return issubclass(tp, tuple) and hasattr(tp, "_fields")


def _class_info(tp: type) -> dict[str, Any]:
    info: dict[str, Any] = {"title": tp.__name__}
    doc = tp.__dict__.get("__doc__")
    generated = doc is None or doc.startswith(f"{tp.__name__}(") or doc == "An enumeration."
    description = "" if generated else parse_docstring(doc).description
    if description:
        info["description"] = description
    return info


def _record_fields(tp: type, hints: dict[str, Any]) -> list[tuple[str, Any, str, bool]]:
    """List ``(name, default, description, required)`` for a dataclass, TypedDict or NamedTuple."""
    if dataclasses.is_dataclass(tp):
        return [
            (
                f.name,
                f.default,
                str(f.metadata.get("description", "")),
                f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            )
            for f in dataclasses.fields(tp)
            if f.init
        ]
    if tx.is_typeddict(tp):
        required_keys = getattr(tp, "__required_keys__", frozenset(hints))
        return [
            (name, dataclasses.MISSING, "", _typeddict_required(hint, name in required_keys))
            for name, hint in hints.items()
        ]
    defaults: dict[str, Any] = getattr(tp, "_field_defaults", {})
    return [
        (name, defaults.get(name, dataclasses.MISSING), "", name not in defaults)
        for name in tp._fields  # type: ignore[attr-defined]
    ]


def _typeddict_required(hint: Any, default: bool) -> bool:
    origin = get_origin(hint)
    if origin is tx.Annotated:
        return _typeddict_required(get_args(hint)[0], default)
    if origin is tx.Required:
        return True
    if origin is tx.NotRequired:
        return False
    return default
