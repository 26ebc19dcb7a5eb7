"""Pydantic models accepted by duck typing (pydantic is never imported here).

This module owns :class:`PydanticNode`: a class with ``model_json_schema`` and
``model_validate`` is described by its own JSON Schema (objects closed with
``additionalProperties: false`` unless the model says otherwise), checked by the shared
machinery so errors read the same, and then built with ``model_validate``.
"""

from __future__ import annotations

from typing import Any

from .nodes import Defs, Node, Schema
from .schemanodes import compile_schema
from .validate import INVALID, State, join_path

__all__ = ["PydanticNode", "is_pydantic_model"]


def is_pydantic_model(tp: Any) -> bool:
    """Tell whether a class looks like a pydantic v2 model."""
    return isinstance(tp, type) and all(
        callable(getattr(tp, name, None)) for name in ("model_json_schema", "model_validate")
    )


class PydanticNode(Node):
    """A pydantic model, rendered into ``$defs`` under ``name``."""

    kind = "object"

    def __init__(self, model: type, name: str) -> None:
        super().__init__()
        self.model = model
        self.name = name
        raw: Schema = model.model_json_schema()  # type: ignore[attr-defined]
        self.defs: Defs = {k: _close(v) for k, v in raw.pop("$defs", {}).items()}
        self.body = _close(raw)
        self.check = compile_schema(self.body, root={"$defs": self.defs})

    def _schema(self, defs: Defs) -> Schema:
        for key, value in self.defs.items():
            defs.setdefault(key, value)
        defs.setdefault(self.name, self.body)
        return {"$ref": f"#/$defs/{self.name}"}

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


def _close(schema: Any) -> Any:
    """Copy a schema, closing every object that does not say ``additionalProperties``."""
    if isinstance(schema, list):
        return [_close(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out = {
        k: _close(v) if k not in ("enum", "const", "default", "examples") else v
        for k, v in schema.items()
    }
    if out.get("type") == "object" and "properties" in out:
        out.setdefault("additionalProperties", False)
    return out
