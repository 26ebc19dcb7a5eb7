"""Images and documents through the gateway's Chat Completions front-end.

The official ``openai`` SDK (against uvicorn on 127.0.0.1) and aiwrapper's own Chat Completions
client (in process, through ``httpx.ASGITransport``) send images and PDFs in prompts and tool
results; scripted backends show what the gateway read, a MockTransport OpenAI backend what it
sent on. Malformed parts are 400s in OpenAI's error shape naming the part.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper._conversation._messages import LangMessage, MediaPart, TextPart
from aiwrapper.gateway import Gateway

from ..providers.chat_media import BLUE_PNG, PDF, RED_PNG, quarterly_report, sales_chart
from ..seeds.wires import WIRES, recording_client
from ..vendor_sdks import openai
from .harness import served

RED_URL = "data:image/png;base64," + base64.b64encode(RED_PNG).decode()
BLUE_URL = "data:image/png;base64," + base64.b64encode(BLUE_PNG).decode()
PDF_DATA = "data:application/pdf;base64," + base64.b64encode(PDF).decode()
PROMPT: list[Any] = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "What do these show?"},
            {"type": "image_url", "image_url": {"url": RED_URL, "detail": "high"}},
            {"type": "file", "file": {"filename": "q3.pdf", "file_data": PDF_DATA}},
        ],
    }
]
CALLS = {
    "function_calls": [
        {"name": "sales_chart", "arguments": {"city": "Oslo"}, "id": "call_chart"},
        {"name": "quarterly_report", "arguments": {"city": "Rome"}, "id": "call_report"},
    ]
}
GATEWAY = Gateway({})


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with served(GATEWAY) as url:
        yield url


@pytest.fixture(scope="module")  # a client per module: each new one loads the CA bundle
def client(base_url: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=base_url + "/v1", api_key="unused", max_retries=0) as sdk:
        yield sdk


def scripted(turns: list[Any], name: str = "scripted") -> Lang:
    lang = Lang.scripted(turns)
    GATEWAY.routes[name] = lang
    return lang


def shown(message: LangMessage) -> list[Any]:
    """A message's parts as plain values: text, or (class, type, bytes or URL, name, state)."""
    return [
        part.text
        if isinstance(part, TextPart)
        else (
            type(part.media).__name__,
            part.media.media_type,
            part.media.data or part.media.url,
            part.media.name,
            part.state.data if part.state else None,
        )
        for part in message.parts
        if isinstance(part, (TextPart, MediaPart))
    ]


RED = ("Image", "image/png", RED_PNG, None, None)
BLUE = ("Image", "image/png", BLUE_PNG, None, None)
Q3 = ("Document", "application/pdf", PDF, "q3.pdf", None)


def test_an_image_and_a_pdf_from_the_sdk_reach_the_backend_as_parts(
    client: openai.OpenAI,
) -> None:
    lang = scripted(["A red square and a one-page report."])
    answer = client.chat.completions.create(model="scripted", messages=PROMPT)
    assert answer.choices[0].message.content == "A red square and a one-page report."
    (message,) = lang.requests[0].messages
    assert shown(message) == [
        "What do these show?",
        ("Image", "image/png", RED_PNG, None, {"detail": "high"}),
        Q3,
    ]


def test_an_image_by_https_url_goes_on_by_reference(client: openai.OpenAI) -> None:
    lang = scripted(["A cat."])
    url = "https://example.com/cat.png"
    content = [{"type": "image_url", "image_url": {"url": url}}]
    client.chat.completions.create(
        model="scripted", messages=[{"role": "user", "content": content}]
    )
    assert shown(lang.requests[0].messages[0]) == [("Image", "image/png", url, None, None)]


def _openai_backend(sent: list[dict[str, Any]], answers: list[bytes]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, content=answers[len(sent) - 1], headers=headers)

    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    GATEWAY.routes["chat"] = Lang.openai(api_key="sk-up", max_retries=0, http_client=client)


def test_a_chat_completions_backend_gets_the_clients_parts_back_unchanged(
    client: openai.OpenAI,
) -> None:
    sent: list[dict[str, Any]] = []
    _openai_backend(sent, [WIRES["openai"].text("Seen.", "gpt-4o-mini")])
    answer = client.chat.completions.create(model="chat", messages=PROMPT)
    assert answer.choices[0].message.content == "Seen."
    assert sent[0]["messages"] == PROMPT  # the detail asked for included


def _tool_turn(client: openai.OpenAI) -> list[Any]:
    """A prompt, the scripted backend's two calls, and their results with media."""
    ask: list[Any] = [{"role": "user", "content": "Chart Oslo, report on Rome."}]
    first = client.chat.completions.create(model="scripted", messages=ask)
    turn = first.choices[0].message.model_dump(exclude_none=True)
    return _with_media(ask, turn, ["call_chart", "call_report"])


def _with_media(ask: list[Any], turn: Any, ids: list[str]) -> list[Any]:
    """``ask`` and ``turn`` continued by the calls' results holding media, as aiwrapper's
    client writes them: text in the tool messages, the media in one user message after."""
    chart, report = ids
    image_note = "[image/png image attached below]"
    pdf_note = "[application/pdf document attached below]"
    return [
        *ask,
        turn,
        {"role": "tool", "tool_call_id": chart, "content": f"Sales.\n{image_note}"},
        {"role": "tool", "tool_call_id": report, "content": f"Report.\n{image_note}\n{pdf_note}"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": f"Output of tool call {chart}:"},
                {"type": "image_url", "image_url": {"url": RED_URL}},
                {"type": "text", "text": f"Output of tool call {report}:"},
                {"type": "image_url", "image_url": {"url": BLUE_URL}},
                {"type": "file", "file": {"filename": "q3.pdf", "file_data": PDF_DATA}},
            ],
        },
    ]


def test_the_follow_up_of_tool_media_is_read_back_into_the_tool_results(
    client: openai.OpenAI,
) -> None:
    lang = scripted([CALLS, "Both seen."])
    messages = _tool_turn(client)
    answer = client.chat.completions.create(model="scripted", messages=messages)
    assert answer.choices[0].message.content == "Both seen."
    sent = lang.requests[1].messages
    assert [(m.role, m.tool_call_id) for m in sent] == [
        ("user", None),
        ("assistant", None),
        ("tool", "call_chart"),
        ("tool", "call_report"),
    ]
    assert shown(sent[2]) == ["Sales.", RED]
    assert shown(sent[3]) == ["Report.", BLUE, Q3]


def test_the_follow_up_reaches_a_chat_completions_backend_as_the_client_sent_it(
    client: openai.OpenAI,
) -> None:
    scripted([CALLS])
    messages = _tool_turn(client)
    sent: list[dict[str, Any]] = []
    _openai_backend(sent, [WIRES["openai"].text("Both seen.", "gpt-4o-mini")])
    client.chat.completions.create(model="chat", messages=messages)
    assert sent[0]["messages"][2:] == messages[2:]


def test_a_user_message_that_only_looks_like_a_follow_up_stays_a_user_message(
    client: openai.OpenAI,
) -> None:
    lang = scripted([CALLS, "ok"])
    messages = _tool_turn(client)
    messages[-1]["content"][0]["text"] = "Output of tool call call_unknown:"
    client.chat.completions.create(model="scripted", messages=messages)
    sent = lang.requests[1].messages
    assert [m.role for m in sent] == ["user", "assistant", "tool", "tool", "user"]
    assert sent[2].content == "Sales.\n[image/png image attached below]"
    assert shown(sent[4])[0] == "Output of tool call call_unknown:"


def test_image_parts_in_a_tool_message_become_parts_of_the_result(
    client: openai.OpenAI,
) -> None:
    lang = scripted([CALLS, "ok"])
    messages = _tool_turn(client)[:3]
    messages[2]["content"] = [
        {"type": "text", "text": "Sales "},
        {"type": "text", "text": "in Oslo."},
        {"type": "image_url", "image_url": {"url": RED_URL}},
    ]
    messages.append({"role": "tool", "tool_call_id": "call_report", "content": "none"})
    client.chat.completions.create(model="scripted", messages=messages)
    result = lang.requests[1].messages[2]
    assert (result.role, result.tool_call_id) == ("tool", "call_chart")
    assert shown(result) == ["Sales in Oslo.", RED]


# --- other wires behind the front-end ----------------------------------------------------------

WIRE_CALLS = [
    ("c_chart", "sales_chart", '{"city": "Oslo"}'),
    ("c_report", "quarterly_report", '{"city": "Rome"}'),
]
TOOLS = [
    {"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}
    for name in ("sales_chart", "quarterly_report")
]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _gemini_results(body: dict[str, Any]) -> list[Any]:
    responses, media = body["contents"][2:]
    outputs = [p["functionResponse"]["response"]["output"] for p in responses["parts"]]
    return [outputs, [p["inlineData"]["data"] for p in media["parts"] if "inlineData" in p]]


def _responses_results(body: dict[str, Any]) -> list[Any]:
    outputs = [i["output"] for i in body["input"] if i["type"] == "function_call_output"]
    return [[p.get("text") or p.get("image_url") or p["file_data"] for p in o] for o in outputs]


# What the backend's second request holds for the results: each wire's native place.
EXPECTED_RESULTS = {
    "gemini": (
        _gemini_results,
        [["Sales.", "Report."], [_b64(RED_PNG), _b64(BLUE_PNG), _b64(PDF)]],
    ),
    "openai-responses": (
        _responses_results,
        [["Sales.", RED_URL], ["Report.", BLUE_URL, PDF_DATA]],
    ),
}


@pytest.mark.parametrize("wire", sorted(EXPECTED_RESULTS))
def test_tool_media_from_a_chat_client_reach_each_wires_own_place(
    client: openai.OpenAI, wire: str
) -> None:
    sent: list[dict[str, Any]] = []
    answers = [WIRES[wire].calls(WIRE_CALLS, False, "m"), WIRES[wire].text("Seen.", "m")]
    recording = recording_client(WIRES[wire], answers, sent, over_socket=False)
    GATEWAY.routes[wire] = WIRES[wire].make(recording)
    ask: list[Any] = [{"role": "user", "content": "Chart Oslo, report on Rome."}]
    turn = client.chat.completions.create(model=wire, messages=ask, tools=TOOLS).choices[0]
    ids = [call.id for call in turn.message.tool_calls or ()]
    messages = _with_media(ask, turn.message.model_dump(exclude_none=True), ids)
    answer = client.chat.completions.create(model=wire, messages=messages, tools=TOOLS)
    assert answer.choices[0].message.content == "Seen."
    read, expected = EXPECTED_RESULTS[wire]
    assert read(sent[1]) == expected
    assert "Output of tool call" not in json.dumps(sent[1])


# --- aiwrapper's own client through the gateway -------------------------------------------


@pytest.mark.anyio
async def test_aiwrappers_chat_client_runs_media_tools_through_the_gateway() -> None:
    backend = Lang.scripted([CALLS, "Both seen."])
    transport = httpx.ASGITransport(app=Gateway({"m": backend}), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        client = Lang.openai("m", api_key="-", base_url="http://127.0.0.1/v1", http_client=http)
        result = await client.ask("Chart Oslo.", functions=[sales_chart, quarterly_report])
    assert result.answer == "Both seen."
    chart, report = backend.requests[1].messages[2:]
    assert shown(chart) == ["Sales in Oslo, by month.", RED]
    assert shown(report) == ["Report for Rome.", BLUE, Q3]


# --- malformed parts ---------------------------------------------------------------------------


async def post(backend: Lang, content: list[Any]) -> httpx.Response:
    """One user message of ``content`` posted in process to a gateway serving ``backend``."""
    body = {"model": "m", "messages": [{"role": "user", "content": content}]}
    transport = httpx.ASGITransport(app=Gateway({"m": backend}), client=("127.0.0.1", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
        return await http.post("/v1/chat/completions", json=body)


PNG_AS_JPEG = "data:image/jpeg;base64," + base64.b64encode(RED_PNG).decode()
PDF_AS_PNG = "data:image/png;base64," + base64.b64encode(PDF).decode()
AT = "messages[0].content[1]"
HOSTILE: list[tuple[Any, str, str]] = [
    ({"type": "image_url", "image_url": RED_URL}, f"{AT}.image_url", "must be an object"),
    ({"type": "image_url", "image_url": {"url": 5}}, f"{AT}.image_url.url", "must be a string"),
    ({"type": "image_url", "image_url": {}}, f"{AT}.image_url.url", "must be a string"),
    (
        {"type": "image_url", "image_url": {"url": "http://10.0.0.1/x.png"}},
        f"{AT}.image_url.url",
        "https:// or a data: URL",
    ),
    (
        {"type": "image_url", "image_url": {"url": "gs://bucket/x.png"}},
        f"{AT}.image_url.url",
        "https:// or a data: URL",
    ),
    (
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,***"}},
        f"{AT}.image_url.url",
        "base64 is invalid",
    ),
    (
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,"}},
        f"{AT}.image_url.url",
        "empty",
    ),
    (
        {"type": "image_url", "image_url": {"url": PNG_AS_JPEG}},
        f"{AT}.image_url.url",
        "the bytes are image/png, not the stated image/jpeg",
    ),
    (
        {"type": "image_url", "image_url": {"url": PDF_AS_PNG}},
        f"{AT}.image_url.url",
        "the bytes are application/pdf",
    ),
    (
        {"type": "image_url", "image_url": {"url": RED_URL, "detail": "ultra"}},
        f"{AT}.image_url.detail",
        "'detail' must be one of",
    ),
    ({"type": "file", "file": PDF_DATA}, f"{AT}.file", "must be an object"),
    ({"type": "file", "file": {"file_id": "file-abc"}}, f"{AT}.file.file_id", "file_data"),
    ({"type": "file", "file": {"filename": "a.pdf"}}, f"{AT}.file.file_data", "a string"),
    (
        {"type": "file", "file": {"file_data": "not base64!"}},
        f"{AT}.file.file_data",
        "neither a data: URL nor valid base64",
    ),
    (
        {"type": "file", "file": {"file_data": RED_URL}},
        f"{AT}.file.file_data",
        "Document does not take 'image/png'",
    ),
    (
        {"type": "file", "file": {"file_data": PDF_DATA, "filename": ["a"]}},
        f"{AT}.file.filename",
        "must be a string",
    ),
    ({"type": "video_url", "video_url": {}}, f"{AT}.type", "unknown content part type 'video_url'"),
    ({"type": None}, f"{AT}.type", "unknown content part type None"),
    ({"type": "input_audio", "input_audio": {}}, f"{AT}.type", "audio input is not supported"),
    ({"type": "text", "text": ["a"]}, f"{AT}.text", "must be a string"),
]


@pytest.mark.anyio
@pytest.mark.parametrize(("part", "param", "said"), HOSTILE)
async def test_a_malformed_part_is_a_400_naming_it(part: Any, param: str, said: str) -> None:
    backend = Lang.scripted(["never sent"])
    content = [{"type": "image_url", "image_url": {"url": RED_URL}}, part]
    response = await post(backend, content)
    assert response.status_code == 400
    error = response.json()["error"]
    assert (error["type"], error["param"]) == ("invalid_request_error", param)
    assert said in error["message"]
    assert backend.requests == []


@pytest.mark.anyio
async def test_a_part_that_is_not_an_object_beside_an_image_is_a_400() -> None:
    content = ["hello", {"type": "image_url", "image_url": {"url": RED_URL}}]
    response = await post(Lang.scripted(["x"]), content)
    assert response.status_code == 400
    assert response.json()["error"]["param"] == "messages[0].content[0]"


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("file", "expected"),
    [
        (
            {"filename": "q3.pdf", "file_data": base64.b64encode(PDF).decode()},
            ("Document", "application/pdf", PDF, "q3.pdf", None),
        ),
        (
            {"filename": "notes.txt", "file_data": base64.b64encode(b"All fine.").decode()},
            ("Document", "text/plain", b"All fine.", "notes.txt", None),
        ),
        (
            {"file_data": "data:text/plain;base64," + base64.b64encode(b"Hi").decode()},
            ("Document", "text/plain", b"Hi", None, None),
        ),
    ],
)
async def test_file_data_as_bare_base64_or_a_data_url_is_read(
    file: dict[str, str], expected: tuple[Any, ...]
) -> None:
    backend = Lang.scripted(["ok"])
    content = [{"type": "file", "file": file}]
    response = await post(backend, content)
    assert response.status_code == 200
    assert shown(backend.requests[0].messages[0]) == [expected]
