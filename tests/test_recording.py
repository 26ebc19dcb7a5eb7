"""Record and replay: a run recorded against a local server on 127.0.0.1 replays offline."""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import httpx
import pytest

from aiwrapper import Lang, tool
from aiwrapper.testing import ReplayMismatchError, cassette
from aiwrapper.testing import _recording as recording
from aiwrapper.testing._cassettesecrets import Secrets

KEY = "sk-local-0123456789abcdef"
CALL = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "local",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
}
ANSWER_CHUNKS = [
    {"id": "c2", "object": "chat.completion.chunk", "model": "local",
     "choices": [{"index": 0, "delta": {"role": "assistant", "content": "2 + 3 = "}}]},
    {"id": "c2", "object": "chat.completion.chunk", "model": "local",
     "choices": [{"index": 0, "delta": {"content": "5"}, "finish_reason": "stop"}]},
]  # fmt: skip


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


class _Handler(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, str]]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.seen.append(dict(self.headers))
        if body.get("stream"):
            data = b"".join(f"data: {json.dumps(c)}\n\n".encode() for c in ANSWER_CHUNKS)
            self._send(data + b"data: [DONE]\n\n", "text/event-stream")
        else:
            self._send(json.dumps(CALL).encode(), "application/json")

    def _send(self, data: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("x-request-id", "req_local")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    httpd.shutdown()
    httpd.server_close()


def _run(base_url: str, client: httpx.AsyncClient, prompt: str = "What is 2 + 3?") -> str:
    lang = Lang.openai_compatible(
        base_url=base_url,
        model="local",
        api_key=KEY,
        http_client=client,
    )
    # The first turn unstreamed, the second streamed: both kinds of body go on the cassette.
    first = lang.ask_sync(prompt, functions=[add], stream=False, auto_execute=False)
    messages = first.messages.add_tool_result(first.function_calls[0], 5)
    return lang.chat_sync(messages, functions=[add]).answer


def test_a_recording_replays_offline_with_the_keys_redacted(server: str, tmp_path: Path) -> None:
    path = tmp_path / "cassettes" / "add.json"
    assert _run(server, cassette(path, record=True)) == "2 + 3 = 5"
    assert _Handler.seen[-1]["Authorization"] == f"Bearer {KEY}"  # the real key went out
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    exchanges = json.loads(text)["exchanges"]
    assert [e["request"]["headers"]["authorization"] for e in exchanges] == ["REDACTED"] * 2
    assert exchanges[1]["response"]["body"].startswith("data: ")
    seen = len(_Handler.seen)
    assert _run(server, cassette(path)) == "2 + 3 = 5"
    assert len(_Handler.seen) == seen  # replayed: the server heard nothing more


def test_a_request_that_changed_fails_clearly(server: str, tmp_path: Path) -> None:
    path = tmp_path / "add.json"
    _run(server, cassette(path, record=True))
    expected = (
        r"request #1 does not match its recording: "
        r"body\.messages\[0\]\.content was 'What is 2 \+ 3\?', now 'What is 4 \+ 5\?'"
    )
    with pytest.raises(ReplayMismatchError, match=expected):
        _run(server, cassette(path), prompt="What is 4 + 5?")


def test_a_request_beyond_the_recording_fails_clearly(server: str, tmp_path: Path) -> None:
    path = tmp_path / "add.json"
    _run(server, cassette(path, record=True))
    client = cassette(path)
    _run(server, client)
    with pytest.raises(ReplayMismatchError, match=r"request #3 \(POST .*\) was not recorded"):
        _run(server, client)


def test_a_recorded_request_keeps_the_providers_own_headers_and_redacts_the_secret_ones() -> None:
    headers = {
        "anthropic-version": "2023-06-01",
        "OpenAI-Project": "proj",
        "x-goog-user-project": "gcp",
        "x-api-key": "secret",
        "x-goog-api-key": "secret",
        "api-key": "secret",
        "Cookie": "session",
        "user-agent": "test",
    }
    request = httpx.Request("POST", "https://wire.test/v1/chat", headers=headers, json={})
    assert recording._request_record(request, Secrets())["headers"] == {
        "anthropic-version": "2023-06-01",
        "openai-project": "proj",
        "x-goog-user-project": "gcp",
        "x-api-key": "REDACTED",
        "x-goog-api-key": "REDACTED",
        "api-key": "REDACTED",
        "cookie": "REDACTED",
    }
