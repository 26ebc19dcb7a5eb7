"""JSON Schema to nodes: validation for dict definitions and pydantic models.

This module owns :func:`compile_schema`, which reads a JSON Schema (the subset tools use:
``type`` (a name or a list), ``enum``, ``const``, ``properties``/``required``/
``additionalProperties``/``propertyNames``, ``items``/``prefixItems``, ``anyOf``/``oneOf``,
``allOf``, local ``$ref``, OpenAPI's ``nullable`` and the numeric, length and pattern
constraints) into the same nodes the type hints compile to. Values are kept as plain JSON:
no Python types are built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import ToolDefinitionError
from .compound import ArrayNode, DictNode, ObjectNode, RefNode, TupleNode, UnionNode
from .nodes import AnyNode, BoolNode, EnumNode, IntNode, Node, NullNode, NumberNode, StrNode

__all__ = ["CONSTRAINT_KEYS", "check_refs", "compile_schema"]

CONSTRAINT_KEYS = frozenset(
    {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
        "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems",
        "minProperties", "maxProperties",
    }
)  # fmt: skip
_SCALARS = {
    "string": StrNode,
    "integer": IntNode,
    "boolean": BoolNode,
    "null": NullNode,
}


class _Compiler:
    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.refs: dict[str, Node] = {}

    def compile(self, schema: Any) -> Node:
        if not isinstance(schema, Mapping):
            return AnyNode()
        node = self._compile(schema)
        constraints = {k: v for k, v in schema.items() if k in CONSTRAINT_KEYS}
        return node.with_extras(constraints=constraints) if constraints else node

    def _compile(self, schema: Mapping[str, Any]) -> Node:
        if "$ref" in schema:
            return self._ref(str(schema["$ref"]))
        if schema.get("nullable") is True:
            rest = {k: v for k, v in schema.items() if k != "nullable"}
            return UnionNode([self.compile(rest), NullNode()])
        for key in ("anyOf", "oneOf"):
            if isinstance(schema.get(key), list):
                return UnionNode([self.compile(arm) for arm in schema[key]])
        if isinstance(schema.get("allOf"), list) and len(schema["allOf"]) == 1:
            return self.compile(schema["allOf"][0])
        if "const" in schema:
            return EnumNode([schema["const"]])
        if isinstance(schema.get("enum"), list):
            return EnumNode(list(schema["enum"]))
        kind = schema.get("type")
        if isinstance(kind, list):
            return UnionNode([self.compile({**schema, "type": k}) for k in kind])
        return self._typed(kind, schema)

    def _typed(self, kind: Any, schema: Mapping[str, Any]) -> Node:
        if kind in _SCALARS:
            scalar: Node = _SCALARS[kind]()
            return scalar
        if kind == "number":
            return NumberNode(as_float=False)
        if kind == "object" or "properties" in schema:
            return self._object(schema)
        if kind == "array" or "items" in schema or "prefixItems" in schema:
            if isinstance(schema.get("prefixItems"), list):
                return TupleNode([self.compile(s) for s in schema["prefixItems"]])
            return ArrayNode(self.compile(schema.get("items", {})))
        return AnyNode()

    def _object(self, schema: Mapping[str, Any]) -> Node:
        props = schema.get("properties")
        extra = schema.get("additionalProperties", True)
        if not isinstance(props, Mapping) or not props:
            names = schema.get("propertyNames")
            key = self.compile(names) if isinstance(names, Mapping) else None
            if isinstance(extra, Mapping):
                return DictNode(self.compile(extra), key=key)
            if extra is not False:
                return DictNode(None, key=key)
            props = {}
        node = ObjectNode()
        node.fields = {str(k): self.compile(v) for k, v in props.items()}
        required = schema.get("required", [])
        if isinstance(required, list):
            node.required = [k for k in required if k in node.fields]
        node.closed = extra is False
        node.extra = self.compile(extra) if isinstance(extra, Mapping) else None
        return node

    def _ref(self, ref: str) -> Node:
        if ref not in self.refs:
            self.refs[ref] = RefNode(lambda: self.compile(self._resolve(ref)))
        return self.refs[ref]

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise ToolDefinitionError(f"only local $ref values are supported, got {ref!r}")
        target: Any = self.root
        for token in filter(None, ref[1:].split("/")):
            token = token.replace("~1", "/").replace("~0", "~")
            if not isinstance(target, Mapping) or token not in target:
                raise ToolDefinitionError(f"$ref {ref!r} does not point into the schema")
            target = target[token]
        return target


def compile_schema(schema: Mapping[str, Any], *, root: Mapping[str, Any] | None = None) -> Node:
    """Compile a JSON Schema into a validating node.

    Args:
        schema: The schema to compile.
        root: The document ``$ref`` pointers resolve against (defaults to ``schema``).

    Returns:
        A node whose :meth:`~aiwrapper._tools.nodes.Node.convert` checks plain JSON values.

    Raises:
        ToolDefinitionError: A ``$ref`` that is not local or points nowhere (when first used).
    """
    compiler = _Compiler(root if root is not None else schema)
    return compiler.compile(schema)


def check_refs(schema: Any, root: Mapping[str, Any]) -> None:
    """Resolve every ``$ref`` once so a broken one fails at definition time.

    Args:
        schema: Any part of the schema to walk.
        root: The document pointers resolve against.

    Raises:
        ToolDefinitionError: A ``$ref`` that is not local or points nowhere.
    """
    if isinstance(schema, Mapping):
        if isinstance(schema.get("$ref"), str):
            _Compiler(root)._resolve(schema["$ref"])
        for value in schema.values():
            check_refs(value, root)
    elif isinstance(schema, list):
        for value in schema:
            check_refs(value, root)
