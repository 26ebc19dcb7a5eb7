"""Request bodies checked against the official ``openai`` SDK's ``ResponseCreateParams`` types."""

from __future__ import annotations

from typing import Any

from openai.types.responses.response_create_params import (
    ResponseCreateParamsNonStreaming,
    ResponseCreateParamsStreaming,
)
from pydantic import TypeAdapter

_STREAMING = TypeAdapter(ResponseCreateParamsStreaming)
_WHOLE = TypeAdapter(ResponseCreateParamsNonStreaming)


def assert_sdk_accepts(body: dict[str, Any]) -> None:
    """``body`` validates as the SDK's params and loses no key doing so.

    The SDK's types are TypedDicts, which pydantic validates ignoring unknown keys: the body
    is dumped back and compared, so a key the SDK does not know (at any depth) fails too.
    """
    adapter = _STREAMING if body.get("stream") else _WHOLE
    validated = adapter.validate_python(body)
    assert adapter.dump_python(validated, mode="json", exclude_unset=True) == body
