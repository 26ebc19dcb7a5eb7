"""Request bodies checked against the official ``openai`` SDK's Chat Completions params types."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from pydantic import TypeAdapter

from ..vendor_sdks import openai


def assert_chat_sdk_accepts(body: dict[str, Any]) -> None:
    """``body`` validates as the SDK's params and loses no key doing so.

    The SDK's types are TypedDicts, which pydantic validates ignoring unknown keys, so the
    validated value is compared with the body: a key the SDK does not know (at any depth)
    fails too. Its lists are ``Iterable`` types, which pydantic validates lazily, item by
    item as they are read: each is read here, so every content part is validated against the
    parts its message's role takes (text only in a tool message, say).
    """
    assert _eager(_adapter(bool(body.get("stream"))).validate_python(body)) == body


@functools.cache
def _adapter(stream: bool) -> TypeAdapter[Any]:
    """The params type's validator, built on first use (the SDK is slow to import)."""
    params = openai.types.chat.completion_create_params
    if stream:
        return TypeAdapter(params.CompletionCreateParamsStreaming)
    return TypeAdapter(params.CompletionCreateParamsNonStreaming)


def _eager(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _eager(item) for key, item in value.items()}
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        return value
    return [_eager(item) for item in value]
