"""Amazon Bedrock's Converse wire: exact bodies, SigV4 as botocore signs, events, errors, a loop."""

from __future__ import annotations

import hashlib
import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import botocore.auth
import httpx
import pytest
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from aiwrapper import (
    AuthenticationError,
    BadRequestError,
    ConfigError,
    Lang,
    LangOptions,
    OverloadedError,
    PermissionDeniedError,
    RateLimitError,
    StreamError,
    tool,
)
from aiwrapper._conversation._events import (
    FinishEvent,
    PartStateEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    UsageEvent,
)
from aiwrapper._conversation._messages import LangMessage
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper._wire._eventstream import EventStreamDecoder
from aiwrapper.providers.bedrock import AwsCredentials, BedrockProvider
from aiwrapper.providers.bedrock._decode import BedrockStreamDecoder, decode_converse
from aiwrapper.providers.bedrock._sigv4 import sign

from .eventstream import event, exception

FIXTURES = Path(__file__).parent.parent / "fixtures" / "bedrock"
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
CACHE_POINT = {"cachePoint": {"type": "default"}}
KEYS = AwsCredentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "session-tok")


@tool
def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: The city's name.
    """
    return f"Sunny in {city}"


def request(stream: bool = True, **options: Any) -> ProviderRequest:
    messages = [LangMessage.text("system", "Be brief."), LangMessage.text("user", "Weather?")]
    return ProviderRequest(MODEL, messages, [get_weather], merge_options(options), stream=stream)


def provider(**kwargs: Any) -> BedrockProvider:
    return BedrockProvider(region="us-west-2", api_key="bedrock-key", **kwargs)


def test_the_request_has_the_converse_url_and_exact_body() -> None:
    call = provider().encode(request(max_tokens=300, temperature=0.2, stop=["END"]))
    assert call.url == (
        "https://bedrock-runtime.us-west-2.amazonaws.com/model/"
        "us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    )
    assert call.headers == {
        "content-type": "application/json",
        "Authorization": "Bearer bedrock-key",
    }
    assert json.loads(json.dumps(call.body)) == {
        "messages": [{"role": "user", "content": [{"text": "Weather?"}, CACHE_POINT]}],
        "system": [{"text": "Be brief."}, CACHE_POINT],
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": "get_weather",
                        "description": "Current weather for a city.",
                        "inputSchema": {
                            "json": {
                                "type": "object",
                                "properties": {
                                    "city": {"type": "string", "description": "The city's name."}
                                },
                                "required": ["city"],
                                "additionalProperties": False,
                            }
                        },
                    }
                },
                CACHE_POINT,
            ]
        },
        "inferenceConfig": {"maxTokens": 300, "temperature": 0.2, "stopSequences": ["END"]},
    }


def test_a_whole_answer_is_asked_of_converse() -> None:
    assert provider().encode(request(stream=False)).url.endswith("%3A0/converse")


@pytest.mark.parametrize(
    ("function_call", "choice"),
    [("required", {"any": {}}), ({"name": "get_weather"}, {"tool": {"name": "get_weather"}})],
)
def test_a_forced_call_is_a_tool_choice(function_call: object, choice: dict[str, Any]) -> None:
    body = provider().encode(request(function_call=function_call)).body
    assert body["toolConfig"]["toolChoice"] == choice


def test_no_tool_choice_none_exists_so_a_history_with_calls_refuses_it() -> None:
    first = provider().encode(request(function_call="none")).body
    assert "toolConfig" not in first  # no calls yet: simply no tools
    call = LangMessage.from_dict(
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        }
    )
    messages = [LangMessage.text("user", "Weather?"), call]
    with pytest.raises(ConfigError, match="no 'none' tool choice"):
        provider().encode(
            ProviderRequest(
                MODEL,
                messages,
                [get_weather],
                merge_options({"function_call": "none"}),
                stream=True,
            )
        )


def test_claude_thinking_goes_in_additional_model_request_fields() -> None:
    body = provider().encode(request(thinking=2048)).body
    assert body["additionalModelRequestFields"] == {
        "thinking": {"type": "enabled", "budget_tokens": 2048}
    }
    assert body["inferenceConfig"] == {"maxTokens": 2048 + 4096}


def test_thinking_on_a_model_that_is_not_claude_is_refused() -> None:
    nova = ProviderRequest(
        "amazon.nova-pro-v1:0",
        [LangMessage.text("user", "hi")],
        [],
        merge_options({"thinking": True}),
        stream=True,
    )
    with pytest.raises(ConfigError, match="Claude models only"):
        provider().encode(nova)


def test_the_sigv4_signature_is_the_one_botocore_computes(monkeypatch: pytest.MonkeyPatch) -> None:
    now = datetime(2026, 11, 27, 4, 5, 6, tzinfo=timezone.utc)
    host = "https://bedrock-runtime.us-west-2.amazonaws.com"
    url = f"{host}/model/{MODEL.replace(':', '%3A')}/converse"
    body = b'{"messages":[{"role":"user","content":[{"text":"Hi"}]}]}'
    ours = sign(url, body, KEYS, region="us-west-2", now=now)

    monkeypatch.setattr(botocore.auth, "get_current_datetime", lambda: now.replace(tzinfo=None))
    theirs = AWSRequest(
        method="POST",
        url=url,
        data=body,
        headers={"x-amz-content-sha256": ours["x-amz-content-sha256"]},
    )
    creds = Credentials(KEYS.access_key, KEYS.secret_key, KEYS.token)
    botocore.auth.SigV4Auth(creds, "bedrock", "us-west-2").add_auth(theirs)
    assert ours["Authorization"] == theirs.headers["Authorization"]
    assert ours["x-amz-date"] == theirs.headers["X-Amz-Date"] == "20261127T040506Z"
    assert ours["x-amz-security-token"] == "session-tok"


def stream_events(name: str) -> list[Any]:
    framer, decoder = EventStreamDecoder(), BedrockStreamDecoder()
    events: list[Any] = []
    for kind, data in framer.feed((FIXTURES / name).read_bytes()):
        events += decoder.feed(kind, data)
    return events + decoder.close()


def test_a_streamed_answer_with_reasoning_and_two_calls_becomes_events() -> None:
    events = stream_events("thinking_tool_use.bin")
    assert events == [
        ThinkingDelta("Two cities: ", new_part=True),
        ThinkingDelta("call twice."),
        PartStateEvent(events[2].state),
        ToolCallStart(1, "tooluse_oslo", "get_weather"),
        ToolCallDelta(1, '{"city": '),
        ToolCallDelta(1, '"Oslo"}'),
        ToolCallEnd(1),
        ToolCallStart(2, "tooluse_rome", "get_weather"),
        ToolCallDelta(2, '{"city": "Rome"}'),
        ToolCallEnd(2),
        FinishEvent("tool_calls", "tool_use"),
        events[-1],
    ]
    assert events[2].state.data == {"signature": "EqQBCkYIBxgCKkBzaWc="}
    usage = events[-1]
    assert isinstance(usage, UsageEvent)
    assert (usage.input_tokens, usage.output_tokens) == (65, 30)
    assert (usage.cached_input_tokens, usage.cache_write_tokens) == (20, 5)


def test_a_whole_answer_gives_the_same_calls_and_reasoning() -> None:
    body = json.loads((FIXTURES / "thinking_tool_use.json").read_text())
    events = decode_converse(body)
    assert [type(e).__name__ for e in events] == [
        "ThinkingDelta",
        "PartStateEvent",
        "ToolCallStart",
        "ToolCallEnd",
        "ToolCallStart",
        "ToolCallEnd",
        "UsageEvent",
        "FinishEvent",
    ]
    assert events[3] == ToolCallEnd(1, {"city": "Oslo"})


def test_an_exception_event_ends_the_stream_with_its_error() -> None:
    with pytest.raises(RateLimitError, match="Too many tokens"):
        stream_events("throttled.bin")


@pytest.mark.parametrize(
    ("payload", "match"),
    [
        (
            {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t", "name": 12345}}},
            "string name",
        ),
        ({"contentBlockIndex": "0", "start": {}}, "not an index"),
    ],
)
def test_a_malformed_start_is_a_stream_error(payload: dict[str, Any], match: str) -> None:
    with pytest.raises(StreamError, match=match):
        BedrockStreamDecoder().feed("contentBlockStart", json.dumps(payload))


def test_a_non_string_argument_fragment_is_a_stream_error() -> None:
    payload = {"contentBlockIndex": 1, "delta": {"toolUse": {"input": 5}}}
    with pytest.raises(StreamError, match="not a string"):
        BedrockStreamDecoder().feed("contentBlockDelta", json.dumps(payload))


@pytest.mark.parametrize(
    ("status", "kind", "error"),
    [
        (400, "ValidationException", BadRequestError),
        (429, "ThrottlingException", RateLimitError),
        (503, "ServiceUnavailableException", OverloadedError),
        (424, "ModelNotReadyException", OverloadedError),
        (403, "AccessDeniedException", PermissionDeniedError),
        (403, "UnrecognizedClientException", AuthenticationError),
    ],
)
def test_error_answers_map_by_their_kind(status: int, kind: str, error: type[Exception]) -> None:
    body = (FIXTURES / "validation.json").read_bytes()
    headers = {
        "x-amzn-ErrorType": f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/",
        "x-amzn-RequestId": "req-1",
    }
    raised = provider().error(status, body, headers)
    assert type(raised) is error
    assert str(raised).startswith(f"bedrock {status}: {kind}: The model returned")
    assert raised.request_id == "req-1"  # type: ignore[attr-defined]


def bedrock_server(sent: list[httpx.Request], answers: list[str]) -> httpx.AsyncClient:
    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        name = answers[len(sent) - 1]
        kind = "application/vnd.amazon.eventstream" if name.endswith(".bin") else "application/json"
        return httpx.Response(
            200, content=(FIXTURES / name).read_bytes(), headers={"content-type": kind}
        )

    return httpx.AsyncClient(transport=httpx.MockTransport(answer))


@pytest.mark.anyio
@pytest.mark.parametrize("stream", [True, False])
async def test_a_tool_loop_replays_the_signed_reasoning(stream: bool) -> None:
    sent: list[httpx.Request] = []
    ext = "bin" if stream else "json"
    client = bedrock_server(sent, [f"thinking_tool_use.{ext}", f"text.{ext}"])
    lang = Lang.bedrock(
        MODEL, region="us-west-2", api_key="bedrock-key", http_client=client, max_retries=0
    )
    result = await lang.ask(
        "Weather?", options=LangOptions(functions=[get_weather], stream=stream, thinking=2048)
    )
    assert result.answer == "Sunny in Oslo."
    second = json.loads(sent[1].content)
    assert second["messages"][1] == {
        "role": "assistant",
        "content": [
            {
                "reasoningContent": {
                    "reasoningText": {
                        "text": "Two cities: call twice.",
                        "signature": "EqQBCkYIBxgCKkBzaWc=",
                    }
                }
            },
            {
                "toolUse": {
                    "toolUseId": "tooluse_oslo",
                    "name": "get_weather",
                    "input": {"city": "Oslo"},
                }
            },
            {
                "toolUse": {
                    "toolUseId": "tooluse_rome",
                    "name": "get_weather",
                    "input": {"city": "Rome"},
                }
            },
        ],
    }
    assert second["messages"][2] == {
        "role": "user",
        "content": [
            {"toolResult": {"toolUseId": "tooluse_oslo", "content": [{"text": "Sunny in Oslo"}]}},
            {"toolResult": {"toolUseId": "tooluse_rome", "content": [{"text": "Sunny in Rome"}]}},
            CACHE_POINT,  # the newest results: the next round reads this round from the cache
        ],
    }
    assert result.usage.cached_input_tokens == 20


@pytest.mark.anyio
async def test_requests_are_sigv4_signed_without_an_api_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    sent: list[httpx.Request] = []
    client = bedrock_server(sent, ["text.json"])
    lang = Lang.bedrock(
        MODEL, region="us-west-2", credentials=KEYS, http_client=client, max_retries=0
    )
    await lang.ask("Weather?", stream=False)
    headers = sent[0].headers
    assert headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/")
    assert (
        "/us-west-2/bedrock/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date;"
        "x-amz-security-token, Signature=" in headers["authorization"]
    )
    assert headers["x-amz-content-sha256"] == hashlib.sha256(sent[0].content).hexdigest()


def test_the_credential_chain_without_botocore_is_a_config_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    monkeypatch.setitem(sys.modules, "botocore", None)
    with pytest.raises(ConfigError, match=r"aiwrapper\[bedrock\]"):
        BedrockProvider(region="us-west-2")


def test_a_region_is_required(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match="needs a region"):
        Lang.bedrock(MODEL, api_key="k")


def test_an_exception_frame_mid_stream_is_raised_after_the_text() -> None:
    data = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hi"}})
    data += exception("validationException", "bad input")
    framer, decoder = EventStreamDecoder(), BedrockStreamDecoder()
    frames = framer.feed(data)
    assert decoder.feed(*frames[0]) == [TextDelta("Hi", new_part=True)]
    with pytest.raises(BadRequestError, match="bad input"):
        decoder.feed(*frames[1])


def test_a_bedrock_route_reads_its_region_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    from aiwrapper.providers._registry import build_for_route

    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "route-key")
    model = build_for_route("bedrock", MODEL)
    assert model.provider.base_url == "https://bedrock-runtime.eu-central-1.amazonaws.com"  # type: ignore[attr-defined]
    assert model.provider.api_key == "route-key"  # type: ignore[attr-defined]


def test_an_openai_client_runs_a_tool_round_through_the_gateway_on_bedrock() -> None:
    import openai

    from aiwrapper.gateway import Gateway

    from ..gateway.harness import served

    sent: list[httpx.Request] = []
    answers = ["thinking_tool_use.bin", "text.bin"]

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        body = (FIXTURES / answers[len(sent) - 1]).read_bytes()
        return httpx.Response(
            200, content=body, headers={"content-type": "application/vnd.amazon.eventstream"}
        )

    # The backend's client is made in the gateway's own event loop, on first use.
    lang = Lang.bedrock(
        MODEL,
        region="us-west-2",
        api_key="k",
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(answer)),
        max_retries=0,
    )
    tool_spec = {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
    question = [{"role": "user", "content": "Weather in Oslo and Rome?"}]
    with (
        served(Gateway({"claude": lang})) as url,
        openai.OpenAI(base_url=url + "/v1", api_key="-", max_retries=0) as client,
    ):
        first = client.chat.completions.create(model="claude", messages=question, tools=[tool_spec])
        calls = first.choices[0].message.tool_calls or []
        assert [json.loads(c.function.arguments) for c in calls] == [
            {"city": "Oslo"},
            {"city": "Rome"},
        ]
        results = [
            {"role": "tool", "tool_call_id": c.id, "content": f"{i}°"} for i, c in enumerate(calls)
        ]
        messages = [*question, first.choices[0].message.model_dump(exclude_none=True), *results]
        second = client.chat.completions.create(
            model="claude", messages=messages, tools=[tool_spec]
        )
    assert second.choices[0].message.content == "Sunny in Oslo."
    replayed = json.loads(sent[1].content)["messages"]
    assert [b["toolResult"]["content"] for b in replayed[2]["content"][:-1]] == [
        [{"text": "0°"}],
        [{"text": "1°"}],
    ]
    assert replayed[1]["content"][0] == {
        "toolUse": {"toolUseId": "tooluse_oslo", "name": "get_weather", "input": {"city": "Oslo"}}
    }


def test_bedrock_models_are_known_to_the_catalogue() -> None:
    from aiwrapper.models import model_info

    info = model_info("bedrock", MODEL)  # an inference profile's id, region prefix and all
    assert info is not None
    assert (info.tool_call, info.max_output_tokens) == (True, 64000)


def test_cache_points_follow_the_cache_option_and_the_model() -> None:
    extended = provider().encode(request(cache="extended")).body
    assert extended["system"][-1] == {"cachePoint": {"type": "default", "ttl": "1h"}}
    off = provider().encode(request(cache=False)).body
    assert "cachePoint" not in json.dumps(off)
    llama = ProviderRequest(
        "meta.llama3-3-70b-instruct-v1:0",
        [LangMessage.text("user", "hi")],
        [get_weather],
        merge_options(),
        stream=True,
    )
    assert "cachePoint" not in json.dumps(provider().encode(llama).body)  # it would refuse one


def test_cache_points_never_reach_the_conversation() -> None:
    messages = [LangMessage.text("user", "Weather?")]
    provider().encode(ProviderRequest(MODEL, messages, [get_weather], merge_options(), stream=True))
    provider().encode(ProviderRequest(MODEL, messages, [get_weather], merge_options(), stream=True))
    assert [p.text for p in messages[0].parts] == ["Weather?"]  # type: ignore[attr-defined]


def test_nova_gets_cache_points_in_system_and_messages_only() -> None:
    nova = ProviderRequest(
        "us.amazon.nova-pro-v1:0",
        [LangMessage.text("system", "Be brief."), LangMessage.text("user", "Weather?")],
        [get_weather],
        merge_options({"cache": "extended"}),
        stream=True,
    )
    body = provider().encode(nova).body
    assert body["toolConfig"]["tools"][-1] != CACHE_POINT  # Nova refuses one among tools
    assert "cachePoint" not in json.dumps(body["toolConfig"])
    assert body["system"][-1] == CACHE_POINT  # and takes no ttl
    assert body["messages"][-1]["content"][-1] == CACHE_POINT


@pytest.mark.parametrize("option", [{"seed": 1}, {"presence_penalty": 0.5}, {"top_k": 5}])
def test_a_sampling_option_converse_has_no_field_for_is_refused(option: dict[str, Any]) -> None:
    with pytest.raises(ConfigError, match="not supported by bedrock"):
        provider().encode(request(**option))


def test_a_missing_profile_is_a_config_error_not_botocores(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import anyio

    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "credentials"))
    signer = BedrockProvider(region="us-west-2", profile="nope").signer
    assert signer is not None
    with pytest.raises(ConfigError, match="nope"):
        anyio.run(signer.headers, "https://example.invalid/model/m/converse", {})


def test_the_signature_covers_the_host_httpx_sends() -> None:
    now = datetime(2026, 11, 27, 4, 5, 6, tzinfo=timezone.utc)
    path = "/model/m/converse"
    with_port = sign(
        f"https://bedrock-runtime.us-west-2.amazonaws.com:443{path}",
        b"{}",
        KEYS,
        region="us-west-2",
        now=now,
    )
    without = sign(
        f"https://bedrock-runtime.us-west-2.amazonaws.com{path}",
        b"{}",
        KEYS,
        region="us-west-2",
        now=now,
    )
    assert with_port["Authorization"] == without["Authorization"]


def test_an_explicit_profile_wins_over_a_key_in_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "env-key")
    lang = Lang.bedrock(MODEL, region="us-west-2", profile="work")
    assert lang.model.provider.api_key is None  # type: ignore[attr-defined]
    assert lang.model.provider.signer is not None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("options", "match"),
    [
        ({"thinking": 5000, "max_tokens": 2000}, "larger than the thinking budget"),
        ({"thinking": 2048, "temperature": 0.2}, "temperature"),
        ({"thinking": 2048, "function_call": "required"}, "forcing a tool call"),
    ],
)
def test_claude_on_bedrock_refuses_what_claude_refuses_before_the_request(
    options: dict[str, Any], match: str
) -> None:
    with pytest.raises(ConfigError, match=match):
        provider().encode(request(**options))
