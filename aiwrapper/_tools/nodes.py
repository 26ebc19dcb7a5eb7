"""The compiled form of a tool's parameters: one node per type, each able to check and render.

This module owns the node classes. A node knows three things about one type: its canonical JSON
Schema (:meth:`Node.schema`), how to check a JSON value against it applying only the safe
coercions (:meth:`Node.convert`), and how to build the declared Python value afterwards (a
dataclass, an Enum member, a ``datetime``...). This module holds the base class and the
scalar nodes; :mod:`aiwrapper._tools.compound` holds the nodes that contain others. Nodes are
produced from type hints by
:mod:`aiwrapper._tools.typemap` and from JSON Schema by :mod:`aiwrapper._tools.schemanodes`, so
Python tools and dict definitions are validated by the same machinery. Named nodes (dataclass,
TypedDict, NamedTuple, Enum, pydantic model) render as ``$ref`` into ``$defs``; recursive types
are cyclic node graphs.
"""

from __future__ import annotations

import copy
import decimal
import json
import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from .validate import INVALID, State, check_constraints, describe_value

__all__ = [
    "AnyNode",
    "BoolNode",
    "Defs",
    "EnumNode",
    "IntNode",
    "Node",
    "NullNode",
    "NumberNode",
    "Schema",
    "StrNode",
]

Schema = dict[str, Any]
Defs = dict[str, Schema]

_MAX_DIGITS = 4300  # Python's own limit for int <-> str; "1e999999999" must not build an int
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

    def plain_type(self) -> type | None:
        """The type whose values, exactly that type, this node accepts unchanged, if any.

        Such a value needs no coercion, no constraint check and no build; an object whose
        fields all have one is checked by its keys' types alone (``takes_as_is``).
        """
        return None

    def takes_as_is(self, value: Any) -> bool:
        """Whether ``convert`` would return ``value`` as it is (a copy of it), with no check
        failing and nothing coerced; False when that takes the full check to tell."""
        return False

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
    """A boolean; the strings ``"true"`` and ``"false"`` (exactly) are coerced."""

    kind = "boolean"

    def _schema(self, defs: Defs) -> Schema:
        return {"type": "boolean"}

    def plain_type(self) -> type | None:
        return None if self.constraints else bool

    def _convert(self, value: Any, path: str, st: State) -> Any:
        if isinstance(value, bool):
            return value
        if st.coerce and isinstance(value, str) and value in ("true", "false"):
            return st.coerced(path, value, value == "true")
        return self._refuse(value, path, st)


class IntNode(Node):
    """An integer; an integral float or a numeric string of integral value (``"42"``,
    ``"3.0"``) is coerced; ``"3.5"``, a bool and a non-finite number never are."""

    kind = "integer"

    def _schema(self, defs: Defs) -> Schema:
        return {"type": "integer"}

    def plain_type(self) -> type | None:
        return None if self.constraints else int

    def _convert(self, value: Any, path: str, st: State) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if st.coerce and isinstance(value, float) and value.is_integer():
            return st.coerced(path, value, int(value))
        if st.coerce and isinstance(value, str) and _FLOAT_TEXT.fullmatch(value):
            number = decimal.Decimal(value)  # exact, unlike float: "3.0000000000000001" is refused
            if number.adjusted() < _MAX_DIGITS and number == number.to_integral_value():
                return st.coerced(path, value, int(number))
        return self._refuse(value, path, st)


class NumberNode(Node):
    """A finite number; a numeric string is coerced. ``as_float`` builds a Python float."""

    kind = "number"

    def __init__(self, *, as_float: bool = True) -> None:
        super().__init__()
        self.as_float = as_float

    def _schema(self, defs: Defs) -> Schema:
        return {"type": "number"}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return self._finite(value, value, path, st)
        if st.coerce and isinstance(value, str) and _FLOAT_TEXT.fullmatch(value):
            return self._finite(value, st.coerced(path, value, float(value)), path, st)
        return self._refuse(value, path, st)

    def _finite(self, value: Any, number: float, path: str, st: State) -> Any:
        # JSON has no NaN or Infinity; Python's json reads them, and "1e400" overflows to inf.
        try:
            out = float(number)
        except OverflowError:
            out = math.inf
        if not math.isfinite(out):
            return st.fail(path, f"expected a finite number, got {describe_value(value)}")
        return out if self.as_float or isinstance(number, float) else number


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

    def plain_type(self) -> type | None:
        return None if self.constraints or self.build is not None else str

    def _convert(self, value: Any, path: str, st: State) -> Any:
        return value if isinstance(value, str) else self._refuse(value, path, st)

    def _build(self, value: Any, path: str, st: State) -> Any:
        if self.build is None:
            return value
        try:
            built = self.build(value)
        except (ValueError, ArithmeticError):
            return self._refuse(value, path, st)
        if isinstance(built, decimal.Decimal):  # bounds of Annotated[Decimal, Ge(0)]
            return check_constraints(built, self.constraints, path, st)
        return built


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
        kinds = list(dict.fromkeys(_json_type(v) for v in values))
        if set(kinds) == {"integer", "number"}:
            kinds = ["number"]
        self.types = kinds  # a mixed Literal["a", 1] renders "type": ["string", "integer"]
        self.kind = kinds[0] if len(kinds) == 1 else "enum"

    def describe(self) -> str:
        return "one of " + ", ".join(json.dumps(v, ensure_ascii=False) for v in self.values)

    def matches_type(self, value: Any) -> bool:
        return any(type(v) is type(value) for v in self.values)

    def _schema(self, defs: Defs) -> Schema:
        body: Schema = {}
        if "enum" not in self.types:  # strict schemas and some dialects want a type on every node
            body["type"] = self.kind if len(self.types) == 1 else list(self.types)
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
        scalar = _SCALAR_NODES.get(self.kind) if st.coerce else None
        if scalar is not None:  # the scalar's own coercions: "2" for Literal[1, 2], "true"...
            plain = scalar().convert(value, path, State())
            match = next((a for a in self.values if _same(a, plain)), INVALID)
            if plain is not INVALID and match is not INVALID:
                return st.coerced(path, value, match)
        return self._refuse(value, path, st)

    def _build(self, value: Any, path: str, st: State) -> Any:
        return value if self.build is None else self.build(value)


_SCALAR_NODES: dict[str, Callable[[], Node]] = {
    "integer": IntNode,
    "number": lambda: NumberNode(as_float=False),
    "boolean": BoolNode,
}


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
