"""The conversation document: ``LangMessages.to_json`` keeps everything, and reads back whole;
a document it cannot read is a ``ConfigError`` naming the place."""

from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any

import pytest

from aiwrapper import ConfigError, Document, FunctionCall, Image, LangMessage, LangMessages
from aiwrapper._conversation._document import VERSION
from aiwrapper._conversation._media import Media
from aiwrapper._conversation._parts import (
    MediaPart,
    OpaquePart,
    ProviderState,
    TextPart,
    ThinkingPart,
    ToolCallPart,
)

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


@dataclasses.dataclass
class Reading:
    city: str
    celsius: float


class Unwritable:
    def __repr__(self) -> str:
        return "<Unwritable 7>"

    def __str__(self) -> str:
        raise RuntimeError("no text either")


def call(**fields: Any) -> FunctionCall:
    base: dict[str, Any] = {
        "id": "toolu_1",
        "name": "get_weather",
        "arguments": {"city": "Oslo"},
        "raw_arguments": '{"city": "Oslo"}',
        "provider": "anthropic",
        "status": "done",
    }
    return FunctionCall(**{**base, **fields})


def everything() -> LangMessages:
    """A conversation holding every part, every kind of state and every call field."""
    anthropic = ProviderState("anthropic", {"cache_control": {"type": "ephemeral"}})
    signed = ProviderState("anthropic", {"signature": "EqQBCkYIBxgC+/=="})
    redacted = ProviderState("anthropic", {"block": {"type": "redacted_thinking", "data": "Em=="}})
    items = [{"type": "reasoning", "id": "rs_1", "encrypted_content": "gAAA", "summary": []}]
    reasoning = ProviderState("openai-responses", {"model": "o3", "items": items})
    thought = ProviderState("gemini", {"thoughtSignature": "CtMBAb4+"})
    server = ProviderState("anthropic", {"block": {"type": "server_tool_use", "input": {"q": 1.5}}})
    calls = [
        call(result="4 °C"),
        call(id="call_ab", provider=None, status="error", error="ValueError: no", result=None),
        call(id="call_x", synthetic_id=True, status="denied", error="Call to 'x' was not run."),
        call(id="c4", raw_arguments='{"city": "Os', arguments={}, status="pending"),
        call(id="c5", result=Reading("Oslo", 4.5)),
        call(id="c6", result=["chart", Image.from_bytes(PNG, name="chart.png"), {"n": 1}]),
        call(id="c7", result=Unwritable()),
        call(id="c8", result={"nested": [1, 2.5, None, True, {"k": "v"}]}),
    ]
    return LangMessages(
        [
            LangMessage("system", [TextPart("Be brief.", anthropic)]),
            LangMessage(
                "user",
                [
                    TextPart("Look:"),
                    MediaPart(Image.from_bytes(PNG, name="map.png"), anthropic),
                    MediaPart(Image.from_url("https://example.com/cat.jpg")),
                    MediaPart(Document.from_bytes(PDF, name="report.pdf")),
                    MediaPart(Document.from_bytes("héllo".encode(), "text/plain")),
                ],
            ),
            LangMessage(
                "assistant",
                [
                    OpaquePart(redacted, "thinking"),
                    ThinkingPart("Two cities.", signed),
                    OpaquePart(reasoning, "thinking"),
                    TextPart("Checking."),
                    OpaquePart(server, "raw", problem="its input was not JSON"),
                    ToolCallPart(calls[0], thought),
                    *(ToolCallPart(c) for c in calls[1:]),
                ],
            ),
            LangMessage.tool_result(calls[0], "4 °C"),
            LangMessage.tool_result(calls[1], "no", is_error=True, error_type="ValueError"),
            LangMessage(
                "tool",
                [TextPart("chart"), MediaPart(Image.from_bytes(PNG)), TextPart("", anthropic)],
                tool_call_id="c6",
                name="get_weather",
            ),
        ]
    )


def describe(messages: LangMessages) -> list[Any]:
    """Every field of every message, part, state, call and image, for comparison."""
    return [
        (m.role, m.tool_call_id, m.name, m.is_error, m.error_type, [_part(p) for p in m.parts])
        for m in messages
    ]


def _part(part: Any) -> Any:
    fields = {}
    for f in dataclasses.fields(part):
        value = getattr(part, f.name)
        if isinstance(value, FunctionCall):
            value = (
                value.id,
                value.name,
                value.arguments,
                value.raw_arguments,
                value.provider,
                value.status,
                _result(value.result),
                value.error,
                value.synthetic_id,
            )
        fields[f.name] = value
    return type(part).__name__, fields


def _result(value: Any) -> Any:
    if isinstance(value, list):
        return [_result(v) for v in value]
    if isinstance(value, Media):
        return (type(value).__name__, value.media_type, value.url, value.name, value.data)
    return value


def test_everything_reads_back_as_it_was() -> None:
    messages = everything()
    back = LangMessages.from_json(messages.to_json())
    original, read = describe(messages), describe(back)
    # Two results are JSON data once read: what the model was sent, and the repr of a
    # value nothing could write.
    calls = read[2][5]
    assert calls[9][1]["call"][6] == {"city": "Oslo", "celsius": 4.5}
    assert calls[11][1]["call"][6] == "<Unwritable 7>"
    original[2][5][9][1]["call"] = calls[9][1]["call"]
    original[2][5][11][1]["call"] = calls[11][1]["call"]
    assert read == original


def test_a_document_written_again_is_the_same_text() -> None:
    text = everything().to_json()
    assert LangMessages.from_json(text).to_json() != text  # the two results above, once
    again = LangMessages.from_json(text).to_json()
    assert LangMessages.from_json(again).to_json() == again


def test_the_document_spells_out_each_field() -> None:
    messages = LangMessages(
        [
            LangMessage(
                "user", [TextPart("Hi", ProviderState("anthropic", {"cache_control": {}}))]
            ),
            LangMessage(
                "assistant",
                [
                    ThinkingPart("Hm.", ProviderState("anthropic", {"signature": "sig"})),
                    ToolCallPart(call(), ProviderState("gemini", {"thoughtSignature": "t"})),
                    OpaquePart(ProviderState("anthropic", {"block": {"type": "x"}}), "raw", "cut"),
                ],
            ),
            LangMessage("tool", [MediaPart(Image.from_bytes(PNG, name="a.png"))], "toolu_1", "w"),
        ]
    )
    assert messages.to_jsonable() == {
        "aiwrapper": 1,
        "messages": [
            {
                "role": "user",
                "parts": [
                    {
                        "type": "text",
                        "text": "Hi",
                        "state": {"provider": "anthropic", "data": {"cache_control": {}}},
                    }
                ],
            },
            {
                "role": "assistant",
                "parts": [
                    {
                        "type": "thinking",
                        "text": "Hm.",
                        "state": {"provider": "anthropic", "data": {"signature": "sig"}},
                    },
                    {
                        "type": "tool_call",
                        "call": {
                            "id": "toolu_1",
                            "name": "get_weather",
                            "arguments": {"city": "Oslo"},
                            "raw_arguments": '{"city": "Oslo"}',
                            "status": "done",
                            "provider": "anthropic",
                        },
                        "state": {"provider": "gemini", "data": {"thoughtSignature": "t"}},
                    },
                    {
                        "type": "opaque",
                        "kind": "raw",
                        "problem": "cut",
                        "state": {"provider": "anthropic", "data": {"block": {"type": "x"}}},
                    },
                ],
            },
            {
                "role": "tool",
                "parts": [
                    {
                        "type": "media",
                        "kind": "image",
                        "media_type": "image/png",
                        "name": "a.png",
                        "data": base64.b64encode(PNG).decode(),
                    }
                ],
                "tool_call_id": "toolu_1",
                "name": "w",
            },
        ],
    }


# A field added to any of these must be written and read by the document (and the version
# raised): this list is the document's, field by field.
KNOWN_FIELDS = {
    LangMessage: ["role", "parts", "tool_call_id", "name", "is_error", "error_type"],
    FunctionCall: [
        "id", "name", "arguments", "raw_arguments", "provider", "status", "result", "error",
        "synthetic_id", "_checked_raw",
    ],
    TextPart: ["text", "state"],
    ThinkingPart: ["text", "state"],
    ToolCallPart: ["call", "state"],
    OpaquePart: ["state", "kind", "problem"],
    MediaPart: ["media", "state"],
    ProviderState: ["provider", "data"],
    # _encoded and _data_url are caches of the bytes' base64 forms: nothing to keep.
    Image: ["media_type", "url", "name", "_data", "_encoded", "_data_url"],
    Document: ["media_type", "url", "name", "_data", "_encoded", "_data_url"],
}  # fmt: skip


@pytest.mark.parametrize("cls", list(KNOWN_FIELDS), ids=lambda c: c.__name__)
def test_every_field_of_the_conversation_is_one_the_document_knows(cls: type) -> None:
    assert [f.name for f in dataclasses.fields(cls)] == KNOWN_FIELDS[cls]


def test_the_plain_form_shares_nothing_with_the_conversation() -> None:
    messages = everything()
    document = messages.to_jsonable()
    document["messages"][2]["parts"][1]["state"]["data"]["signature"] = "forged"
    document["messages"][2]["parts"][5]["call"]["arguments"]["city"] = "Rome"
    assert messages[2].parts[1].state == ProviderState(
        "anthropic", {"signature": "EqQBCkYIBxgC+/=="}
    )
    assert messages[2].tool_calls[0].arguments == {"city": "Oslo"}
    back = LangMessages.from_jsonable(document)
    document["messages"][2]["parts"][1]["state"]["data"]["signature"] = "later"
    assert back[2].parts[1].state == ProviderState("anthropic", {"signature": "forged"})


def test_text_with_a_lone_surrogate_is_escaped_and_reads_back() -> None:
    messages = LangMessages([LangMessage.text("user", "half \ud83d of an emoji, ß")])
    text = messages.to_json()
    assert text.isascii()
    text.encode("utf-8")  # writable to a file as it is
    assert LangMessages.from_json(text)[0].content == "half \ud83d of an emoji, ß"
    plain = LangMessages([LangMessage.text("user", "ß")]).to_json()
    assert '"ß"' in plain  # non-ASCII text is kept as it is otherwise


def test_json_text_as_bytes_reads_too() -> None:
    text = everything().to_json()
    assert describe(LangMessages.from_json(text.encode())) == describe(LangMessages.from_json(text))


def test_to_dict_says_it_is_the_lossy_form() -> None:
    doc = LangMessage.to_dict.__doc__ or ""
    assert "lossy" in doc
    assert "to_json" in doc


# --- what cannot be written ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("part", "where", "problem"),
    [
        (
            ThinkingPart("x", ProviderState("anthropic", {"n": float("nan")})),
            "messages[0].parts[0].state.data.n",
            "nan is not a JSON number",
        ),
        (
            TextPart("x", ProviderState("anthropic", {"tags": {"a"}})),
            "messages[0].parts[0].state.data.tags",
            "set is not JSON data",
        ),
        (
            TextPart("x", ProviderState("anthropic", {1: "one"})),  # type: ignore[dict-item]
            "messages[0].parts[0].state.data",
            "the key 1 is not a string",
        ),
        (
            ToolCallPart(call(arguments={"when": float("inf")})),
            "messages[0].parts[0].call.arguments.when",
            "inf is not a JSON number",
        ),
        ("not a part", "messages[0].parts[0]", "str is not a part this version knows"),
    ],
)
def test_what_json_cannot_hold_is_refused_naming_its_place(
    part: Any, where: str, problem: str
) -> None:
    messages = LangMessages([LangMessage("assistant", [part])])
    with pytest.raises(ConfigError) as raised:
        messages.to_json()
    assert str(raised.value) == f"cannot write the conversation as JSON: {where}: {problem}"


def test_state_nested_past_the_limit_is_refused_when_written() -> None:
    data: dict[str, Any] = {}
    inner = data
    for _ in range(150):
        inner["d"] = {}
        inner = inner["d"]
    messages = LangMessages([LangMessage("assistant", [TextPart("x", ProviderState("p", data))])])
    with pytest.raises(ConfigError, match="nested deeper than 100 levels"):
        messages.to_json()


# --- what cannot be read ------------------------------------------------------------------


def valid() -> dict[str, Any]:
    return LangMessages(
        [
            LangMessage.text("user", "Hi"),
            LangMessage(
                "assistant",
                [
                    TextPart("a"),
                    ThinkingPart("t", ProviderState("p", {"s": 1})),
                    ToolCallPart(call()),
                ],
            ),
            LangMessage("tool", [MediaPart(Image.from_bytes(PNG))], tool_call_id="toolu_1"),
        ]
    ).to_jsonable()


def edited(path: list[Any], value: Any) -> dict[str, Any]:
    document = valid()
    target = document
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return document


PART = ["messages", 1, "parts", 1]
CALL = ["messages", 1, "parts", 2, "call"]
MEDIA = ["messages", 2, "parts", 0]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        (edited(["messages"], {"0": {}}), "messages: expected a list, not an object"),
        (edited(["messages", 0], []), "messages[0]: expected an object, not a list"),
        (edited(["messages", 0, "role"], "robot"), "messages[0].role: expected one of"),
        (edited(["messages", 0, "parts"], KeyError), "messages[0]: missing 'parts'"),
        (edited(["messages", 0, "extra"], 1), "messages[0]: unknown field 'extra'"),
        (edited(["messages", 0, "is_error"], "yes"), "messages[0].is_error: expected true or"),
        (edited(["messages", 0, "name"], 5), "messages[0].name: expected a string, not a number"),
        (edited([*PART, "state"], []), "messages[1].parts[1].state: expected an object, not a"),
        (edited([*PART, "state", "data"], "x"), "messages[1].parts[1].state.data: expected an"),
        (edited([*PART, "state", "provider"], None), "messages[1].parts[1].state.provider: exp"),
        (edited([*PART, "type"], "video"), "messages[1].parts[1].type: expected one of text,"),
        (edited([*PART, "text"], ["t"]), "messages[1].parts[1].text: expected a string, not a l"),
        (edited(["messages", 1, "parts", 0], "a"), "messages[1].parts[0]: expected an object, "),
        (edited([*CALL, "status"], "maybe"), "messages[1].parts[2].call.status: expected one of"),
        (edited([*CALL, "arguments"], "{}"), "messages[1].parts[2].call.arguments: expected an"),
        (edited([*CALL, "id"], KeyError), "messages[1].parts[2].call: missing 'id'"),
        (edited([*CALL, "synthetic_id"], 1), "messages[1].parts[2].call.synthetic_id: expected"),
        (edited([*CALL, "result"], {"value": 1, "x": 2}), "parts[2].call.result: unknown field"),
        (edited([*CALL, "result"], {"items": 3}), "call.result.items: expected a list, not a"),
        (edited([*CALL, "result"], [1]), "parts[2].call.result: expected an object, not a list"),
        (edited([*MEDIA, "kind"], "video"), "messages[2].parts[0].kind: expected 'image' or 'doc"),
        (edited([*MEDIA, "media_type"], "image/svg"), "parts[0].media_type: 'image/svg' is not"),
        (edited([*MEDIA, "data"], "not base64!"), "messages[2].parts[0].data: not valid base64"),
        (edited([*MEDIA, "data"], ""), "messages[2].parts[0].data: empty"),
        (edited([*MEDIA, "url"], "https://x/a.png"), "messages[2].parts[0]: needs either 'url' "),
        (edited([*MEDIA, "data"], KeyError), "messages[2].parts[0]: needs either 'url' or 'data"),
        (edited(["aiwrapper"], "1"), "aiwrapper: the version must be a whole number, not '1'"),
        (edited(["aiwrapper"], True), "aiwrapper: the version must be a whole number, not True"),
        (edited(["aiwrapper"], 0), "aiwrapper: the version must be a whole number, not 0"),
        (edited(["more"], 1), "document: unknown field 'more'"),
        (edited(["messages"], KeyError), "document: missing 'messages'"),
    ],
)
def test_a_malformed_document_is_refused_naming_the_place(document: Any, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        LangMessages.from_jsonable(document)
    assert message in str(raised.value)
    with pytest.raises(ConfigError) as again:  # the same through JSON text
        LangMessages.from_json(json.dumps(document))
    assert str(again.value) == str(raised.value)


def test_a_document_of_a_newer_version_asks_for_a_newer_aiwrapper() -> None:
    with pytest.raises(ConfigError) as raised:
        LangMessages.from_json(json.dumps({"aiwrapper": VERSION + 1, "messages": [], "new": 1}))
    assert str(raised.value) == (
        "this conversation document is of version 2, written by a newer aiwrapper; this one "
        "reads version 1: upgrade aiwrapper to read it"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "not a conversation document: expected an object with an 'aiwrapper'"),
        ('{"messages": []}', "not a conversation document"),
        ("{", "a conversation document must be JSON text"),
        ('{"aiwrapper": 1, "messages": [NaN]}', "NaN is not JSON"),
        ("[" * 100_000 + "]" * 100_000, "must be JSON text"),
        ('{"aiwrapper": 1, "messages": [], "n": ' + "9" * 50_000 + "}", "must be JSON text"),
    ],
    ids=["list", "no-version", "broken", "nan", "deep-text", "huge-number"],
)
def test_text_that_is_no_document_is_refused(text: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        LangMessages.from_json(text)


def test_values_nested_past_the_limit_are_refused_naming_where() -> None:
    deep: Any = "end"
    for _ in range(150):
        deep = [deep]
    document = edited([*PART, "state", "data"], {"x": deep})
    with pytest.raises(ConfigError) as raised:
        LangMessages.from_json(json.dumps(document))
    assert "messages[1].parts[1].state.data.x[0][0]" in str(raised.value)
    assert "nested deeper than 100 levels" in str(raised.value)


@pytest.mark.parametrize("given", [None, 42, 4.5, ["{}"], object()])
def test_from_json_takes_text_only(given: Any) -> None:
    with pytest.raises(ConfigError, match="a conversation document is JSON text, not"):
        LangMessages.from_json(given)


def test_a_huge_document_of_many_messages_reads() -> None:
    messages = LangMessages([LangMessage.text("user", "x" * 1000)] * 2000)
    assert len(LangMessages.from_json(messages.to_json())) == 2000
