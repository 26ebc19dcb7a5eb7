"""Google credentials on Vertex AI, through google-auth's real service-account flow.

The token endpoint is a local server (the generated key's ``token_uri`` is on 127.0.0.1), so
each refresh signs a JWT, posts it and reads the answer as it would in production; the model
endpoint is a MockTransport that records the bearer token of each request.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.oauth2 import service_account

from aiwrapper import AuthenticationError, ConfigError, Lang, VertexConfig

pytestmark = pytest.mark.anyio

FIXTURES = Path(__file__).parent.parent / "fixtures"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
GEMINI_TEXT = {
    "candidates": [
        {"content": {"role": "model", "parts": [{"text": "Hi."}]}, "finishReason": "STOP"}
    ],
    "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2, "totalTokenCount": 5},
}


class TokenServer:
    """A local OAuth token endpoint: counts requests and answers ``tok-1``, ``tok-2``..."""

    def __init__(self) -> None:
        self.requests = 0
        self.expires_in = 3600
        self.delay = 0.0
        self.refuse = False
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                with server.lock:
                    server.requests += 1
                    number = server.requests
                time.sleep(server.delay)
                if server.refuse:
                    self._answer(400, {"error": "invalid_grant", "error_description": "no"})
                else:
                    self._answer(
                        200,
                        {
                            "access_token": f"tok-{number}",
                            "token_type": "Bearer",
                            "expires_in": server.expires_in,
                        },
                    )

            def _answer(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.uri = f"http://127.0.0.1:{self.http.server_address[1]}/token"


@pytest.fixture(scope="session")
def private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


@pytest.fixture
def token_server() -> Iterator[TokenServer]:
    server = TokenServer()
    thread = threading.Thread(target=server.http.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield server
    server.http.shutdown()
    server.http.server_close()


@pytest.fixture
def account(private_key: str, token_server: TokenServer) -> dict[str, str]:
    return {
        "type": "service_account",
        "project_id": "my-proj",
        "private_key_id": "key-1",
        "private_key": private_key,
        "client_email": "runner@my-proj.iam.gserviceaccount.com",
        "client_id": "1234",
        "token_uri": token_server.uri,
    }


def credentials(account: dict[str, str]) -> service_account.Credentials:
    return service_account.Credentials.from_service_account_info(account, scopes=SCOPES)


class Vertex:
    """The model endpoint: answers each request, refusing the tokens in ``refused`` with 401."""

    def __init__(self, refused: tuple[str, ...] = ()) -> None:
        self.tokens: list[str] = []
        self.refused = refused

    def answer(self, request: httpx.Request) -> httpx.Response:
        token = request.headers["authorization"].removeprefix("Bearer ")
        self.tokens.append(token)
        if token in self.refused:
            return httpx.Response(
                401,
                json=json.loads((FIXTURES / "anthropic_vertex/unauthenticated.json").read_text()),
            )
        return httpx.Response(200, content=(FIXTURES / "anthropic/text.json").read_bytes())

    def claude(self, creds: object) -> Lang:
        vertex = VertexConfig(project="my-proj", location="us-east5", credentials=creds)
        client = httpx.AsyncClient(transport=httpx.MockTransport(self.answer))
        return Lang.anthropic(
            "claude-sonnet-4-5@20250929", vertex=vertex, http_client=client, max_retries=0
        )


async def test_a_token_is_fetched_once_and_sent_with_every_request(
    account: dict[str, str], token_server: TokenServer
) -> None:
    vertex = Vertex()
    lang = vertex.claude(credentials(account))
    await lang.ask("hi", stream=False)
    await lang.ask("again", stream=False)
    assert token_server.requests == 1
    assert vertex.tokens == ["tok-1", "tok-1"]


async def test_twenty_concurrent_asks_share_one_token_request(
    account: dict[str, str], token_server: TokenServer
) -> None:
    token_server.delay = 0.2  # every ask arrives while the first fetch is under way
    vertex = Vertex()
    lang = vertex.claude(credentials(account))
    async with anyio.create_task_group() as group:
        for _ in range(20):
            group.start_soon(lambda: lang.ask("hi", stream=False))
    assert token_server.requests == 1
    assert vertex.tokens == ["tok-1"] * 20


async def test_a_token_is_refreshed_before_it_expires(
    account: dict[str, str], token_server: TokenServer
) -> None:
    token_server.expires_in = 200  # still valid, but inside the five-minute margin
    vertex = Vertex()
    lang = vertex.claude(credentials(account))
    await lang.ask("hi", stream=False)
    await lang.ask("again", stream=False)
    assert token_server.requests == 2
    assert vertex.tokens == ["tok-1", "tok-2"]


async def test_a_401_is_answered_by_one_refresh_and_one_retry(
    account: dict[str, str], token_server: TokenServer
) -> None:
    vertex = Vertex(refused=("tok-1",))
    result = await vertex.claude(credentials(account)).ask("hi", stream=False)
    assert result.answer
    assert token_server.requests == 2
    assert vertex.tokens == ["tok-1", "tok-2"]


async def test_a_second_401_is_raised_without_a_third_try(
    account: dict[str, str], token_server: TokenServer
) -> None:
    vertex = Vertex(refused=("tok-1", "tok-2", "tok-3"))
    with pytest.raises(AuthenticationError):
        await vertex.claude(credentials(account)).ask("hi", stream=False)
    assert vertex.tokens == ["tok-1", "tok-2"]
    assert token_server.requests == 2


async def test_a_refused_refresh_is_an_authentication_error(
    account: dict[str, str], token_server: TokenServer
) -> None:
    token_server.refuse = True
    vertex = Vertex()
    with pytest.raises(AuthenticationError, match="could not be refreshed"):
        await vertex.claude(credentials(account)).ask("hi", stream=False)
    assert vertex.tokens == []


async def test_application_default_credentials_come_from_the_file_google_names(
    account: dict[str, str],
    token_server: TokenServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    key_file = tmp_path / "key.json"
    key_file.write_text(json.dumps(account))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(key_file))
    vertex = Vertex()
    lang = vertex.claude(None)  # neither a token nor credentials: ADC
    await lang.ask("hi", stream=False)
    assert token_server.requests == 1
    assert vertex.tokens == ["tok-1"]


def test_adc_without_google_auth_is_a_config_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "google.auth", None)  # as if not installed
    with pytest.raises(ConfigError, match=r"aiwrapper\[google\]"):
        Vertex().claude("adc")


def test_credentials_of_no_known_kind_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match="takes 'adc'"):
        Vertex().claude(42)


async def test_a_callable_is_called_once_and_again_after_a_401() -> None:
    handed: list[str] = []

    def get_token() -> str:
        handed.append(f"cb-{len(handed) + 1}")
        return handed[-1]

    vertex = Vertex(refused=("cb-1",))
    lang = vertex.claude(get_token)
    await lang.ask("hi", stream=False)
    await lang.ask("again", stream=False)
    assert handed == ["cb-1", "cb-2"]
    assert vertex.tokens == ["cb-1", "cb-2", "cb-2"]


async def test_gemini_on_vertex_refreshes_the_same_way(
    account: dict[str, str], token_server: TokenServer
) -> None:
    seen: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.headers["authorization"] == "Bearer tok-1":
            return httpx.Response(
                401, content=(FIXTURES / "gemini/error_401_vertex.json").read_bytes()
            )
        return httpx.Response(200, json=GEMINI_TEXT)

    vertex = VertexConfig(
        project="my-proj", location="us-central1", credentials=credentials(account)
    )
    client = httpx.AsyncClient(transport=httpx.MockTransport(answer))
    lang = Lang.gemini("gemini-2.5-flash", vertex=vertex, http_client=client, max_retries=0)
    result = await lang.ask("hi", stream=False)
    assert result.answer
    assert [r.headers["authorization"] for r in seen] == ["Bearer tok-1", "Bearer tok-2"]
    assert all("x-goog-api-key" not in r.headers for r in seen)
    assert seen[0].url.path.startswith("/v1beta1/projects/my-proj/locations/us-central1/")


def test_a_key_in_the_environment_does_not_replace_a_vertex_projects_credentials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GOOGLE_API_KEY", "AIza-from-the-environment")
    lang = Lang.gemini(vertex=VertexConfig(project="my-proj", location="us-central1"))
    provider = lang.model.provider  # type: ignore[attr-defined]
    assert provider.auth is not None  # Application Default Credentials, as Google's SDK does
    assert "x-goog-api-key" not in provider._headers()
