"""The spans and metrics of one run: ``invoke_agent``, ``chat {model}``, ``execute_tool {name}``.

``RunTelemetry.of`` gives a run its recorder, or None when the ``telemetry`` option is off or
the OpenTelemetry API is missing: the loop and the executor then check that one value and do
nothing more. The run's span is the current span while the run goes on, so the request spans
and the spans of the caller's own code nest under it; each tool call runs in its
``execute_tool`` span's context (a sync tool's worker thread gets a copy of it), so a tool's own
spans nest under its call. A run whose span is not recorded (no SDK configured, or sampled out)
makes no further spans, and records only the metrics.

Message content goes on the spans only when ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``
is ``true``; keys and headers never do.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from .._wire._telemetry import REQUEST, Otel, RequestSpan, error_type, fail, otel
from ._telemetry_attrs import (
    content_json,
    input_content,
    output_content,
    request_attributes,
)

if TYPE_CHECKING:
    from .._conversation._assembler import Assembler
    from .._conversation._messages import LangMessage
    from .._conversation._result import FunctionCall, LangResult
    from .._tools import Tool
    from ._contract import EventSink, Model, ProviderRequest
    from ._options import LangOptions

__all__ = ["RunTelemetry"]

CAPTURE_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
T = TypeVar("T")
_Send = Callable[["ProviderRequest", "EventSink"], Awaitable[None]]


class RunTelemetry:
    """Records one run: its span, a span per model request and per tool call, the metrics."""

    __slots__ = ("api", "capture", "context", "model", "provider", "spans")

    def __init__(self, api: Otel, provider: str, model: str, *, capture: bool) -> None:
        self.api = api
        self.provider = provider
        self.model = model
        self.capture = capture
        self.context: Any = None  # the run span's context, parent of the call spans
        self.spans = True  # False once the run span turns out not to be recorded

    @classmethod
    def of(cls, options: LangOptions, model: Model, model_id: str) -> RunTelemetry | None:
        """The recorder of a run of ``model_id`` on ``model`` with ``options``; None when
        nothing is to be recorded."""
        if not options.telemetry:
            return None
        api = otel()
        if api is None:
            return None
        capture = os.environ.get(CAPTURE_ENV, "").strip().lower() == "true"
        # The conventions' spelling of the provider, where the model knows it (HTTP models).
        provider = getattr(model, "genai_name", model.name)
        return cls(api, provider, model_id, capture=capture)

    @contextmanager
    def run(self, result: LangResult) -> Iterator[None]:
        """The run's ``invoke_agent`` span, current while the block runs."""
        api = self.api
        attributes = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.provider.name": self.provider,
            "gen_ai.request.model": self.model,
        }
        span = api.tracer.start_span("invoke_agent", attributes=attributes)
        # Not recorded (no SDK, or sampled out): no context to make current, no further span.
        self.spans = span.is_recording()
        token = None
        if self.spans:
            self.context = api.trace.set_span_in_context(span)
            token = api.context.attach(self.context)
        try:
            yield
        except BaseException as exc:
            fail(api, span, exc)
            raise
        finally:
            if token is not None:
                api.context.detach(token)
            usage = result.usage
            span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
            span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
            span.end()

    async def send(
        self, send: _Send, request: ProviderRequest, sink: EventSink, turn: Assembler
    ) -> LangMessage:
        """Send one model request and finish its turn in a ``chat {model}`` span; record its
        metrics. Returns the turn's message (``turn.finish()``, called here once)."""
        api, started = self.api, time.perf_counter()
        held = RequestSpan(self._request_span(request) if self.spans else None)
        token = None
        if held.span is not None:
            token = api.context.attach(api.trace.set_span_in_context(held.span))
        mark = REQUEST.set(held)  # the transport notes the server here, for the metrics too
        failure = None
        try:
            await send(request, sink)
            message = turn.finish()
        except BaseException as exc:
            failure = error_type(exc)
            if held.span is not None:
                fail(api, held.span, exc, failure)
            raise
        finally:
            REQUEST.reset(mark)
            if token is not None:
                api.context.detach(token)
            self._measure(held, request, turn, failure, time.perf_counter() - started)
            if held.span is not None:
                if failure is None:
                    self._answered(held.span, turn, message)
                held.span.end()
        return message

    def _request_span(self, request: ProviderRequest) -> Any:
        attributes = request_attributes(self.provider, request)
        if self.capture:
            attributes.update(input_content(request.messages))
        kind = self.api.trace.SpanKind.CLIENT
        return self.api.tracer.start_span(f"chat {request.model}", kind=kind, attributes=attributes)

    def _answered(self, span: Any, turn: Assembler, message: LangMessage) -> None:
        reason = turn.raw_finish_reason or turn.finish_reason or "stop"
        span.set_attribute("gen_ai.response.finish_reasons", [reason])
        if turn.model:
            span.set_attribute("gen_ai.response.model", turn.model)
        if turn.response_id:
            span.set_attribute("gen_ai.response.id", turn.response_id)
        span.set_attribute("gen_ai.usage.input_tokens", turn.usage.input_tokens)
        span.set_attribute("gen_ai.usage.output_tokens", turn.usage.output_tokens)
        if self.capture:
            span.set_attribute("gen_ai.output.messages", output_content(message, reason))

    def _measure(
        self,
        held: RequestSpan,
        request: ProviderRequest,
        turn: Assembler,
        failure: str | None,
        seconds: float,
    ) -> None:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": self.provider,
            "gen_ai.request.model": request.model,
        }
        if held.address:
            attributes["server.address"], attributes["server.port"] = held.address, held.port
        if turn.model:
            attributes["gen_ai.response.model"] = turn.model
        if failure is not None:
            self.api.duration.record(seconds, {**attributes, "error.type": failure})
            return
        self.api.duration.record(seconds, attributes)
        tokens = self.api.tokens
        tokens.record(turn.usage.input_tokens, {**attributes, "gen_ai.token.type": "input"})
        tokens.record(turn.usage.output_tokens, {**attributes, "gen_ai.token.type": "output"})

    async def tool(self, call: FunctionCall, tool: Tool | None, running: Awaitable[T]) -> T:
        """Await ``running``, a call's execution, in the call's ``execute_tool`` span."""
        if not self.spans:
            return await running
        api = self.api
        attributes = _tool_attributes(call, tool)
        span = api.tracer.start_span(
            f"execute_tool {call.name}", context=self.context, attributes=attributes
        )
        if self.capture:
            span.set_attribute("gen_ai.tool.call.arguments", content_json(call.arguments))
        token = api.context.attach(api.trace.set_span_in_context(span))
        mark = REQUEST.set(None)  # an early call starts while its turn's request is sent
        try:
            outcome = await running
            if self.capture:
                span.set_attribute("gen_ai.tool.call.result", getattr(outcome, "content", ""))
            return outcome
        except BaseException as exc:
            fail(api, span, exc, getattr(exc, "error_type", None), described=True)
            raise
        finally:
            REQUEST.reset(mark)
            api.context.detach(token)
            span.end()


def _tool_attributes(call: FunctionCall, tool: Tool | None) -> dict[str, Any]:
    # An MCP server's tool runs elsewhere, on the agent's behalf: an "extension".
    kind = "extension" if hasattr(tool, "remote_name") else "function"
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.id,
        "gen_ai.tool.type": kind,
    }
    if tool is not None and tool.description:
        attributes["gen_ai.tool.description"] = tool.description
    return attributes
