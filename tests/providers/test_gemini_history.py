"""Gemini conversation encoding: result grouping, ordering, ids, placeholders, result shapes.

Histories here are built by hand (or come from other providers), the way a user continues a
conversation on Gemini; each test asserts the exact ``contents`` sent.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, tool
from aiwrapper import _errors as errors
from aiwrapper._conversation._messages import LangMessage, ProviderState, TextPart, ToolCallPart
from aiwrapper._conversation._result import FunctionCall
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper.providers.gemini import GeminiProvider, VertexConfig

SKIP = "skip_thought_signature_validator"
USER = LangMessage.text("user", "Weather?")
USER_CONTENT = {"role": "user", "parts": [{"text": "Weather?"}]}


def contents(messages: list[LangMessage], model: str = "gemini-3-pro-preview") -> Any:
    request = ProviderRequest(model, messages, [], merge_options(), stream=True)
    return GeminiProvider(api_key="k").encode(request).body["contents"]


def foreign(call_id: str, name: str = "get_weather", **arguments: Any) -> FunctionCall:
    return FunctionCall(id=call_id, name=name, arguments=arguments, provider="openai")


def gemini_call(
    call_id: str | None, signature: str | None = None, **arguments: Any
) -> ToolCallPart:
    """A call as the decoder leaves it: Gemini state (maybe empty), synthetic id when none."""
    call = FunctionCall(
        id=call_id or "call_made_up_1",
        name="get_weather",
        arguments=arguments,
        provider="gemini",
        synthetic_id=call_id is None,
    )
    data = {"thoughtSignature": signature} if signature else {}
    return ToolCallPart(call, ProviderState("gemini", data))


def test_user_text_between_calls_and_results_goes_after_the_results() -> None:
    oslo, rome = foreign("c1", city="Oslo"), foreign("c2", city="Rome")
    messages = [
        USER,
        LangMessage("assistant", [ToolCallPart(oslo), ToolCallPart(rome)]),
        LangMessage.text("user", "Prefer Celsius."),
        LangMessage.tool_result(oslo, "4"),
        LangMessage.text("user", "And be brief."),
        LangMessage.tool_result(rome, "18"),
        LangMessage.text("user", "Thanks."),
    ]
    assert contents(messages) == [
        USER_CONTENT,
        {
            "role": "model",
            "parts": [
                {
                    "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}},
                    "thoughtSignature": SKIP,
                },
                {"functionCall": {"name": "get_weather", "args": {"city": "Rome"}}},
            ],
        },
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"name": "get_weather", "response": {"output": 4}}},
                {"functionResponse": {"name": "get_weather", "response": {"output": 18}}},
            ],
        },
        # Never folded into the function-response content; the held texts come first.
        {
            "role": "user",
            "parts": [
                {"text": "Prefer Celsius."},
                {"text": "And be brief."},
                {"text": "Thanks."},
            ],
        },
    ]


@pytest.mark.parametrize(
    ("results", "counts"),
    [((), "1 function call(s) but 0 result(s)"), (("a", "a"), "1 function call(s) but 2")],
)
def test_a_call_turn_whose_results_do_not_match_its_calls_is_a_config_error(
    results: tuple[str, ...], counts: str
) -> None:
    call = foreign("a")
    messages = [USER, LangMessage("assistant", [ToolCallPart(call)])]
    messages += [LangMessage.tool_result(call, "x") for _ in results]
    messages.append(LangMessage.text("user", "Hello?"))
    with pytest.raises(errors.ConfigError, match=re.escape(counts)):
        contents(messages)


def test_a_result_with_no_call_before_it_is_a_config_error() -> None:
    orphan = LangMessage.tool_result(foreign("zz"), "x")
    with pytest.raises(errors.ConfigError, match="0 function call"):
        contents([USER, orphan])


def test_each_model_step_gets_its_own_placeholder_and_consecutive_model_turns_merge() -> None:
    first, second = foreign("c1", city="Oslo"), foreign("c2", city="Rome")
    messages = [
        USER,
        LangMessage.text("assistant", "Let me look."),
        LangMessage("assistant", [ToolCallPart(first)]),
        LangMessage.tool_result(first, "4"),
        LangMessage("assistant", [ToolCallPart(second)]),
        LangMessage.tool_result(second, "18"),
    ]
    call_part = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    assert contents(messages)[1:] == [
        # A call turn must follow a user or function-response turn: one model content.
        {
            "role": "model",
            "parts": [{"text": "Let me look."}, {**call_part, "thoughtSignature": SKIP}],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": 4}}}],
        },
        {
            "role": "model",
            "parts": [
                {
                    "functionCall": {"name": "get_weather", "args": {"city": "Rome"}},
                    "thoughtSignature": SKIP,
                }
            ],
        },
        {
            "role": "user",
            "parts": [{"functionResponse": {"name": "get_weather", "response": {"output": 18}}}],
        },
    ]
    # Gemini 2 validates no signatures: nothing is invented for it.
    assert "thoughtSignature" not in contents(messages, "gemini-2.5-flash")[1]["parts"][1]


def test_ids_are_echoed_per_call_and_the_latest_call_with_an_id_wins() -> None:
    own = gemini_call("fc_1", "SIG", city="Oslo")
    hand_made = FunctionCall(id="fc_x", name="get_weather", arguments={})  # added by hand
    reused = foreign("fc_1", city="Rome")  # another provider reused the same id later
    messages = [
        USER,
        LangMessage("assistant", [own, ToolCallPart(hand_made)]),
        LangMessage.tool_result(own.call, "4"),
        LangMessage.tool_result(hand_made, "ok"),
        LangMessage("assistant", [ToolCallPart(reused)]),
        LangMessage.tool_result(reused, "18"),
    ]
    sent = contents(messages)
    assert sent[1]["parts"] == [
        {
            "functionCall": {"id": "fc_1", "name": "get_weather", "args": {"city": "Oslo"}},
            "thoughtSignature": "SIG",
        },
        {"functionCall": {"name": "get_weather", "args": {}}},
    ]
    assert sent[2]["parts"] == [
        {"functionResponse": {"id": "fc_1", "name": "get_weather", "response": {"output": 4}}},
        {"functionResponse": {"name": "get_weather", "response": {"output": "ok"}}},
    ]
    assert sent[4]["parts"] == [
        {"functionResponse": {"name": "get_weather", "response": {"output": 18}}}
    ]


@pytest.mark.parametrize(
    ("content", "is_error", "response"),
    [
        ('{"temp_c": 4}', False, {"output": {"temp_c": 4}}),
        ("[1, 2]", False, {"output": [1, 2]}),
        ('"quoted"', False, {"output": "quoted"}),
        ("3.5", False, {"output": 3.5}),
        ("null", False, {"output": None}),
        ("true", False, {"output": True}),
        ("NaN", False, {"output": "NaN"}),  # not JSON: sent as text, never as a bare NaN
        ("[1, Infinity]", False, {"output": "[1, Infinity]"}),
        ("plain words", False, {"output": "plain words"}),
        ("", False, {"output": ""}),
        ("ValueError: bad city", True, {"error": "ValueError: bad city"}),
    ],
)
def test_every_response_is_a_json_object(content: str, is_error: bool, response: Any) -> None:
    call = foreign("c1")
    messages = [
        USER,
        LangMessage("assistant", [ToolCallPart(call)]),
        LangMessage.tool_result(call, content, is_error=is_error),
    ]
    (part,) = contents(messages)[2]["parts"]
    assert part == {"functionResponse": {"name": "get_weather", "response": response}}
    json.dumps(part, allow_nan=False)  # what goes on the wire is strict JSON


def test_a_signed_first_text_chunk_stays_its_own_part_before_the_rest() -> None:
    # Gemini 2.5 may sign the first part of any type; later chunks continue the text.
    model = LangMessage(
        "assistant",
        [TextPart("It is ", ProviderState("gemini", {"thoughtSignature": "S25"})), TextPart("4C.")],
    )
    assert contents([USER, model, LangMessage.text("user", "Ok")])[1] == {
        "role": "model",
        "parts": [{"text": "It is ", "thoughtSignature": "S25"}, {"text": "4C."}],
    }


@pytest.mark.anyio
async def test_vertex_tool_loop_over_http() -> None:
    sent: list[httpx.Request] = []
    first = {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "id": "fc_1",
                                "name": "get_weather",
                                "args": {"city": "Oslo"},
                            },
                            "thoughtSignature": "VSIG",
                        }
                    ],
                },
                "finishReason": "STOP",
            }
        ],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 2, "totalTokenCount": 12},
    }
    second = {
        "candidates": [
            {"content": {"role": "model", "parts": [{"text": "4 C."}]}, "finishReason": "STOP"}
        ],
        "usageMetadata": {"promptTokenCount": 20, "candidatesTokenCount": 3, "totalTokenCount": 23},
    }

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        reply = (first, second)[len(sent) - 1]
        return httpx.Response(200, content=b"data: " + json.dumps(reply).encode() + b"\r\n\r\n")

    @tool
    def get_weather(city: str) -> str:
        """Current weather for a city."""
        return "4 C"

    vertex = VertexConfig(project="proj", location="europe-west4", access_token="ya29.t")
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        lang = Lang.gemini("gemini-3-pro-preview", api_key=None, vertex=vertex, http_client=client)
        result = await lang.ask("Oslo?", functions=[get_weather])

    assert result.answer == "4 C."
    assert (result.usage.input_tokens, result.usage.output_tokens) == (30, 5)
    assert [str(r.url) for r in sent] == [
        "https://europe-west4-aiplatform.googleapis.com/v1beta1/projects/proj/locations/"
        "europe-west4/publishers/google/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    ] * 2
    assert sent[1].headers["authorization"] == "Bearer ya29.t"
    assert "x-goog-api-key" not in sent[1].headers
    assert json.loads(sent[1].content)["contents"][1:] == [
        first["candidates"][0]["content"],  # type: ignore[index]
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "fc_1",
                        "name": "get_weather",
                        "response": {"output": "4 C"},
                    }
                }
            ],
        },
    ]


def test_an_anthropic_thinking_turn_continues_on_gemini_without_its_opaque_state() -> None:
    from pathlib import Path

    from aiwrapper._conversation._assembler import Assembler
    from aiwrapper._wire._framing import SSEDecoder
    from aiwrapper.providers.anthropic import AnthropicProvider

    raw = (
        Path(__file__).parent.parent / "fixtures/anthropic/interleaved_tool_use.sse"
    ).read_bytes()
    decoder, assembler = AnthropicProvider(api_key="k").decode_stream(), Assembler("anthropic")
    for name, data in SSEDecoder().feed(raw):
        assembler.add_all(decoder.feed(name, data))
    turn = assembler.finish()
    (call,) = turn.tool_calls
    messages = [USER, turn, LangMessage.tool_result(call, '{"temp_c": 18}')]
    assert contents(messages)[1:] == [
        {
            "role": "model",
            "parts": [  # the signed thinking is Anthropic's: not replayed to Gemini
                {"text": "Oslo: 4 °C. Checking Rome."},
                {
                    "functionCall": {"name": "get_weather", "args": {"city": "Roma"}},
                    "thoughtSignature": SKIP,
                },
            ],
        },
        {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "name": "get_weather",
                        "response": {"output": {"temp_c": 18}},
                    }
                }
            ],
        },
    ]
