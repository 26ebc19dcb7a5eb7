"""Token log probabilities through the gateway's Responses front.

The official ``openai`` SDK (uvicorn on 127.0.0.1) and raw HTTP (``httpx.ASGITransport``, on
asyncio and trio) ask with ``include: ["message.output_text.logprobs"]`` and
``top_logprobs``; the route is a Responses backend whose upstream (``httpx.MockTransport``)
answers with recorded-shape bodies holding logprobs. The tokens the client reads are the ones
the upstream sent, per delta and whole; toward a backend without logprobs it is a 400.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.gateway import Gateway

from ..vendor_sdks import openai
from .harness import served

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "openai_responses"
INCLUDE = "message.output_text.logprobs"
GATEWAY = Gateway({})
# What the upstream sent, as (token, logprob, bytes, [(token, logprob, bytes)]).
TOKENS = [
    ("Hi", -0.0001, [72, 105], [("Hi", -0.0001, [72, 105]), ("Hello", -9.25, list(b"Hello"))]),
    (" there", -0.3125, list(b" there"), [(" there", -0.3125, list(b" there")), ("!", -1.5, [33])]),
    (".", -0.015625, [46], [(".", -0.015625, [46]), ("!", -4.25, [33])]),
]


class Upstream:
    """A Responses server answering with the logprobs fixtures (streamed unless ``whole`` is
    given or ``stream`` is False); keeps the bodies it got."""

    def __init__(
        self, whole: bytes | None = None, *, stream: bool = True, sse: bytes | None = None
    ) -> None:
        self.stream = stream and whole is None
        self.whole = whole or (FIXTURES / "logprobs.json").read_bytes()
        self.sse = sse or (FIXTURES / "logprobs.sse").read_bytes()
        self.sent: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.sent.append(body)
        if body.get("stream"):
            headers = {"content-type": "text/event-stream"}
            return httpx.Response(200, content=self.sse, headers=headers)
        return httpx.Response(200, content=self.whole, headers={"content-type": "application/json"})

    def lang(self) -> Lang:
        client = httpx.AsyncClient(transport=httpx.MockTransport(self))
        options = None if self.stream else {"stream": False}
        return Lang.openai(
            "gpt-4.1-mini", api="responses", api_key="k", http_client=client, options=options
        )


def route(upstream: Upstream, name: str = "lp") -> Upstream:
    GATEWAY.routes[name] = upstream.lang()
    return upstream


def entries(tokens: Any) -> list[Any]:
    """Parsed (SDK models) or raw (dicts) token entries as plain tuples."""
    out = []
    for token in tokens:
        item = token if isinstance(token, dict) else token.model_dump()
        top = [(t["token"], t["logprob"], t.get("bytes")) for t in item["top_logprobs"]]
        out.append((item["token"], item["logprob"], item.get("bytes"), top))
    return out


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def client(base_url: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0) as sdk:
        yield sdk


# -- the official SDK ----------------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["whole-upstream", "streamed-upstream"])
def test_the_sdk_reads_the_tokens_of_a_whole_response(client: openai.OpenAI, stream: bool) -> None:
    upstream = route(Upstream(stream=stream))
    response = client.responses.create(
        model="lp", input="Say hi.", include=[INCLUDE], top_logprobs=2
    )
    (sent,) = upstream.sent
    assert sent.get("stream", False) is stream
    assert sent["include"] == [INCLUDE]
    assert sent["top_logprobs"] == 2
    part = response.output[0].content[0]  # type: ignore[union-attr]
    assert part.text == "Hi there."
    assert entries(part.logprobs) == TOKENS


def test_the_sdk_reads_each_deltas_tokens_and_the_whole_list_at_the_end(
    client: openai.OpenAI,
) -> None:
    upstream = route(Upstream())
    events = list(
        client.responses.create(
            model="lp", input="Say hi.", include=[INCLUDE], top_logprobs=2, stream=True
        )
    )
    assert upstream.sent[0]["include"] == [INCLUDE]
    assert [e.sequence_number for e in events] == list(range(len(events)))
    deltas = [e for e in events if e.type == "response.output_text.delta"]
    assert [d.delta for d in deltas] == ["Hi", " there."]
    # The SDK's delta entries have no bytes: the token, its logprob, its alternatives.
    per_delta = [
        [
            (t.token, t.logprob, [(a.token, a.logprob) for a in t.top_logprobs or ()])
            for t in d.logprobs
        ]
        for d in deltas
    ]
    plain = [(t, lp, [(a, alp) for a, alp, _ in top]) for t, lp, _, top in TOKENS]
    assert per_delta == [plain[:1], plain[1:]]
    (done,) = [e for e in events if e.type == "response.output_text.done"]
    assert [(t.token, t.logprob) for t in done.logprobs] == [(t[0], t[1]) for t in TOKENS]
    (part_done,) = [e for e in events if e.type == "response.content_part.done"]
    assert entries(part_done.part.logprobs) == TOKENS  # type: ignore[union-attr]
    completed = events[-1]
    assert completed.type == "response.completed"
    assert entries(completed.response.output[0].content[0].logprobs) == TOKENS  # type: ignore[union-attr]


def test_without_the_include_nothing_is_asked_and_the_parts_hold_none(
    client: openai.OpenAI,
) -> None:
    """``top_logprobs: 0`` is the API's default (OpenAI echoes it): it asks for nothing."""
    upstream = route(Upstream())
    response = client.responses.create(model="lp", input="Say hi.", top_logprobs=0)
    events = list(client.responses.create(model="lp", input="Say hi.", stream=True))
    assert ["include" in sent or "top_logprobs" in sent for sent in upstream.sent] == [False] * 2
    assert response.output[0].content[0].logprobs == []  # type: ignore[union-attr]
    assert [e.logprobs for e in events if e.type == "response.output_text.delta"] == [[], []]


def test_top_logprobs_above_zero_alone_asks_for_them(client: openai.OpenAI) -> None:
    upstream = route(Upstream())
    response = client.responses.create(model="lp", input="Say hi.", top_logprobs=3)
    assert upstream.sent[0]["include"] == [INCLUDE]
    assert upstream.sent[0]["top_logprobs"] == 3
    assert entries(response.output[0].content[0].logprobs) == TOKENS  # type: ignore[union-attr]
    assert response.top_logprobs == 3  # echoed, as OpenAI does


def test_a_response_echoes_top_logprobs_as_zero_when_not_given(client: openai.OpenAI) -> None:
    route(Upstream())
    assert client.responses.create(model="lp", input="Say hi.").top_logprobs == 0


@pytest.mark.parametrize(
    ("fields", "param"),
    [
        ({"top_logprobs": 21}, "top_logprobs"),
        ({"top_logprobs": -1}, "top_logprobs"),
        ({"top_logprobs": "2"}, "top_logprobs"),
        ({"top_logprobs": True}, "top_logprobs"),
        ({"top_logprobs": 2.5}, "top_logprobs"),
        ({"include": [INCLUDE, "file_search_call.results"]}, "include[1]"),
        ({"include": INCLUDE}, "include"),
    ],
)
def test_a_bad_logprobs_field_is_a_400_naming_it(
    client: openai.OpenAI, fields: dict[str, Any], param: str
) -> None:
    upstream = route(Upstream())
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="lp", input="Hi", extra_body=fields)
    assert caught.value.param == param
    assert upstream.sent == []


# -- raw HTTP, on asyncio and trio ----------------------------------------------------------


def asgi() -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=GATEWAY, client=("127.0.0.1", 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


def sse_events(body: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in body.splitlines() if line.startswith("data: ")]


@pytest.mark.anyio
async def test_each_delta_event_carries_its_tokens_with_bytes() -> None:
    route(Upstream())
    request = {"model": "lp", "input": "Hi", "include": [INCLUDE], "stream": True}
    async with asgi() as http:
        reply = await http.post("/v1/responses", json=request)
    assert reply.status_code == 200
    events = sse_events(reply.text)
    deltas = [e for e in events if e["type"] == "response.output_text.delta"]
    assert [entries(d["logprobs"]) for d in deltas] == [TOKENS[:1], TOKENS[1:]]
    assert list(deltas[0]) == [
        *("type", "sequence_number", "item_id", "output_index", "content_index"),
        *("delta", "logprobs"),
    ]
    done = [e for e in events if e["type"] == "response.output_text.done"]
    assert [entries(d["logprobs"]) for d in done] == [TOKENS]
    item_done = [e for e in events if e["type"] == "response.output_item.done"]
    assert entries(item_done[0]["item"]["content"][0]["logprobs"]) == TOKENS


@pytest.mark.anyio
async def test_a_turn_of_two_texts_splits_the_tokens_between_their_items() -> None:
    whole = json.loads((FIXTURES / "logprobs.json").read_bytes())
    first, second = json.loads(json.dumps(whole["output"][0])), whole["output"][0]
    first["content"][0].update(text="Hi", logprobs=first["content"][0]["logprobs"][:1])
    second["content"][0].update(text=" there.", logprobs=second["content"][0]["logprobs"][1:])
    second["id"] = "msg_2"
    call = {
        "type": "function_call",
        "id": "fc_1",
        "call_id": "call_1",
        "name": "f",
        "arguments": "{}",
        "status": "completed",
    }
    whole["output"] = [first, call, second]
    route(Upstream(json.dumps(whole).encode()))
    tool = {"type": "function", "name": "f", "parameters": {"type": "object"}}
    request = {"model": "lp", "input": "Hi", "include": [INCLUDE], "tools": [tool]}
    async with asgi() as http:
        reply = await http.post("/v1/responses", json=request)
    assert reply.status_code == 200, reply.text
    output = reply.json()["output"]
    # The upstream's items ride last in a reasoning item's encrypted content.
    kinds = ["message", "function_call", "message", "reasoning"]
    assert [item["type"] for item in output] == kinds
    assert entries(output[0]["content"][0]["logprobs"]) == TOKENS[:1]
    assert entries(output[2]["content"][0]["logprobs"]) == TOKENS[1:]


@pytest.mark.anyio
async def test_a_backend_without_logprobs_is_a_400_naming_them() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    upstream = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    GATEWAY.routes["claude"] = Lang.anthropic(
        "claude-sonnet-4-5", api_key="k", http_client=upstream
    )
    async with asgi() as http:
        for extra in ({"include": [INCLUDE]}, {"top_logprobs": 2}):
            reply = await http.post(
                "/v1/responses", json={"model": "claude", "input": "Hi", **extra}
            )
            assert reply.status_code == 400
            assert "logprobs is not supported by anthropic" in reply.json()["error"]["message"]
    assert sent == []


@pytest.mark.anyio
async def test_malformed_tokens_from_the_upstream_are_an_error_answer_not_a_crash() -> None:
    whole = json.loads((FIXTURES / "logprobs.json").read_bytes())
    whole["output"][0]["content"][0]["logprobs"] = [{"token": 7, "logprob": "high"}]
    route(Upstream(json.dumps(whole).encode()))
    async with asgi() as http:
        reply = await http.post(
            "/v1/responses", json={"model": "lp", "input": "Hi", "include": [INCLUDE]}
        )
    assert reply.status_code == 502
    assert reply.json()["error"]["type"] == "server_error"


def without_tokens(sse: bytes) -> bytes:
    """The stream with every delta's tokens taken out (as a backend without them streams)."""
    events = []
    for block in sse.decode().split("\n\n"):
        if '"response.output_text.delta"' in block:
            head, data = block.split("data: ")
            event = json.loads(data)
            event["logprobs"] = []
            block = head + "data: " + json.dumps(event, separators=(",", ":"))
        events.append(block)
    return "\n\n".join(events).encode()


@pytest.mark.anyio
async def test_text_that_no_tokens_follow_goes_out_unchanged_with_an_empty_list() -> None:
    route(Upstream(sse=without_tokens((FIXTURES / "logprobs.sse").read_bytes())))
    request = {"model": "lp", "input": "Hi", "include": [INCLUDE], "stream": True}
    async with asgi() as http:
        reply = await http.post("/v1/responses", json=request)
    events = sse_events(reply.text)
    deltas = [(e["delta"], e["logprobs"]) for e in events if "delta" in e]
    assert deltas == [("Hi", []), (" there.", [])]
    assert events[-1]["type"] == "response.completed"
    assert events[-1]["response"]["output"][0]["content"][0]["logprobs"] == []


@pytest.mark.anyio
async def test_text_held_for_its_tokens_goes_out_before_a_failure() -> None:
    sse = without_tokens((FIXTURES / "logprobs.sse").read_bytes())
    cut = sse[: sse.index(b"event: response.output_text.done")]  # after the two deltas
    route(Upstream(sse=cut + b"data: {not json}\n\n"))
    request = {"model": "lp", "input": "Hi", "include": [INCLUDE], "stream": True}
    async with asgi() as http:
        reply = await http.post("/v1/responses", json=request)
    events = sse_events(reply.text)
    assert [e["type"] for e in events][-4:] == [
        "response.output_text.delta",
        "response.output_text.delta",
        "error",
        "response.failed",
    ]
    assert [(e["delta"], e["logprobs"]) for e in events[-4:-2]] == [("Hi", []), (" there.", [])]
