"""The compiled form of a tool's parameters: one node per type, each able to check and render.

This module owns the node classes. A node knows three things about one type: its canonical JSON
Schema (:meth:`Node.schema`), how to check a JSON value against it applying only the safe
coercions (:meth:`Node.convert`), and how to build the declared Python value afterwards (a
dataclass, an Enum member, a ``datetime``...). Nodes are produced from type hints by
:mod:`aiwrapper.tools.typemap` and from JSON Schema by :mod:`aiwrapper.tools.schemanodes`, so
Python tools and dict definitions are validated by the same machinery. Named nodes (dataclass,
TypedDict, NamedTuple, Enum, pydantic model) render as ``$ref`` into ``$defs``; recursive types
are cyclic node graphs.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from .validate import INVALID, State, check_constraints, describe_value, join_path

__all__ = [
    "AnyNode",
    "ArrayNode",
    "BoolNode",
    "DictNode",
    "EnumNode",
    "IntNode",
    "Node",
    "NullNode",
    "NumberNode",
    "ObjectNode",
    "RefNode",
    "StrNode",
    "TupleNode",
    "UnionNode",
]

Schema = dict[str, Any]
Defs = dict[str, Schema]

_INT_TEXT = re.compile(r"\s*[+-]?\d+\s*")
_FLOAT_TEXT = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*")
_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list, tuple),
    "object": (Mapping,),
}
_ARTICLES = {"integer": "an integer", "array": "an array", "object": "an object", "null": "null"}


class Node:
    """One type of a tool's parameters.

    Attributes:
        meta: Annotations rendered beside the type (``description``, ``default``, ``examples``).
        constraints: JSON Schema keyword constraints checked on the JSON value.
    """

    kind = "any"

    def __init__(self) -> None:
        self.meta: Schema = {}
        self.constraints: Schema = {}

    def with_extras(self, meta: Schema | None = None, constraints: Schema | None = None) -> Node:
        """Return a copy carrying more metadata or constraints (the original is shared)."""
        new = copy.copy(self)
        new.meta = {**self.meta, **(meta or {})}
        new.constraints = {**self.constraints, **(constraints or {})}
        return new

    def schema(self, defs: Defs) -> Schema:
        """Render the canonical JSON Schema, adding named types to ``defs``."""
        return {**self._schema(defs), **self.constraints, **self.meta}

    def convert(self, value: Any, path: str, st: State) -> Any:
        """Check ``value`` at ``path``; return the built value or ``INVALID``."""
        mark = st.mark()
        out = self._convert(value, path, st)
        if out is INVALID or st.failed_since(mark):
            return INVALID
        if check_constraints(out, self.constraints, path, st) is INVALID:
            return INVALID
        return self._build(out, path, st)

    def matches_type(self, value: Any) -> bool:
        """Tell whether a JSON value has this node's JSON type (used to explain union errors)."""
        types = _JSON_TYPES.get(self.kind)
        if types is None:
            return self.kind == "any" or (self.kind == "null" and value is None)
        return isinstance(value, types) and (self.kind == "boolean") == isinstance(value, bool)

    def describe(self) -> str:
        """Name the expected type in an error message."""
        return _ARTICLES.get(self.kind, f"a {self.kind}")

    def _schema(self, defs: Defs) -> Schema:
        return {}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        return value

    def _build(self, value: Any, path: str, st: State) -> Any:
        return value

    def _refuse(self, value: Any, path: str, st: State) -> Any:
        return st.fail(path, f"expected {self.describe()}, got {describe_value(value)}")


class AnyNode(Node):
    """Any JSON value (``typing.Any``, ``object``, an empty schema)."""

    def describe(self) -> str:
        return "any JSON value"


class NullNode(Node):
    """Only ``null``."""

    kind = "null"

    def _schema(self, defs: Defs) -> Schema:
        return {"type": "null"}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        return None if value is None else self._refuse(value, path, st)


class BoolNode(Node):
    """A boolean; ``"true"``/``"false"`` are coerced."""

    kind = "boolean"

    def _schema(self, defs: Defs) -> Schema:
        return {"type": "boolean"}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        if isinstance(value, bool):
            return value
        if st.coerce and isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return st.coerced(path, value, value.strip().lower() == "true")
        return self._refuse(value, path, st)


class IntNode(Node):
    """An integer; an integral float or an integer string is coerced, a bool never is."""

    kind = "integer"

    def _schema(self, defs: Defs) -> Schema:
        return {"type": "integer"}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if st.coerce and isinstance(value, float) and value.is_integer():
            return st.coerced(path, value, int(value))
        if st.coerce and isinstance(value, str) and _INT_TEXT.fullmatch(value):
            return st.coerced(path, value, int(value))
        return self._refuse(value, path, st)


class NumberNode(Node):
    """A number; a numeric string is coerced. ``as_float`` builds a Python float."""

    kind = "number"

    def __init__(self, *, as_float: bool = True) -> None:
        super().__init__()
        self.as_float = as_float

    def _schema(self, defs: Defs) -> Schema:
        return {"type": "number"}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value) if self.as_float else value
        if st.coerce and isinstance(value, str) and _FLOAT_TEXT.fullmatch(value):
            return st.coerced(path, value, float(value))
        return self._refuse(value, path, st)


class StrNode(Node):
    """A string, optionally built into a Python type (``datetime``, ``UUID``...) afterwards."""

    kind = "string"

    def __init__(
        self,
        *,
        fmt: Schema | None = None,
        build: Callable[[str], Any] | None = None,
        expect: str = "a string",
    ) -> None:
        super().__init__()
        self.fmt = fmt or {}
        self.build = build
        self.expect = expect

    def describe(self) -> str:
        return self.expect

    def _schema(self, defs: Defs) -> Schema:
        return {"type": "string", **self.fmt}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        return value if isinstance(value, str) else self._refuse(value, path, st)

    def _build(self, value: Any, path: str, st: State) -> Any:
        if self.build is None:
            return value
        try:
            return self.build(value)
        except (ValueError, ArithmeticError):
            return self._refuse(value, path, st)


class EnumNode(Node):
    """One of fixed values (Literal, Enum, ``enum``/``const``); an Enum renders into ``$defs``.

    A string that matches one value case-insensitively is coerced when ``fold_case`` (an Enum
    or a JSON Schema ``enum``; a ``Literal`` matches exactly).
    """

    def __init__(
        self,
        values: list[Any],
        *,
        build: Callable[[Any], Any] | None = None,
        name: str | None = None,
        info: Schema | None = None,
        fold_case: bool = True,
    ) -> None:
        super().__init__()
        self.values = values
        self.fold_case = fold_case
        self.build = build
        self.name = name
        self.info = info or {}
        kinds = {_json_type(v) for v in values}
        self.kind = kinds.pop() if len(kinds) == 1 else "enum"

    def describe(self) -> str:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in self.values)

    def matches_type(self, value: Any) -> bool:
        return any(type(v) is type(value) for v in self.values)

    def _schema(self, defs: Defs) -> Schema:
        body: Schema = {"type": self.kind} if self.kind != "enum" else {}
        body["enum"] = list(self.values)
        if self.name is None:
            return body
        if self.name not in defs:
            defs[self.name] = {**self.info, **body}
        return {"$ref": f"#/$defs/{self.name}"}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        for allowed in self.values:
            if _same(allowed, value):
                return allowed
        if st.coerce and self.fold_case and isinstance(value, str):
            folded = [v for v in self.values if isinstance(v, str) and v.lower() == value.lower()]
            if len(folded) == 1:
                return st.coerced(path, value, folded[0])
        if st.coerce and self.kind == "integer":
            number = IntNode().convert(value, path, State())
            if number is not INVALID and number in self.values:
                return st.coerced(path, value, number)
        return self._refuse(value, path, st)

    def _build(self, value: Any, path: str, st: State) -> Any:
        return value if self.build is None else self.build(value)


class ArrayNode(Node):
    """A homogeneous array built as ``list``, ``set``, ``frozenset`` or ``tuple``."""

    kind = "array"

    def __init__(self, item: Node, *, container: type = list) -> None:
        super().__init__()
        self.item = item
        self.container = container

    def _schema(self, defs: Defs) -> Schema:
        out: Schema = {"type": "array", "items": self.item.schema(defs)}
        if self.container in (set, frozenset):
            out["uniqueItems"] = True
        return out

    def _convert(self, value: Any, path: str, st: State) -> Any:
        value = _parse_text(value, list, path, st)
        if not isinstance(value, (list, tuple)):
            if not st.coerce or value is None:
                return self._refuse(value, path, st)
            value = st.coerced(path, value, [value])
        return [self.item.convert(v, join_path(path, i), st) for i, v in enumerate(value)]

    def _build(self, value: Any, path: str, st: State) -> Any:
        return value if self.container is list else self.container(value)


class TupleNode(Node):
    """A fixed-length array whose positions have their own types (``tuple[int, str]``)."""

    kind = "array"

    def __init__(self, items: list[Node]) -> None:
        super().__init__()
        self.items = items

    def describe(self) -> str:
        return f"an array of exactly {len(self.items)} items"

    def _schema(self, defs: Defs) -> Schema:
        n = len(self.items)
        prefix = [node.schema(defs) for node in self.items]
        return {"type": "array", "prefixItems": prefix, "minItems": n, "maxItems": n}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        value = _parse_text(value, list, path, st)
        if not isinstance(value, (list, tuple)) or len(value) != len(self.items):
            return self._refuse(value, path, st)
        pairs = zip(self.items, value, strict=True)
        return tuple(node.convert(v, join_path(path, i), st) for i, (node, v) in enumerate(pairs))


class DictNode(Node):
    """A mapping with string keys (``dict[str, T]``); ``value=None`` is a free-form object."""

    kind = "object"

    def __init__(self, value: Node | None) -> None:
        super().__init__()
        self.value = value

    def _schema(self, defs: Defs) -> Schema:
        if self.value is None:
            return {"type": "object"}
        return {"type": "object", "additionalProperties": self.value.schema(defs)}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        value = _parse_text(value, dict, path, st)
        if not isinstance(value, Mapping):
            return self._refuse(value, path, st)
        if self.value is None:
            return dict(value)
        return {k: self.value.convert(v, join_path(path, k), st) for k, v in value.items()}


class ObjectNode(Node):
    """An object with declared fields: parameters, dataclass, TypedDict, NamedTuple, schema.

    Attributes:
        fields: The node of each field, in declaration order.
        required: Names of the fields that must be present.
        closed: Refuse keys that are not fields (``additionalProperties: false``).
        extra: Node checking undeclared keys of an open object, if any.
        build: Turns the checked field values into the Python object (``None``: a dict).
        name: The ``$defs`` name for a named type; ``None`` renders inline.
        info: Title and description rendered in the named type's definition.
    """

    kind = "object"

    def __init__(self, *, name: str | None = None, info: Schema | None = None) -> None:
        super().__init__()
        self.fields: dict[str, Node] = {}
        self.required: list[str] = []
        self.closed = True
        self.extra: Node | None = None
        self.build: Callable[..., Any] | None = None
        self.name = name
        self.info = info or {}

    def _schema(self, defs: Defs) -> Schema:
        if self.name is None:
            return self.body(defs)
        if self.name not in defs:
            defs[self.name] = {}  # placeholder: a recursive type refers to itself by name
            defs[self.name] = {**self.info, **self.body(defs)}
        return {"$ref": f"#/$defs/{self.name}"}

    def body(self, defs: Defs) -> Schema:
        """Render the object schema itself (never a ``$ref``)."""
        props = {key: node.schema(defs) for key, node in self.fields.items()}
        out: Schema = {"type": "object", "properties": props, "required": list(self.required)}
        if self.closed:
            out["additionalProperties"] = False
        return out

    def _convert(self, value: Any, path: str, st: State) -> Any:
        value = _parse_text(value, dict, path, st)
        if not isinstance(value, Mapping):
            return self._refuse(value, path, st)
        out: dict[str, Any] = {}
        for key, raw in value.items():
            if raw is None and key in self.fields and self._null_means_default(key):
                st.coerced(join_path(path, key), None, "(omitted: the default applies)")
            elif key in self.fields:
                out[key] = self.fields[key].convert(raw, join_path(path, key), st)
            elif self.extra is not None:
                out[key] = self.extra.convert(raw, join_path(path, key), st)
            elif self.closed:
                st.fail(join_path(path, key), f"unknown field {key!r}; {self._valid_fields()}")
            else:
                out[key] = raw
        for key in self.required:
            if key not in value:
                expected = self.fields[key].describe()
                st.fail(join_path(path, key), f"missing required field (expected {expected})")
        return out

    def _build(self, value: Any, path: str, st: State) -> Any:
        if self.build is None:
            return value
        try:
            return self.build(**value)
        except (TypeError, ValueError) as exc:
            return st.fail(path, f"invalid {self.name or 'object'}: {exc}")

    def _null_means_default(self, key: str) -> bool:
        """OpenAI strict mode sends ``null`` for an optional field it leaves out."""
        return key not in self.required and not self.fields[key].matches_type(None)

    def _valid_fields(self) -> str:
        if not self.fields:
            return "no fields are accepted here"
        return "valid fields: " + ", ".join(self.fields)


class UnionNode(Node):
    """One of several types; arms are tried in order, first without coercion, then with it."""

    kind = "union"

    def __init__(self, arms: list[Node]) -> None:
        super().__init__()
        self.arms = arms

    def describe(self) -> str:
        return " or ".join(arm.describe() for arm in self.arms)

    def matches_type(self, value: Any) -> bool:
        return any(arm.matches_type(value) for arm in self.arms)

    def _schema(self, defs: Defs) -> Schema:
        return {"anyOf": [arm.schema(defs) for arm in self.arms]}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        for coerce in (False, True) if st.coerce else (False,):
            for arm in self.arms:
                trial = State(coerce=coerce)
                out = arm.convert(value, path, trial)
                if out is not INVALID and not trial.errors:
                    st.coercions.extend(trial.coercions)
                    return out
        candidates = [arm for arm in self.arms if arm.matches_type(value)]
        if len(candidates) == 1:
            return candidates[0].convert(value, path, st)
        return self._refuse(value, path, st)


class RefNode(Node):
    """A node resolved on first use (``$ref`` in a JSON Schema, possibly recursive)."""

    def __init__(self, resolve: Callable[[], Node]) -> None:
        super().__init__()
        self._resolve = resolve
        self._target: Node | None = None

    @property
    def target(self) -> Node:
        """The referenced node."""
        if self._target is None:
            self._target = self._resolve()
        return self._target

    def describe(self) -> str:
        return self.target.describe()

    def matches_type(self, value: Any) -> bool:
        return self.target.matches_type(value)

    def _convert(self, value: Any, path: str, st: State) -> Any:
        return self.target.convert(value, path, st)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if value is None:
        return "null"
    return "string" if isinstance(value, str) else "enum"


def _same(allowed: Any, value: Any) -> bool:
    return isinstance(allowed, bool) == isinstance(value, bool) and allowed == value


def _parse_text(value: Any, expected: type, path: str, st: State) -> Any:
    """Coerce JSON text into an object or array when one is expected."""
    if not (st.coerce and isinstance(value, str)):
        return value
    opener = "{" if expected is dict else "["
    if not value.lstrip().startswith(opener):
        return value
    try:
        parsed = json.loads(value)
    except ValueError:
        return value
    return st.coerced(path, value, parsed) if isinstance(parsed, expected) else value
