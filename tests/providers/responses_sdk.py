"""Request bodies checked against the official ``openai`` SDK's ``ResponseCreateParams`` types."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import TypeAdapter

from ..vendor_sdks import openai


def assert_sdk_accepts(body: dict[str, Any]) -> None:
    """``body`` validates as the SDK's params and loses no key doing so.

    The SDK's types are TypedDicts, which pydantic validates ignoring unknown keys: the body
    is dumped back and compared, so a key the SDK does not know (at any depth) fails too.
    """
    adapter = _adapter(bool(body.get("stream")))
    validated = adapter.validate_python(body)
    assert adapter.dump_python(validated, mode="json", exclude_unset=True) == body


@functools.cache
def _adapter(stream: bool) -> TypeAdapter[Any]:
    """The params type's validator, built on first use (the SDK is slow to import)."""
    params = openai.types.responses.response_create_params
    return TypeAdapter(
        params.ResponseCreateParamsStreaming if stream else params.ResponseCreateParamsNonStreaming
    )
