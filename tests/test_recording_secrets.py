"""A recorded cassette holds no credential: not in URLs (userinfo, key query parameters), not in
headers, not in request or response bodies that echo one; and it still replays."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper.testing import _recording as recording

pytestmark = pytest.mark.anyio

KEY = "sk-echoed-0123456789abcdef"
PASSWORD = "hunter2-pa55word"
USER = "proxy-user-alice"
ANSWER = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "local",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": f"your key {KEY} and {PASSWORD} work"},
            "finish_reason": "stop",
        }
    ],
}


def _echo(request: httpx.Request) -> httpx.Response:
    """A careless server: it echoes the credentials it was sent, in the body and a header."""
    return httpx.Response(
        200, json=ANSWER, headers={"x-seen-auth": request.headers.get("authorization", "")}
    )


def _recorder(path: Path) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=recording._Recorder(path, inner=httpx.MockTransport(_echo)))


def _lang(base_url: str, client: httpx.AsyncClient, key: str | None = KEY) -> Lang:
    return Lang.openai_compatible(base_url=base_url, model="local", api_key=key, http_client=client)


async def test_a_key_echoed_in_the_response_body_is_redacted(tmp_path: Path) -> None:
    path = tmp_path / "echo.json"
    result = await _lang("http://wire.test/v1", _recorder(path)).ask("hi", stream=False)
    assert KEY in result.answer  # the run saw the real answer
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    recorded = json.loads(text)["exchanges"][0]["response"]
    assert "your key REDACTED and" in recorded["body"]
    assert recorded["headers"]["x-seen-auth"] == "Bearer REDACTED"


async def test_userinfo_in_the_base_url_is_redacted_everywhere(tmp_path: Path) -> None:
    path = tmp_path / "userinfo.json"
    base = f"http://{USER}:{PASSWORD}@wire.test/v1"
    await _lang(base, _recorder(path), key=None).ask("hi", stream=False)
    text = path.read_text(encoding="utf-8")
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    for secret in (USER, PASSWORD, basic):
        assert secret not in text
    request = json.loads(text)["exchanges"][0]["request"]
    assert request["url"] == "http://REDACTED@wire.test/v1/chat/completions"
    assert request["headers"]["authorization"] == "REDACTED"
    # Replayed with the same URL, the redacted request matches its recording.
    replayed = await _lang(base, recording.cassette(path), key=None).ask("hi", stream=False)
    assert replayed.answer == f"your key {KEY} and REDACTED work"  # KEY was not this Lang's


@pytest.mark.parametrize("name", ["apikey", "key", "api_key", "access_token", "x-api-key", "token"])
async def test_a_credential_query_parameter_is_redacted_in_the_url_and_the_bodies(
    tmp_path: Path, name: str
) -> None:
    path = tmp_path / "query.json"
    async with _recorder(path) as client:
        await client.post(
            f"http://wire.test/v1/chat?{name}={KEY}&api-version=2024", json={"echo": KEY}
        )
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    request = json.loads(text)["exchanges"][0]["request"]
    assert request["url"] == f"http://wire.test/v1/chat?{name}=REDACTED&api-version=2024"
    assert request["body"] == {"echo": "REDACTED"}


async def test_a_key_learned_from_one_request_is_redacted_in_later_exchanges(
    tmp_path: Path,
) -> None:
    path = tmp_path / "later.json"
    async with _recorder(path) as client:
        await client.post("http://wire.test/a", headers={"x-api-key": KEY}, json={})
        await client.post("http://wire.test/b", json={"quoted": f"<{KEY}>"})
    text = path.read_text(encoding="utf-8")
    assert KEY not in text
    assert json.loads(text)["exchanges"][1]["request"]["body"] == {"quoted": "<REDACTED>"}


async def test_a_short_credential_is_redacted_where_it_sits_but_not_in_free_text(
    tmp_path: Path,
) -> None:
    # Replacing a 3-letter password in every body would change the bodies a replay compares.
    path = tmp_path / "short.json"
    async with _recorder(path) as client:
        await client.post("http://bob:abc@wire.test/v1", json={"text": "abc"})
    request = json.loads(path.read_text(encoding="utf-8"))["exchanges"][0]["request"]
    assert request["url"] == "http://REDACTED@wire.test/v1"
    assert request["body"] == {"text": "abc"}


async def test_a_body_nested_too_deeply_to_walk_is_recorded_as_text_and_redacted(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deep.json"
    deep = "[" * 5000 + json.dumps(KEY) + "]" * 5000
    async with _recorder(path) as client:
        await client.post("http://wire.test/v1", headers={"x-api-key": KEY}, content=deep)
    request = json.loads(path.read_text(encoding="utf-8"))["exchanges"][0]["request"]
    assert request["body"] == "[" * 5000 + '"REDACTED"' + "]" * 5000
