"""The public names: complete, sorted, importable, and the names the project promises."""

from __future__ import annotations

import aiwrapper
from aiwrapper import errors

PROMISED = {
    "Lang", "LangOptions", "LangResult", "LangMessages", "LangMessage", "FunctionCall", "Usage",
    "tool", "Tool", "Param", "Context", "AIWrapperError", "ConfigError", "ToolDefinitionError",
    "ToolArgumentsError", "ProviderError", "AuthenticationError", "PermissionDeniedError",
    "NotFoundError", "BadRequestError", "RateLimitError", "ServerError", "OverloadedError",
    "ConnectionError", "RequestTimeoutError", "StreamError", "MaxIterationsError",
    "RunTimeoutError", "TurnStarted", "TextDelta", "ThinkingDelta", "CallStarted",
    "CallArgumentsDelta", "CallReady", "CallFinished", "TurnFinished", "RunFinished",
}  # fmt: skip


def test_all_is_sorted_and_every_name_exists() -> None:
    assert aiwrapper.__all__ == sorted(aiwrapper.__all__)
    for name in aiwrapper.__all__:
        assert getattr(aiwrapper, name) is not None


def test_every_promised_name_is_public() -> None:
    assert set(aiwrapper.__all__) >= PROMISED


def test_every_error_is_exported_and_derives_from_the_root() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, aiwrapper.AIWrapperError)
        assert name in aiwrapper.__all__
        assert cls.__doc__, f"{name} needs a docstring saying when it is raised"


def test_overloaded_is_a_server_error() -> None:
    assert issubclass(aiwrapper.OverloadedError, aiwrapper.ServerError)
    assert issubclass(aiwrapper.RateLimitError, aiwrapper.ProviderError)


def test_the_public_text_delta_is_the_run_event_not_the_decoder_event() -> None:
    from aiwrapper import events, runevents

    assert aiwrapper.TextDelta is runevents.TextDelta is not events.TextDelta
    assert aiwrapper.ThinkingDelta is runevents.ThinkingDelta is not events.ThinkingDelta
