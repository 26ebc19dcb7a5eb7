"""Compound nodes: arrays, tuples, mappings, objects, unions and references.

This module owns the nodes that hold other nodes (see :mod:`aiwrapper._tools.nodes` for the
base class and the scalar nodes). An object node checks every field and reports unknown keys
naming the valid ones and missing fields at their own pointer; it also reads ``null`` for an
optional field that does not accept ``null`` as "omitted", which is what a strict dialect
sends (the rule and its reason are in :mod:`aiwrapper._tools.validate`). A union node tries
its arms in order, first without coercion and then with it, and when none fits reports the
errors of the closest arm; a reference node resolves its target on first use so recursive
schemas compile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._wire._jsontext import loads_standard
from .nodes import Defs, Node, Schema
from .validate import INVALID, State, join_path

__all__ = ["ArrayNode", "DictNode", "ObjectNode", "RefNode", "TupleNode", "UnionNode"]


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
        if not isinstance(value, (list, tuple)):
            return self._refuse(value, path, st)
        if len(value) != len(self.items):
            return st.fail(path, f"expected {self.describe()}, got {len(value)} items")
        pairs = zip(self.items, value, strict=True)
        return tuple(node.convert(v, join_path(path, i), st) for i, (node, v) in enumerate(pairs))


class DictNode(Node):
    """A mapping with string keys (``dict[str, T]``); ``value=None`` is a free-form object.

    ``key`` checks the keys (``dict[Literal["a", "b"], T]``, JSON Schema ``propertyNames``).
    """

    kind = "object"

    def __init__(self, value: Node | None, *, key: Node | None = None) -> None:
        super().__init__()
        self.value = value
        self.key = key

    def _schema(self, defs: Defs) -> Schema:
        out: Schema = {"type": "object"}
        if self.key is not None:
            out["propertyNames"] = self.key.schema(defs)
        if self.value is not None:
            out["additionalProperties"] = self.value.schema(defs)
        return out

    def _convert(self, value: Any, path: str, st: State) -> Any:
        value = _parse_text(value, dict, path, st)
        if not isinstance(value, Mapping):
            return self._refuse(value, path, st)
        out: dict[str, Any] = {}
        for k, v in value.items():
            where = join_path(path, k)
            if self.key is not None and self.key.convert(k, where, State(coerce=False)) is INVALID:
                st.fail(where, f"key {k!r} is not allowed; expected {self.key.describe()}")
            else:
                out[k] = v if self.value is None else self.value.convert(v, where, st)
        return out


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
        self._plain: dict[str, type] | None = None  # each field's plain type, read at first use

    def takes_as_is(self, value: Any) -> bool:
        """True for a dict holding every required field, each field of its plain type (an
        ``int`` for an ``int`` field...): the common call, checked in one pass over its keys."""
        if self.build is not None or self.constraints or value.__class__ is not dict:
            return False
        plain = self._plain
        if plain is None:  # fields are filled after __init__: read them at first use
            plain = self._plain = _plain_types(self.fields)
        for key, item in value.items():  # a loop, not all(): the hot path of every call
            if plain.get(key) is not item.__class__:
                return False
        return bool(plain) and all(map(value.__contains__, self.required))

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
        """Strict mode sends ``null`` for an optional field it leaves out."""
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
        if not candidates:
            return self._refuse(value, path, st)
        return self._closest(candidates, value, path, st)

    def _closest(self, candidates: list[Node], value: Any, path: str, st: State) -> Any:
        """Report the errors of the arm the value comes closest to (fewest errors, then first):
        ``{"x": "1"}`` for ``P | Q`` says what is wrong with it as a ``P``."""
        best: State | None = None
        for arm in candidates:
            trial = State(coerce=st.coerce)
            arm.convert(value, path, trial)
            if best is None or len(trial.errors) < len(best.errors):
                best = trial
        if best is None or not best.errors:
            return self._refuse(value, path, st)
        st.errors.extend(best.errors)
        return INVALID


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


def _plain_types(fields: Mapping[str, Node]) -> dict[str, type]:
    """Each field's plain type, or no entry at all when one field has none."""
    types: dict[str, type] = {}
    for key, node in fields.items():
        kind = node.plain_type()
        if kind is None:
            return {}
        types[key] = kind
    return types


def _parse_text(value: Any, expected: type, path: str, st: State) -> Any:
    """Coerce JSON text into an object or array when one is expected."""
    if not (st.coerce and isinstance(value, str)):
        return value
    opener = "{" if expected is dict else "["
    if not value.lstrip().startswith(opener):
        return value
    try:
        parsed = loads_standard(value)
    except ValueError:  # not JSON, NaN, or nested too deeply: the string stays as it is
        return value
    return st.coerced(path, value, parsed) if isinstance(parsed, expected) else value
