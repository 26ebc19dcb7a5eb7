"""Pydantic models accepted by duck typing (pydantic is never imported here).

This module owns :class:`PydanticNode`: a class with ``model_json_schema`` and
``model_validate`` is described by its own JSON Schema (objects closed with
``additionalProperties: false`` unless the model says otherwise), checked by the shared
machinery so errors read the same, and then built with ``model_validate``. The model's own
``$defs`` join the tool's: each name is claimed from the tool's
:class:`~aiwrapper._tools.typemap.TypeMapper`, so a nested model that shares its name with
another type of the same tool is renamed (``Item2``) and its ``$ref`` pointers with it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .nodes import Defs, Node, Schema
from .schemanodes import compile_schema
from .validate import INVALID, State, join_path

__all__ = ["PydanticNode", "is_pydantic_model"]

_DEFS = "#/$defs/"
_ONE = ("items", "additionalProperties", "not", "contains", "propertyNames")
_MANY = ("anyOf", "oneOf", "allOf", "prefixItems")

Claim = Callable[[str, Schema], str]


def is_pydantic_model(tp: Any) -> bool:
    """Tell whether a class looks like a pydantic v2 model."""
    return isinstance(tp, type) and all(
        callable(getattr(tp, name, None)) for name in ("model_json_schema", "model_validate")
    )


class PydanticNode(Node):
    """A pydantic model, rendered into ``$defs``.

    Args:
        model: The model class.
        claim: Gives the ``$defs`` name for a definition (``claim(wanted, body)``).
    """

    kind = "object"

    def __init__(self, model: type, claim: Claim) -> None:
        super().__init__()
        self.model = model
        raw: Schema = model.model_json_schema()  # type: ignore[attr-defined]
        inner: Defs = raw.pop("$defs", {})
        renames = {old: claim(old, body) for old, body in inner.items()}
        self.defs: Defs = {renames[old]: _adapt(body, renames) for old, body in inner.items()}
        body = _adapt(raw, renames)
        ref = body.get("$ref")
        if isinstance(ref, str) and len(body) == 1:  # a recursive model is itself a definition
            self.name = ref[len(_DEFS) :]
        else:
            self.name = claim(model.__name__, raw)
            self.defs[self.name] = body
        self.check = compile_schema({"$ref": _DEFS + self.name}, root={"$defs": self.defs})

    def _schema(self, defs: Defs) -> Schema:
        for key, value in self.defs.items():
            defs.setdefault(key, value)
        return {"$ref": _DEFS + self.name}

    def _convert(self, value: Any, path: str, st: State) -> Any:
        return self.check.convert(value, path, st)

    def _build(self, value: Any, path: str, st: State) -> Any:
        try:
            return self.model.model_validate(value)  # type: ignore[attr-defined]
        except Exception as exc:  # pydantic's ValidationError, found by duck typing
            errors = getattr(exc, "errors", None)
            if not callable(errors):
                raise
            found = errors()
            for error in found:
                where = path
                for token in error.get("loc", ()):
                    where = join_path(where, token)
                st.fail(where, str(error.get("msg", "invalid value")))
            return INVALID if found else st.fail(path, f"invalid {self.name}: {exc}")


def _adapt(schema: Any, renames: dict[str, str]) -> Any:
    """Copy a schema: every object that does not say ``additionalProperties`` is closed and
    ``$ref`` pointers follow renamed definitions. Only subschemas are walked, so a property
    named ``enum`` or ``default`` is a subschema like any other."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    ref = out.get("$ref")
    if isinstance(ref, str) and ref.startswith(_DEFS):
        out["$ref"] = _DEFS + renames.get(ref[len(_DEFS) :], ref[len(_DEFS) :])
    if isinstance(out.get("properties"), dict):
        out["properties"] = {k: _adapt(v, renames) for k, v in out["properties"].items()}
        out.setdefault("additionalProperties", False)
    for key in _ONE:
        if isinstance(out.get(key), dict):
            out[key] = _adapt(out[key], renames)
    for key in _MANY:
        if isinstance(out.get(key), list):
            out[key] = [_adapt(s, renames) for s in out[key]]
    return out
