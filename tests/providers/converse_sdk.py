"""Converse request bodies checked against botocore's model of the Bedrock Runtime API.

The body is read back into the parameters an AWS SDK caller would pass (blobs as raw bytes),
validated by botocore's parameter validator (and the model's enums and maximum lengths here),
and serialized by botocore's REST-JSON serializer: what botocore would send must be our body,
key for key, base64 text included.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import botocore.session
from botocore.model import Shape
from botocore.serialize import create_serializer
from botocore.validate import ParamValidator

_MODEL = botocore.session.get_session().get_service_model("bedrock-runtime")
_CONVERSE = _MODEL.operation_model("Converse")


def assert_botocore_sends(body: dict[str, Any], model_id: str) -> None:
    """``body`` is valid Converse input, and the JSON botocore writes for it."""
    shape = _CONVERSE.input_shape
    params = {"modelId": model_id, **_as_params(body, shape)}
    report = ParamValidator().validate(params, shape)
    assert not report.has_errors(), report.generate_report()
    request = create_serializer("rest-json").serialize_to_request(params, _CONVERSE)
    assert json.loads(request["body"]) == body


def _as_params(value: Any, shape: Shape) -> Any:
    """``value`` read from JSON as botocore's parameters: blobs decoded from base64, and enum
    values and string lengths checked (botocore's validator checks types, required members
    and minimums only)."""
    if shape.type_name == "string":
        _check_string(value, shape)
    if shape.type_name == "blob":
        return base64.b64decode(value, validate=True)
    if shape.type_name == "list":
        return [_as_params(item, shape.member) for item in value]  # type: ignore[attr-defined]
    if shape.type_name == "map":
        return {k: _as_params(v, shape.value) for k, v in value.items()}  # type: ignore[attr-defined]
    if shape.type_name == "structure" and not shape.is_document_type:
        members = shape.members  # type: ignore[attr-defined]
        return {k: _as_params(v, members[k]) if k in members else v for k, v in value.items()}
    return value


def _check_string(value: Any, shape: Shape) -> None:
    enum = getattr(shape, "enum", None)
    assert not enum or value in enum, f"{value!r} is not one of {shape.name}'s {enum}"
    most = shape.metadata.get("max")
    assert most is None or len(value) <= most, f"{value!r} is longer than {shape.name}'s {most}"
