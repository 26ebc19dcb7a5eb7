"""``LangOptionsDict``: the keyword overrides of ``ask``/``chat``/``stream``, typed for editors.

The methods take ``**overrides: Unpack[LangOptionsDict]``, so an editor completes option names
and mypy or pyright refuse a misspelt name (``temprature=``) or a value of the wrong type
(``temperature="hot"``). The fields mirror :class:`~aiwrapper._run._options.LangOptions` one for one
(a test compares them). ``output_type`` sits in the subclass: the overloads that type
``result.output`` take it as a keyword of its own, which a TypedDict key may not repeat.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from typing_extensions import TypedDict

from .._wire._sizelimits import SizeLimits
from ._options import (
    ApproveCallback,
    EventCallback,
    FunctionCallChoice,
    FunctionHandler,
    ResultCallback,
    Thinking,
)

__all__ = ["CallOverrides", "LangOptionsDict"]


class CallOverrides(TypedDict, total=False):
    """Every ``LangOptions`` field but ``output_type``, as keyword overrides."""

    on_result: ResultCallback | None
    on_event: EventCallback | None
    functions: Sequence[Any] | None
    function_handler: FunctionHandler | None
    function_call: FunctionCallChoice | None
    parallel: bool | None
    early_start: bool | None
    max_concurrency: int | None
    parallel_tool_calls: bool | None
    max_iterations: int | None
    max_tool_calls: int | None
    timeout: float | None
    tool_timeout: float | None
    approve: ApproveCallback | None
    tool_errors: Literal["return", "raise"] | None
    system_prompt: str | None
    temperature: float | None
    max_tokens: int | None
    top_p: float | None
    stop: str | Sequence[str] | None
    seed: int | None
    presence_penalty: float | None
    frequency_penalty: float | None
    logit_bias: Mapping[str, float] | None
    user: str | None
    top_k: int | None
    logprobs: bool | None
    top_logprobs: int | None
    thinking: Thinking | None
    stream: bool | None
    auto_execute: bool | None
    model: str | None
    deps: Any
    native_tools: Sequence[Mapping[str, Any]] | None
    extra_body: Mapping[str, Any] | None
    extra_headers: Mapping[str, str] | None
    output_retries: int | None
    limits: SizeLimits | None
    telemetry: bool | None
    cache: Literal["auto", "extended", False] | None


class LangOptionsDict(CallOverrides, total=False):
    """Every ``LangOptions`` field, as keyword overrides or a plain options dict."""

    output_type: Any
