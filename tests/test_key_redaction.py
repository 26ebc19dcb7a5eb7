"""API keys never leak: whitespace around a key (read from a file) is stripped at the factory,
and a key that still cannot be sent fails with an error that hides it, before httpx or
httpcore could log it. Checked against a real socket, with every logger at DEBUG."""

from __future__ import annotations

import json
import logging
import threading
import traceback
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from aiwrapper import AuthenticationError, ConfigError, Lang
from aiwrapper._wire._httpcall import HttpCall

pytestmark = pytest.mark.anyio

SECRET = "sk-" + "redactme" * 3
WRAPPED = [SECRET, SECRET + "\n", f"  {SECRET} ", SECRET + "\r\n", f"\t{SECRET}\n"]
BROKEN = [SECRET[:8] + "\n" + SECRET[8:], SECRET[:8] + "\x00" + SECRET[8:] + "\n"]
OPENAI_ANSWER = {
    "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}}],
    "finish_reason": "stop",
}


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict[str, str]]
    status = 200

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.seen.append(dict(self.headers.items()))
        refused = {"error": {"message": "Incorrect API key provided", "type": "invalid_api_key"}}
        body = json.dumps(OPENAI_ANSWER if self.status == 200 else refused).encode()
        self.send_response(self.status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[dict[str, str]]]]:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(name, raising=False)
    seen: list[dict[str, str]] = []
    handler = type("Handler", (_Handler,), {"seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", seen
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    for name in (None, "httpx", "httpcore", "aiwrapper", "hpack", "h11"):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def assert_no_key(logs: pytest.LogCaptureFixture, *texts: str) -> None:
    core = SECRET[3:11]  # any sizeable piece of the key
    for record in logs.records:
        assert core not in record.getMessage()
        assert core not in (logging.Formatter().format(record))
    for text in texts:
        assert core not in text


def exception_text(exc: BaseException) -> str:
    return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)) + repr(exc)


@pytest.mark.parametrize("key", WRAPPED)
async def test_whitespace_around_a_key_is_stripped(
    key: str, server: tuple[str, list[dict[str, str]]], logs: pytest.LogCaptureFixture
) -> None:
    url, seen = server
    lang = Lang.openai_compatible(url, model="m", api_key=key, options={"stream": False})
    result = await lang.ask("hi")
    await lang.aclose()
    assert result.answer == "hi"
    assert seen[0]["Authorization"] == f"Bearer {SECRET}"
    assert logs.records  # httpx and httpcore did log at DEBUG
    assert_no_key(logs, repr(lang), repr(lang.model))


@pytest.mark.parametrize("key", BROKEN)
async def test_a_key_that_cannot_be_sent_is_hidden_everywhere(
    key: str, server: tuple[str, list[dict[str, str]]], logs: pytest.LogCaptureFixture
) -> None:
    url, seen = server
    lang = Lang.openai_compatible(url, model="m", api_key=key)
    with pytest.raises(ConfigError, match="Authorization") as info:
        await lang.ask("hi")
    await lang.aclose()
    assert seen == []
    assert_no_key(logs, exception_text(info.value))


@pytest.mark.parametrize(
    "make",
    [
        lambda key: Lang.openai(api_key=key),
        lambda key: Lang.anthropic(api_key=key),
        lambda key: Lang.gemini(api_key=key),
        lambda key: Lang.ollama(api_key=key),
        lambda key: Lang.openai_compatible(preset="groq", model="m", api_key=key),
    ],
)
@pytest.mark.parametrize("key", WRAPPED)
def test_every_factory_strips_the_key(make: Callable[[str], Lang], key: str) -> None:
    sent = _headers_of(make(key))
    assert SECRET in sent.values() or f"Bearer {SECRET}" in sent.values()


@pytest.mark.parametrize("variable", ["OPENAI_API_KEY"])
def test_a_key_from_the_environment_is_stripped(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(variable, SECRET + "\n")
    assert _headers_of(Lang.openai())["Authorization"] == f"Bearer {SECRET}"


def test_a_blank_key_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        Lang.openai(api_key=" \n")


def test_an_http_call_repr_hides_its_headers() -> None:
    call = HttpCall("http://x/", {"authorization": f"Bearer {SECRET}"}, {}, stream=False)
    assert SECRET not in repr(call)


def _headers_of(lang: Lang) -> dict[str, str]:
    from aiwrapper._run._contract import ProviderRequest
    from aiwrapper._run._options import LangOptions

    request = ProviderRequest(model="m", messages=[], tools=[], options=LangOptions(), stream=False)
    return lang.model.provider.encode(request).headers  # type: ignore[attr-defined,no-any-return]


@pytest.mark.parametrize("key", WRAPPED)
async def test_a_refused_key_is_not_in_the_error_or_the_logs(
    key: str, server: tuple[str, list[dict[str, str]]], logs: pytest.LogCaptureFixture
) -> None:
    url, seen = server
    _Handler.status = 401
    try:
        lang = Lang.openai_compatible(url, model="m", api_key=key, max_retries=0)
        with pytest.raises(AuthenticationError) as info:
            await lang.ask("hi")
        await lang.aclose()
    finally:
        _Handler.status = 200
    assert seen[0]["Authorization"] == f"Bearer {SECRET}"
    assert_no_key(logs, exception_text(info.value), repr(info.value.body))
