"""Scripted answers in every provider's wire format, and readers for the requests sent.

A ``Wire`` builds byte-exact streamed bodies (a turn of calls, a text turn) in one
provider's format and reads back what a request carried (tool results, tool choice, declared
tools), so one test can drive the same scenario through every wire. ``recording_client``
serves a list of bodies from the local test server on 127.0.0.1 (``localserver.py``) and
records every request body.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import httpx

from aiwrapper import Lang, VertexConfig

from .localserver import local_client

Call = tuple[str, str, str]  # (id, name, arguments as JSON text)
Body = dict[str, Any]


@dataclass(frozen=True)
class Wire:
    """One provider's wire: how to build its answers and read its requests."""

    name: str
    make: Callable[[httpx.AsyncClient], Lang]
    content_type: str
    calls: Callable[[Sequence[Call], bool, str], bytes]  # (calls, cut at the limit, model)
    # The same turn in pieces: piece i holds call i whole (the first piece also the turn's
    # opening), the last piece the finish. Sent apart, they show when each call is complete.
    pieces: Callable[[Sequence[Call], str], list[bytes]]
    text: Callable[[str, str], bytes]  # (answer, model)
    results: Callable[[Body], list[str]]  # the tool results' text, in order
    chose_none: Callable[[Body], bool]  # the request forbids calls
    tools: Callable[[Body], list[Any]]  # every entry of the request's tools, as sent


def _sse(*events: Body, done: bool = False) -> bytes:
    body = b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
    return body + (b"data: [DONE]\n\n" if done else b"")


def _named_sse(*events: Body) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


# --- OpenAI Chat Completions ----------------------------------------------------------------


def _openai_pieces(calls: Sequence[Call], model: str, cut: bool = False) -> list[bytes]:
    deltas = [
        {
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "delta": {
                        "tool_calls": [
                            {
                                "index": i,
                                "id": call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": arguments},
                            }
                        ]
                    },
                }
            ],
        }
        for i, (call_id, name, arguments) in enumerate(calls)
    ]
    finish = {
        "choices": [{"index": 0, "delta": {}, "finish_reason": "length" if cut else "tool_calls"}]
    }
    return [*(_sse(d) for d in deltas), _sse({"model": model, **finish}, done=True)]


def _openai_calls(calls: Sequence[Call], cut: bool, model: str) -> bytes:
    return b"".join(_openai_pieces(calls, model, cut))


def _openai_text(text: str, model: str) -> bytes:
    return _sse(
        {"model": model, "choices": [{"index": 0, "delta": {"content": text}}]},
        {"model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
        done=True,
    )


def _openai_results(body: Body) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


# --- Anthropic Messages ---------------------------------------------------------------------


def _anthropic_start(model: str) -> Body:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "model": model,
            "content": [],
            "usage": {"input_tokens": 5, "output_tokens": 1},
        },
    }


def _anthropic_end(reason: str) -> list[Body]:
    return [
        {"type": "message_delta", "delta": {"stop_reason": reason}, "usage": {"output_tokens": 4}},
        {"type": "message_stop"},
    ]


def _anthropic_pieces(calls: Sequence[Call], model: str, cut: bool = False) -> list[bytes]:
    pieces = []
    for i, (call_id, name, arguments) in enumerate(calls):
        block = {"type": "tool_use", "id": call_id, "name": name, "input": {}}
        delta = {"type": "input_json_delta", "partial_json": arguments}
        events = [
            {"type": "content_block_start", "index": i, "content_block": block},
            {"type": "content_block_delta", "index": i, "delta": delta},
            {"type": "content_block_stop", "index": i},
        ]
        pieces.append(_named_sse(*([_anthropic_start(model)] if i == 0 else []), *events))
    end = _named_sse(*_anthropic_end("max_tokens" if cut else "tool_use"))
    return [end] if not pieces else [*pieces, end]


def _anthropic_calls(calls: Sequence[Call], cut: bool, model: str) -> bytes:
    if not calls:
        return _named_sse(
            _anthropic_start(model), *_anthropic_end("max_tokens" if cut else "tool_use")
        )
    return b"".join(_anthropic_pieces(calls, model, cut))


def _anthropic_text(text: str, model: str) -> bytes:
    return _named_sse(
        _anthropic_start(model),
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        *_anthropic_end("end_turn"),
    )


def _anthropic_results(body: Body) -> list[str]:
    return [
        block.get("content", "")
        for message in body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block["type"] == "tool_result"
    ]


# --- Gemini ---------------------------------------------------------------------------------


def _gemini_chunk(parts: list[Body], reason: str, model: str) -> bytes:
    candidate = {"content": {"role": "model", "parts": parts}, "finishReason": reason}
    return _sse({"candidates": [candidate], "modelVersion": model})


def _gemini_calls(calls: Sequence[Call], cut: bool, model: str) -> bytes:
    parts = [
        {"functionCall": {"id": call_id, "name": name, "args": json.loads(arguments)}}
        for call_id, name, arguments in calls
    ]
    return _gemini_chunk(parts, "MAX_TOKENS" if cut else "STOP", model)


def _gemini_pieces(calls: Sequence[Call], model: str) -> list[bytes]:
    pieces = [
        _sse(
            {
                "candidates": [{"content": {"role": "model", "parts": [part]}}],
                "modelVersion": model,
            }
        )
        for part in json.loads(_gemini_calls(calls, False, model)[6:])["candidates"][0]["content"][
            "parts"
        ]
    ]
    return [*pieces, _gemini_chunk([], "STOP", model)]


def _gemini_text(text: str, model: str) -> bytes:
    return _gemini_chunk([{"text": text}], "STOP", model)


def _gemini_results(body: Body) -> list[str]:
    return [
        json.dumps(part["functionResponse"]["response"])
        for content in body["contents"]
        for part in content["parts"]
        if "functionResponse" in part
    ]


def _gemini_tools(body: Body) -> list[Any]:
    return [
        declaration
        for entry in body.get("tools", ())
        for declaration in entry.get("functionDeclarations", [entry])
    ]


# --- Ollama ---------------------------------------------------------------------------------


def _ollama_lines(*lines: Body) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _ollama_done(model: str, reason: str) -> Body:
    empty = {"role": "assistant", "content": ""}
    return {
        "model": model,
        "message": empty,
        "done": True,
        "done_reason": reason,
        "prompt_eval_count": 3,
        "eval_count": 4,
    }


def _ollama_calls(calls: Sequence[Call], cut: bool, model: str) -> bytes:
    wire_calls = [
        {"id": call_id, "function": {"name": name, "arguments": json.loads(arguments)}}
        for call_id, name, arguments in calls
    ]
    message = {"role": "assistant", "content": "", "tool_calls": wire_calls}
    first = {"model": model, "message": message, "done": False}
    return _ollama_lines(first, _ollama_done(model, "length" if cut else "stop"))


def _ollama_pieces(calls: Sequence[Call], model: str) -> list[bytes]:
    pieces = [
        _ollama_lines(json.loads(line))
        for call in calls
        for line in _ollama_calls([call], False, model).splitlines()[:1]
    ]
    return [*pieces, _ollama_lines(_ollama_done(model, "stop"))]


def _ollama_text(text: str, model: str) -> bytes:
    first = {"model": model, "message": {"role": "assistant", "content": text}, "done": False}
    return _ollama_lines(first, _ollama_done(model, "stop"))


# --- OpenAI Responses API ------------------------------------------------------------------


def _responses_start(model: str) -> bytes:
    return _named_sse({"type": "response.created", "response": {"id": "resp_1", "model": model}})


def _responses_call(index: int, call: Call) -> bytes:
    call_id, name, arguments = call
    item = {"type": "function_call", "id": f"fc_{index}", "call_id": call_id, "name": name}
    where = {"output_index": index, "item_id": item["id"]}
    return _named_sse(
        {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "arguments": ""},
        },
        {"type": "response.function_call_arguments.delta", **where, "delta": arguments},
        {"type": "response.function_call_arguments.done", **where, "arguments": arguments},
        {
            "type": "response.output_item.done",
            "output_index": index,
            "item": {**item, "arguments": arguments},
        },
    )


def _responses_end(model: str, cut: bool = False) -> bytes:
    status = "incomplete" if cut else "completed"
    response: Body = {"id": "resp_1", "model": model, "status": status}
    response["usage"] = {"input_tokens": 5, "output_tokens": 4}
    if cut:
        response["incomplete_details"] = {"reason": "max_output_tokens"}
    return _named_sse({"type": f"response.{status}", "response": response})


def _responses_pieces(calls: Sequence[Call], model: str) -> list[bytes]:
    pieces = [_responses_call(i, call) for i, call in enumerate(calls)]
    if pieces:
        pieces[0] = _responses_start(model) + pieces[0]
    return (
        [*pieces, _responses_end(model)]
        if pieces
        else [_responses_start(model) + _responses_end(model)]
    )


def _responses_calls(calls: Sequence[Call], cut: bool, model: str) -> bytes:
    body = b"".join(_responses_call(i, call) for i, call in enumerate(calls))
    return _responses_start(model) + body + _responses_end(model, cut)


def _responses_text(text: str, model: str) -> bytes:
    where = {"output_index": 0, "item_id": "msg_1", "content_index": 0}
    content = [{"type": "output_text", "text": text, "annotations": []}]
    item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed"}
    return (
        _responses_start(model)
        + _named_sse(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "content": []},
            },
            {"type": "response.output_text.delta", **where, "delta": text},
            {
                "type": "response.output_item.done",
                "output_index": 0,
                "item": {**item, "content": content},
            },
        )
        + _responses_end(model)
    )


def _responses_results(body: Body) -> list[str]:
    return [i["output"] for i in body["input"] if i["type"] == "function_call_output"]


WIRES = {
    "openai": Wire(
        "openai",
        lambda c: Lang.openai(api_key="k", model="gpt-4o-mini", http_client=c),
        "text/event-stream",
        _openai_calls,
        _openai_pieces,
        _openai_text,
        _openai_results,
        lambda body: body.get("tool_choice") == "none",
        lambda body: list(body.get("tools", ())),
    ),
    "anthropic": Wire(
        "anthropic",
        lambda c: Lang.anthropic(api_key="k", model="claude-sonnet-4-5", http_client=c),
        "text/event-stream",
        _anthropic_calls,
        _anthropic_pieces,
        _anthropic_text,
        _anthropic_results,
        lambda body: body.get("tool_choice") == {"type": "none"},
        lambda body: list(body.get("tools", ())),
    ),
    "vertex-anthropic": Wire(  # Claude on Vertex AI: the same wire at another URL
        "vertex-anthropic",
        lambda c: Lang.anthropic(
            model="claude-sonnet-4-5@20250929",
            vertex=VertexConfig(project="p", location="us-east5", access_token="t"),
            http_client=c,
        ),
        "text/event-stream",
        _anthropic_calls,
        _anthropic_pieces,
        _anthropic_text,
        _anthropic_results,
        lambda body: body.get("tool_choice") == {"type": "none"},
        lambda body: list(body.get("tools", ())),
    ),
    "gemini": Wire(
        "gemini",
        lambda c: Lang.gemini(api_key="k", model="gemini-2.5-flash", http_client=c),
        "text/event-stream",
        _gemini_calls,
        _gemini_pieces,
        _gemini_text,
        _gemini_results,
        lambda body: (
            body.get("toolConfig", {}).get("functionCallingConfig", {}).get("mode") == "NONE"
        ),
        _gemini_tools,
    ),
    "ollama": Wire(
        "ollama",
        lambda c: Lang.ollama(model="qwen3", http_client=c),
        "application/x-ndjson",
        _ollama_calls,
        _ollama_pieces,
        _ollama_text,
        _openai_results,
        lambda body: "tools" not in body,  # the native API's only way to forbid calls
        lambda body: list(body.get("tools", ())),
    ),
    "openai-responses": Wire(
        "openai-responses",
        lambda c: Lang.openai("gpt-4.1", api="responses", api_key="k", http_client=c),
        "text/event-stream",
        _responses_calls,
        _responses_pieces,
        _responses_text,
        _responses_results,
        lambda body: body.get("tool_choice") == "none",
        lambda body: list(body.get("tools", ())),
    ),
}


def recording_client(
    wire: Wire, answers: Sequence[bytes], sent: list[Body], *, over_socket: bool = True
) -> httpx.AsyncClient:
    """A client answering request n with ``answers[n]``, recording every request body.

    The answers come from the local test server on 127.0.0.1; ``over_socket=False`` serves
    them through ``httpx.MockTransport`` instead (for callers that never close the client).
    """

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        if len(sent) > len(answers):
            return httpx.Response(400, json={"error": {"message": "no more scripted answers"}})
        content = answers[len(sent) - 1]
        return httpx.Response(200, content=content, headers={"content-type": wire.content_type})

    if over_socket:
        return local_client(handler)
    return httpx.AsyncClient(transport=httpx.MockTransport(handler))
