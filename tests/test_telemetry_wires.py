"""OpenTelemetry of runs over HTTP on each wire: attributes from the wire, errors, retries,
the server, ``traceparent`` upstream, and no key in any span."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.trace import StatusCode

from aiwrapper import AuthenticationError, BadRequestError, Lang

from .otel_support import Recorded, attributes, recorded
from .test_providers_e2e import CASES, get_time, get_weather, recording_client

pytestmark = pytest.mark.anyio
__all__ = ["recorded"]  # the fixture, used by name

# Per wire: the model asked, the first request's span attributes after those every span has.
FIRST_REQUEST = {
    "anthropic": (
        "claude-sonnet-4-5",
        {
            "server.address": "api.anthropic.com",
            "server.port": 443,
            "gen_ai.response.finish_reasons": ["tool_use"],
            "gen_ai.response.model": "claude-sonnet-4-5-20250929",
            "gen_ai.response.id": "msg_01ParB2",
            "gen_ai.usage.input_tokens": 410,
            "gen_ai.usage.output_tokens": 96,
        },
    ),
    "gemini": (
        "gemini-2.5-flash",
        {
            "server.address": "generativelanguage.googleapis.com",
            "server.port": 443,
            "gen_ai.response.finish_reasons": ["STOP"],
            "gen_ai.response.model": "gemini-2.0-flash",
            "gen_ai.response.id": "r-calls-2",
            "gen_ai.usage.input_tokens": 70,
            "gen_ai.usage.output_tokens": 22,
        },
    ),
    "ollama": (
        "qwen3",
        {
            "server.address": "localhost",
            "server.port": 11434,
            "gen_ai.response.finish_reasons": ["stop"],
            "gen_ai.response.model": "qwen3",
            "gen_ai.usage.input_tokens": 169,
            "gen_ai.usage.output_tokens": 38,
        },
    ),
    "openai": (
        "gpt-4o-mini",
        {
            "server.address": "api.openai.com",
            "server.port": 443,
            "gen_ai.response.finish_reasons": ["tool_calls"],
            "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
            "gen_ai.response.id": "chatcmpl-Bx7a1",
            "gen_ai.usage.input_tokens": 0,  # this recording reports its usage on no chunk
            "gen_ai.usage.output_tokens": 0,
        },
    ),
}
PROVIDER = {
    "anthropic": "anthropic",
    "gemini": "gcp.gemini",
    "ollama": "ollama",
    "openai": "openai",
}


@pytest.mark.parametrize("name", sorted(CASES))
async def test_a_streamed_two_round_run_on_each_wire(recorded: Recorded, name: str) -> None:
    case, (model, first_attributes) = CASES[name], FIRST_REQUEST[name]
    sent: list[dict[str, Any]] = []
    async with recording_client(case, sent) as client:
        await case.make(client).ask("Weather?", functions=[get_weather, get_time])
    tree = recorded.tree()
    assert tree[:2] == [("invoke_agent", None), (f"chat {model}", "invoke_agent")]
    assert sorted(tree[2:4]) == sorted(
        (f"execute_tool {call}", "invoke_agent") for call in _called(recorded)
    )
    assert tree[4:] == [(f"chat {model}", "invoke_agent")]
    first = recorded.spans()[1]
    common = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": PROVIDER[name],
        "gen_ai.request.model": model,
    }
    assert attributes(first) == {**common, **first_attributes}
    assert len(sent) == 2


def _called(recorded: Recorded) -> list[str]:
    return [str(s.attributes["gen_ai.tool.name"]) for s in recorded.spans()[2:4]]


OPENAI_BODIES = [
    {
        "id": "chatcmpl-W1",
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": json.dumps(args)},
                        }
                        for i, args in enumerate([{"city": "Oslo"}, {"city": "Rome"}])
                    ],
                },
                "finish_reason": "tool_calls",
            }
        ],
        "usage": {"prompt_tokens": 20, "completion_tokens": 10},
    },
    {
        "id": "chatcmpl-W2",
        "model": "gpt-4o-2024-08-06",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": "Sunny."},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 40, "completion_tokens": 2},
    },
]
ANTHROPIC_BODIES = [
    {
        "id": "msg_W1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [
            {"type": "tool_use", "id": f"toolu_{i}", "name": "get_weather", "input": {"city": c}}
            for i, c in enumerate(["Oslo", "Rome"])
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 20, "output_tokens": 10},
    },
    {
        "id": "msg_W2",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "text", "text": "Sunny."}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 40, "output_tokens": 2},
    },
]


def replying(bodies: list[Any], seen: list[httpx.Request]) -> httpx.AsyncClient:
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        body = bodies[len(seen) - 1]
        if isinstance(body, httpx.Response):
            return body
        return httpx.Response(200, json=body)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


@pytest.mark.parametrize(
    ("wire", "bodies", "reasons", "ids", "model"),
    [
        ("openai", OPENAI_BODIES, ["tool_calls", "stop"], ["chatcmpl-W1", "chatcmpl-W2"], "gpt-4o"),
        (
            "anthropic",
            ANTHROPIC_BODIES,
            ["tool_use", "end_turn"],
            ["msg_W1", "msg_W2"],
            "claude-sonnet-4-5",
        ),
    ],
)
async def test_a_two_round_run_not_streamed(
    recorded: Recorded, wire: str, bodies: list[Any], reasons: list[str], ids: list[str], model: str
) -> None:
    seen: list[httpx.Request] = []
    async with replying(bodies, seen) as client:
        lang = getattr(Lang, wire)(model, api_key="k", http_client=client)
        result = await lang.ask("Weather?", functions=[get_weather], stream=False)
    assert result.answer == "Sunny."
    assert [name for name, _ in recorded.tree()] == [
        "invoke_agent",
        f"chat {model}",
        "execute_tool get_weather",
        "execute_tool get_weather",
        f"chat {model}",
    ]
    chats = recorded.named(f"chat {model}")
    assert [s.attributes["gen_ai.response.finish_reasons"] for s in chats] == [
        (r,) for r in reasons
    ]
    assert [s.attributes["gen_ai.response.id"] for s in chats] == ids
    assert [s.attributes["gen_ai.usage.input_tokens"] for s in chats] == [20, 40]
    assert [s.attributes["gen_ai.usage.output_tokens"] for s in chats] == [10, 2]
    (run,) = recorded.named("invoke_agent")
    assert run.attributes["gen_ai.usage.input_tokens"] == 60
    assert run.attributes["gen_ai.usage.output_tokens"] == 12


async def test_an_upstream_error_fails_the_request_and_the_run(recorded: Recorded) -> None:
    refused = httpx.Response(400, json={"error": {"message": "bad", "type": "invalid_request"}})
    async with replying([refused], []) as client:
        lang = Lang.openai("gpt-4o", api_key="k", http_client=client)
        with pytest.raises(BadRequestError):
            await lang.ask("Hi")
    run, chat = recorded.spans()
    for span in (run, chat):
        assert span.status.status_code == StatusCode.ERROR
        assert span.attributes["error.type"] == "BadRequestError"
    assert "gen_ai.response.finish_reasons" not in chat.attributes
    ((timed, count, _),) = recorded.points("gen_ai.client.operation.duration")
    assert timed == {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "server.address": "api.openai.com",
        "server.port": 443,
        "error.type": "BadRequestError",
    }
    assert count == 1
    assert recorded.points("gen_ai.client.token.usage") == []


async def test_a_key_quoted_by_an_error_body_reaches_no_span(recorded: Recorded) -> None:
    quoted = "Incorrect API key provided: sk-live-SUPERSECRET1234. Find yours at ..."
    refused = httpx.Response(401, json={"error": {"message": quoted, "type": "invalid_key"}})
    async with replying([refused], []) as client:
        lang = Lang.openai("gpt-4o", api_key="sk-live-SUPERSECRET1234", http_client=client)
        with pytest.raises(AuthenticationError):
            await lang.ask("Hi")
    run, chat = recorded.spans()
    for span in (run, chat):
        assert span.status.description == "AuthenticationError"
        assert [e.attributes for e in span.events if e.name == "exception"] == [
            {"exception.type": "aiwrapper._errors.AuthenticationError"}
        ]
        assert "SUPERSECRET" not in repr(span.to_json())


async def test_each_retry_is_an_event_on_the_request_span(recorded: Recorded) -> None:
    busy = httpx.Response(503, headers={"retry-after-ms": "1"}, json={"error": {"message": "x"}})
    seen: list[httpx.Request] = []
    async with replying([busy, busy, OPENAI_BODIES[1]], seen) as client:
        lang = Lang.openai("gpt-4o", api_key="k", http_client=client, max_retries=2)
        result = await lang.ask("Hi", stream=False)
    assert result.answer == "Sunny."
    (chat,) = recorded.named("chat gpt-4o")
    assert [(e.name, dict(e.attributes or {})) for e in chat.events] == [
        (
            "aiwrapper.retry",
            {"http.request.resend_count": n, "error.type": "503", "aiwrapper.retry.delay": 0.001},
        )
        for n in (1, 2)
    ]
    assert chat.status.status_code == StatusCode.UNSET


async def test_the_request_carries_its_span_upstream_as_traceparent(recorded: Recorded) -> None:
    seen: list[httpx.Request] = []
    async with replying([OPENAI_BODIES[1], OPENAI_BODIES[1]], seen) as client:
        lang = Lang.openai("gpt-4o", api_key="k", http_client=client)
        await lang.ask("Hi", stream=False)
        await lang.ask("Hi", stream=False, telemetry=False)
    (chat,) = recorded.named("chat gpt-4o")
    context = chat.context
    flags = int(context.trace_flags)
    assert seen[0].headers["traceparent"] == (
        f"00-{context.trace_id:032x}-{context.span_id:016x}-{flags:02x}"
    )
    assert "traceparent" not in seen[1].headers


async def test_the_server_is_named_by_host_and_port_and_no_key_reaches_a_span(
    recorded: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    secret = "sk-very-secret-key"
    async with replying([OPENAI_BODIES[1]], []) as client:
        lang = Lang.openai(
            "gpt-4o",
            api_key=secret,
            base_url="https://gateway.example.com:8443/v1",
            http_client=client,
        )
        await lang.ask("Hi", stream=False, extra_headers={"x-team-token": "team-secret"})
    (chat,) = recorded.named("chat gpt-4o")
    assert chat.attributes["server.address"] == "gateway.example.com"
    assert chat.attributes["server.port"] == 8443
    recorded_text = json.dumps(
        [dict(s.attributes or {}) for s in recorded.spans()], default=str
    ) + json.dumps([dict(e.attributes or {}) for s in recorded.spans() for e in s.events])
    assert "Hi" in recorded_text  # content was captured ...
    assert secret not in recorded_text  # ... and still no key or header
    assert "team-secret" not in recorded_text


async def test_a_recorded_turn_cut_at_the_token_limit_still_says_so_to_the_model(
    recorded: Recorded,
) -> None:
    cut = {
        "id": "chatcmpl-L1",
        "model": "gpt-4o",
        "choices": [
            {
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": "call_cut",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": '{"city": "Os'},
                        }
                    ],
                },
                "finish_reason": "length",
            }
        ],
    }
    async with replying([cut, OPENAI_BODIES[1]], []) as client:
        lang = Lang.openai("gpt-4o", api_key="k", http_client=client)
        result = await lang.ask("Weather?", functions=[get_weather], stream=False)
    (answer,) = [m for m in result.messages if m.role == "tool"]
    assert "Your output reached the token limit" in answer.content
    first = recorded.named("chat gpt-4o")[0]
    assert first.attributes["gen_ai.response.finish_reasons"] == ("length",)


FIXTURES = Path(__file__).parent / "fixtures" / "openai_responses"


@pytest.mark.parametrize(
    ("fixture", "stream", "response_id"),
    [
        ("text.sse", True, "resp_68f3a1d0aa"),
        ("reasoning_calls.json", False, "resp_68f3a1c2e4b0819a"),
    ],
)
async def test_the_responses_api_names_its_response(
    recorded: Recorded, fixture: str, stream: bool, response_id: str
) -> None:
    kind = "text/event-stream" if stream else "application/json"
    answer = httpx.Response(
        200, content=(FIXTURES / fixture).read_bytes(), headers={"content-type": kind}
    )
    async with replying([answer], []) as client:
        lang = Lang.openai("o3", api="responses", api_key="k", http_client=client)
        await lang.ask("Weather?", functions=[get_weather], stream=stream, auto_execute=False)
    (chat,) = recorded.named("chat o3")
    assert chat.attributes["gen_ai.provider.name"] == "openai"
    assert chat.attributes["gen_ai.response.id"] == response_id
    assert chat.attributes["gen_ai.response.model"] == "o3-2025-04-16"


async def test_metrics_alone_still_name_the_server(recorded: Recorded) -> None:
    from aiwrapper._wire import _telemetry

    meter_provider = MeterProvider(metric_readers=[reader := InMemoryMetricReader()])
    _telemetry.use_providers(None, meter_provider)  # no tracing SDK: the spans are no-ops
    seen: list[httpx.Request] = []
    async with replying([OPENAI_BODIES[1]], seen) as client:
        lang = Lang.openai("gpt-4o", api_key="k", http_client=client)
        await lang.ask("Hi", stream=False)
    metrics = Recorded(recorded.exporter, reader, recorded.tracer_provider)
    ((timed, _, _),) = metrics.points("gen_ai.client.operation.duration")
    assert timed["server.address"] == "api.openai.com"
    assert timed["server.port"] == 443
    assert timed["gen_ai.response.model"] == "gpt-4o-2024-08-06"
    assert recorded.spans() == []
    assert "traceparent" not in seen[0].headers
    meter_provider.shutdown()
