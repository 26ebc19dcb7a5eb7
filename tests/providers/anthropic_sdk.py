"""Request bodies checked against the official ``anthropic`` SDK's ``MessageCreateParams`` types."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, TypeAdapter

from ..vendor_sdks import anthropic


@functools.cache
def _adapter(stream: bool) -> TypeAdapter[Any]:
    """The params type's validator, built once (building it takes a while) on first use."""
    params = anthropic.types.message_create_params
    return TypeAdapter(
        params.MessageCreateParamsStreaming if stream else params.MessageCreateParamsNonStreaming
    )


def assert_sdk_accepts(body: dict[str, Any]) -> None:
    """``body`` validates as the SDK's params and loses no key doing so.

    The SDK's types are TypedDicts, which pydantic validates ignoring unknown keys: the
    validated value is compared with the body, so a key the SDK does not know (at any depth)
    fails too. Its ``Iterable`` fields validate lazily, each item as it is read, so the value
    is read whole first (pydantic's own dump loses items of a lazy list inside a union).
    """
    assert _read_whole(_adapter(bool(body.get("stream"))).validate_python(body)) == body


def _read_whole(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", exclude_unset=True)
    if isinstance(value, dict):
        return {key: _read_whole(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, Iterator)):
        return [_read_whole(item) for item in value]
    return value
