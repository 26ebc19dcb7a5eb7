"""OpenTelemetry of a run on the scripted model: the span tree, attributes, errors, metrics."""

from __future__ import annotations

import json
import threading
from typing import Any

import anyio
import pytest
from opentelemetry.trace import SpanKind, StatusCode

from aiwrapper import Lang, tool

from .otel_support import Recorded, attributes, recorded

pytestmark = pytest.mark.anyio
__all__ = ["recorded"]  # the fixture, used by name

TWO_CALLS = {
    "function_calls": [
        {"name": "get_weather", "arguments": {"city": "Oslo"}, "id": "c0"},
        {"name": "get_weather", "arguments": {"city": "Rome"}, "id": "c1"},
    ]
}


@tool
def get_weather(city: str) -> dict[str, Any]:
    """Weather in a city."""
    return {"city": city, "temp": len(city)}


def script() -> Lang:
    return Lang.scripted([TWO_CALLS, "Sunny in both."])


async def test_a_two_round_two_call_run_is_one_span_tree_under_the_callers_span(
    recorded: Recorded,
) -> None:
    tracer = recorded.tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("handler"):
        result = await script().ask("Weather?", functions=[get_weather])
    assert result.answer == "Sunny in both."
    assert recorded.tree() == [
        ("handler", None),
        ("invoke_agent", "handler"),
        ("chat scripted", "invoke_agent"),
        ("execute_tool get_weather", "invoke_agent"),
        ("execute_tool get_weather", "invoke_agent"),
        ("chat scripted", "invoke_agent"),
    ]
    run, first, _, _, second = recorded.spans()[1:]
    oslo, rome = recorded.named("execute_tool get_weather")
    assert run.kind == SpanKind.INTERNAL
    assert first.kind == SpanKind.CLIENT
    assert attributes(run) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted",
        "gen_ai.usage.input_tokens": 0,
        "gen_ai.usage.output_tokens": 3,  # the scripted model counts 4 characters a token
    }
    assert attributes(first) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted",
        "gen_ai.response.finish_reasons": ["tool_calls"],
        "gen_ai.usage.input_tokens": 0,
        "gen_ai.usage.output_tokens": 0,
    }
    assert attributes(second)["gen_ai.response.finish_reasons"] == ["stop"]
    assert [attributes(s) for s in (oslo, rome)] == [
        {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": call_id,
            "gen_ai.tool.type": "function",
            "gen_ai.tool.description": "Weather in a city.",
        }
        for call_id in ("c0", "c1")
    ]
    assert all(s.status.status_code == StatusCode.UNSET for s in recorded.spans())


async def test_sampling_options_are_request_attributes(recorded: Recorded) -> None:
    lang = Lang.scripted(["ok"])
    await lang.ask("Hi", temperature=0.5, top_p=0.9, max_tokens=100, stop="END", model="m-2")
    (chat,) = recorded.named("chat m-2")
    assert attributes(chat, skip=["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"]) == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "m-2",
        "gen_ai.request.temperature": 0.5,
        "gen_ai.request.top_p": 0.9,
        "gen_ai.request.max_tokens": 100,
        "gen_ai.request.stop_sequences": ["END"],
        "gen_ai.response.finish_reasons": ["stop"],
    }


async def test_a_tool_error_marks_its_span_and_the_run_goes_on(recorded: Recorded) -> None:
    @tool
    def get_weather(city: str) -> str:
        """Weather in a city."""
        raise ValueError(f"no station in {city}")

    result = await script().ask("Weather?", functions=[get_weather])
    assert result.answer == "Sunny in both."
    failed = recorded.named("execute_tool get_weather")
    assert [s.status.status_code for s in failed] == [StatusCode.ERROR, StatusCode.ERROR]
    assert [s.status.description for s in failed] == ["no station in Oslo", "no station in Rome"]
    assert [s.attributes["error.type"] for s in failed] == ["ValueError", "ValueError"]
    assert [e.name for e in failed[0].events] == ["exception"]
    (run,) = recorded.named("invoke_agent")
    assert run.status.status_code == StatusCode.UNSET


async def test_an_unknown_function_is_an_execute_tool_span_with_its_error_type(
    recorded: Recorded,
) -> None:
    lang = Lang.scripted([{"function_calls": [{"name": "nope", "arguments": {}}]}, "ok"])
    await lang.ask("Hi", functions=[get_weather])
    (span,) = recorded.named("execute_tool nope")
    assert span.attributes["error.type"] == "UnknownFunction"
    assert span.status.status_code == StatusCode.ERROR


async def test_cancelling_a_run_ends_every_open_span_as_cancelled(recorded: Recorded) -> None:
    started = anyio.Event()

    @tool
    async def get_weather(city: str) -> str:
        """Weather in a city."""
        started.set()
        await anyio.sleep_forever()
        return ""  # pragma: no cover

    async with anyio.create_task_group() as group:
        group.start_soon(script().ask, "Weather?", {"functions": [get_weather]})
        await started.wait()
        group.cancel_scope.cancel()
    assert [name for name, _ in recorded.tree()] == [
        "invoke_agent",
        "chat scripted",
        "execute_tool get_weather",
        "execute_tool get_weather",
    ]
    (run, _, *calls) = recorded.spans()
    for span in (run, *calls):
        assert span.attributes["error.type"] == "cancelled"
        assert span.status.status_code == StatusCode.ERROR
        assert span.end_time is not None


async def test_leaving_a_stream_early_ends_its_spans(recorded: Recorded) -> None:
    started = anyio.Event()

    @tool
    async def get_weather(city: str) -> str:
        """Weather in a city."""
        started.set()
        await anyio.sleep_forever()
        return ""  # pragma: no cover

    async with script().stream("Weather?", functions=[get_weather]) as run:
        await started.wait()  # the run is inside a call when the block is left
    (agent,) = recorded.named("invoke_agent")
    assert agent.attributes["error.type"] == "cancelled"
    calls = recorded.named("execute_tool get_weather")
    assert [s.attributes["error.type"] for s in calls] == ["cancelled", "cancelled"]
    assert run.result.finished is False


async def test_a_streamed_run_ends_its_span_when_the_stream_ends(recorded: Recorded) -> None:
    async with script().stream("Weather?", functions=[get_weather]) as run:
        async for _ in run:
            pass
    assert [name for name, _ in recorded.tree()] == [
        "invoke_agent",
        "chat scripted",
        "execute_tool get_weather",
        "execute_tool get_weather",
        "chat scripted",
    ]
    assert recorded.named("invoke_agent")[0].status.status_code == StatusCode.UNSET


@pytest.mark.parametrize("where", ["call", "lang"])
async def test_telemetry_false_records_nothing(recorded: Recorded, where: str) -> None:
    if where == "lang":
        lang = Lang.scripted([TWO_CALLS, "ok"], options={"telemetry": False})
        await lang.ask("Weather?", functions=[get_weather])
    else:
        await script().ask("Weather?", functions=[get_weather], telemetry=False)
    assert recorded.spans() == []
    assert recorded.points("gen_ai.client.operation.duration") == []


async def test_telemetry_false_adds_no_event_to_the_callers_span(recorded: Recorded) -> None:
    tracer = recorded.tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("handler"):
        await script().ask("Weather?", functions=[get_weather], telemetry=False)
    (handler,) = recorded.spans()
    assert handler.events == ()
    assert dict(handler.attributes or {}) == {}


@pytest.mark.parametrize("kind", ["sync", "async"])
async def test_a_tools_own_span_nests_under_its_execute_tool_span(
    recorded: Recorded, kind: str
) -> None:
    tracer = recorded.tracer_provider.get_tracer("test")
    threads: list[int] = []

    def lookup(city: str) -> str:
        threads.append(threading.get_ident())
        with tracer.start_as_current_span(f"lookup {city}"):
            return "sunny"

    async def lookup_async(city: str) -> str:
        return lookup(city)

    function = lookup if kind == "sync" else lookup_async
    await script().ask("Weather?", functions=[tool(function, name="get_weather")])
    spans = recorded.spans()
    by_id = {s.context.span_id: s for s in spans}
    for city, call_id in (("Oslo", "c0"), ("Rome", "c1")):
        (own,) = recorded.named(f"lookup {city}")
        parent = by_id[own.parent.span_id]  # type: ignore[union-attr]
        assert parent.name == "execute_tool get_weather"
        assert parent.attributes["gen_ai.tool.call.id"] == call_id
    on_loop = threading.get_ident()
    assert all((t != on_loop) == (kind == "sync") for t in threads)  # sync tools: a worker


async def test_early_started_calls_nest_under_the_run_not_the_request(
    recorded: Recorded,
) -> None:
    await script().ask("Weather?", functions=[get_weather], early_start=True)
    assert [parent for name, parent in recorded.tree() if name.startswith("execute")] == [
        "invoke_agent",
        "invoke_agent",
    ]


async def test_the_metrics_count_tokens_and_time_each_request(recorded: Recorded) -> None:
    await script().ask("Weather?", functions=[get_weather])
    base = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "scripted",
        "gen_ai.request.model": "scripted",
    }
    assert [(a, n, s) for a, n, s in recorded.points("gen_ai.client.token.usage")] == [
        ({**base, "gen_ai.token.type": "input"}, 2, 0),
        ({**base, "gen_ai.token.type": "output"}, 2, 3),
    ]
    ((timed, count, seconds),) = recorded.points("gen_ai.client.operation.duration")
    assert (timed, count) == (base, 2)
    assert 0 < seconds < 5


async def test_content_is_recorded_only_when_asked(
    recorded: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    await script().ask("Weather?", functions=[get_weather], system_prompt="Be brief.")
    keys = {key for span in recorded.spans() for key in span.attributes or {}}
    assert not {k for k in keys if "messages" in k or "instructions" in k or "call.a" in k}
    recorded.exporter.clear()
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    await script().ask("Weather?", functions=[get_weather], system_prompt="Be brief.")
    first, _, _, second = recorded.spans()[1:]
    oslo, _ = recorded.named("execute_tool get_weather")
    assert json.loads(first.attributes["gen_ai.system_instructions"]) == [
        {"type": "text", "content": "Be brief."}
    ]
    assert json.loads(first.attributes["gen_ai.input.messages"]) == [
        {"role": "user", "parts": [{"type": "text", "content": "Weather?"}]}
    ]
    assert json.loads(first.attributes["gen_ai.output.messages"]) == [
        {
            "role": "assistant",
            "parts": [
                {
                    "type": "tool_call",
                    "id": "c0",
                    "name": "get_weather",
                    "arguments": {"city": "Oslo"},
                },
                {
                    "type": "tool_call",
                    "id": "c1",
                    "name": "get_weather",
                    "arguments": {"city": "Rome"},
                },
            ],
            "finish_reason": "tool_calls",
        }
    ]
    assert oslo.attributes["gen_ai.tool.call.arguments"] == '{"city": "Oslo"}'
    assert oslo.attributes["gen_ai.tool.call.result"] == '{"city":"Oslo","temp":4}'
    sent = json.loads(second.attributes["gen_ai.input.messages"])
    assert sent[-1] == {
        "role": "tool",
        "parts": [
            {"type": "tool_call_response", "id": "c1", "response": '{"city":"Rome","temp":4}'}
        ],
    }


def test_a_blocking_call_nests_under_the_callers_span_too(recorded: Recorded) -> None:
    tracer = recorded.tracer_provider.get_tracer("test")
    lang = script()
    try:
        with tracer.start_as_current_span("handler"):
            result = lang.ask_sync("Weather?", functions=[get_weather])
            events = list(Lang.scripted(["Hi"]).stream_sync("Hi"))
    finally:
        lang.close()
    assert result.answer == "Sunny in both."
    assert events
    runs = recorded.named("invoke_agent")
    assert [parent for name, parent in recorded.tree() if name == "invoke_agent"] == [
        "handler",
        "handler",
    ]
    assert len(runs) == 2


def test_a_provider_named_in_the_environment_counts_as_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from aiwrapper._wire import _telemetry

    api = _telemetry._load(None, None)
    assert api is not None
    if not _telemetry._unset(api):  # a global provider set by another test: nothing to tell
        pytest.skip("a global provider is set in this process")
    monkeypatch.setenv("OTEL_PYTHON_TRACER_PROVIDER", "sdk_tracer_provider")
    assert not _telemetry._unset(api)
    monkeypatch.delenv("OTEL_PYTHON_TRACER_PROVIDER")
    assert _telemetry._unset(api)
