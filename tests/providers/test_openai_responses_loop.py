"""The Responses API across a tool loop on the local test server: what the second request
replays, and conversations moved between Responses and Anthropic."""

from __future__ import annotations

import json
import warnings
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang, tool
from aiwrapper._run import _capabilities as capabilities
from aiwrapper._wire._http import HttpTransport
from aiwrapper.models import CapabilityWarning
from aiwrapper.providers._http_model import HttpModel
from aiwrapper.providers.openai_responses import ResponsesProvider

from ..seeds.localserver import local_client
from ..seeds.wires import WIRES
from .responses_sdk import assert_sdk_accepts

pytestmark = pytest.mark.anyio
FIXTURES = Path(__file__).parent.parent / "fixtures" / "openai_responses"
Body = dict[str, Any]


@tool
def get_weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: City name.
    """
    return {"Oslo": "4 °C", "Rome": "19 °C"}[city]


def serve(answers: list[bytes], sent: list[Body], content_type: str) -> httpx.AsyncClient:
    """A client whose request n gets ``answers[n]`` from 127.0.0.1; bodies land in ``sent``."""

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        answer = answers[len(sent) - 1]
        return httpx.Response(200, content=answer, headers={"content-type": content_type})

    return local_client(handler)


def responses(client: httpx.AsyncClient, model: str = "o3") -> Lang:
    provider = ResponsesProvider(api_key="sk-test")
    return Lang(HttpModel(provider, HttpTransport(http_client=client), model=model))


def sse(answers: list[str], sent: list[Body]) -> httpx.AsyncClient:
    return serve([fixture(name) for name in answers], sent, "text/event-stream")


def fixture(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


async def test_the_second_request_replays_reasoning_before_its_calls_and_one_output_each() -> None:
    sent: list[Body] = []
    async with sse(["reasoning_calls.sse", "text.sse"], sent) as client:
        result = await responses(client).ask("Weather in Oslo and Rome?", functions=[get_weather])
    assert result.answer == "Oslo is 4 °C and Rome 19 °C."
    assert result.thinking == ""  # the latest turn's, which had no summary
    assert [(c.id, c.result) for c in result.function_calls] == [
        ("call_Oslo7Qm2", "4 °C"),
        ("call_Rome9Xv4", "19 °C"),
    ]
    second = sent[1]["input"]
    assert [(i["type"], i.get("id")) for i in second] == [
        ("message", None),
        ("reasoning", "rs_68f3a1c3aa"),
        ("message", "msg_68f3a1c4bb"),
        ("function_call", "fc_68f3a1c5c1"),
        ("function_call", "fc_68f3a1c5d2"),
        ("function_call_output", None),
        ("function_call_output", None),
    ]
    assert second[1]["encrypted_content"].startswith("gAAAAAB")
    outputs = Counter(i["call_id"] for i in second if i["type"] == "function_call_output")
    assert outputs == {"call_Oslo7Qm2": 1, "call_Rome9Xv4": 1}
    assert [i["output"] for i in second[5:]] == ["4 °C", "19 °C"]
    for body in sent:
        assert_sdk_accepts(body)
        assert (body["store"], body["include"]) == (False, ["reasoning.encrypted_content"])


async def test_the_same_conversation_continued_on_anthropic_sends_none_of_its_items() -> None:
    sent: list[Body] = []
    async with sse(["reasoning_calls.sse", "text.sse"], sent) as client:
        first = await responses(client).ask("Weather in Oslo and Rome?", functions=[get_weather])
    anthropic_sent: list[Body] = []
    wire = WIRES["anthropic"]
    answer = wire.text("Anything else?", "claude-sonnet-4-5")
    async with serve([answer], anthropic_sent, wire.content_type) as client:
        more = await wire.make(client).chat(
            first.messages.add_user("Thanks!"), functions=[get_weather]
        )
    assert more.answer == "Anything else?"
    text = json.dumps(anthropic_sent[0])
    for kept in ("rs_68f3a1c3aa", "msg_68f3a1c4bb", "fc_68f3a1c5", "encrypted_content", "gAAAA"):
        assert kept not in text
    uses = [
        block["id"]
        for message in anthropic_sent[0]["messages"]
        for block in message["content"]
        if isinstance(block, dict) and block["type"] == "tool_use"
    ]
    assert uses == ["call_Oslo7Qm2", "call_Rome9Xv4"]


async def test_an_anthropic_conversation_continued_on_responses_sends_calls_by_call_id() -> None:
    wire = WIRES["anthropic"]
    calls = [("toolu_01Oslo", "get_weather", '{"city":"Oslo"}')]
    answers = [wire.calls(calls, False, "claude-sonnet-4-5"), wire.text("4 °C.", "x")]
    anthropic_sent: list[Body] = []
    async with serve(answers, anthropic_sent, wire.content_type) as client:
        first = await wire.make(client).ask("Weather in Oslo?", functions=[get_weather])
    sent: list[Body] = []
    async with sse(["text.sse"], sent) as client:
        await responses(client).chat(first.messages.add_user("And Rome?"), functions=[get_weather])
    assert sent[0]["input"][1:] == [
        {
            "type": "function_call",
            "call_id": "toolu_01Oslo",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
        },
        {"type": "function_call_output", "call_id": "toolu_01Oslo", "output": "4 °C"},
        {"type": "message", "role": "assistant", "content": "4 °C."},
        {"type": "message", "role": "user", "content": "And Rome?"},
    ]
    assert_sdk_accepts(sent[0])


async def test_a_half_built_call_cut_at_the_limit_is_not_run() -> None:
    ran: list[str] = []

    @tool
    def write_note(text: str) -> str:
        """Write a note."""
        ran.append(text)
        return "written"

    sent: list[Body] = []
    async with sse(["incomplete_call.sse", "text.sse"], sent) as client:
        result = await responses(client, "gpt-5-mini").ask("Note", functions=[write_note])
    assert ran == []
    (call,) = result.function_calls
    assert call.status == "error"
    second = sent[1]["input"]
    # The cut call has no kept item: the turn goes without ids, its reasoning dropped.
    assert second[1] == {
        "type": "function_call",
        "call_id": "call_Cut1",
        "name": "write_note",
        "arguments": "{}",
    }
    assert second[2]["call_id"] == "call_Cut1"
    assert "its arguments were cut off" in second[2]["output"]
    assert_sdk_accepts(sent[1])


@pytest.fixture(autouse=True)
def _fresh_warnings() -> Iterator[None]:
    capabilities._WARNED.seen.clear()  # each test sees the once-per-process warnings
    yield
    capabilities._WARNED.seen.clear()


async def test_sampling_options_on_a_model_that_refuses_them_warn_and_are_not_sent() -> None:
    sent: list[Body] = []
    async with sse(["text.sse"], sent) as client:
        with pytest.warns(CapabilityWarning, match="temperature and top_p are not sent"):
            await responses(client).ask("Hi", temperature=0.2, top_p=0.5)
    assert "temperature" not in sent[0]
    assert "top_p" not in sent[0]
    sent.clear()
    async with sse(["text.sse"], sent) as client:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            await responses(client, "gpt-4.1").ask("Hi", temperature=0.2)
    assert sent[0]["temperature"] == 0.2
