"""HttpTransport against real sockets on 127.0.0.1: faults httpx.MockTransport cannot make.

Each test starts its own tiny threaded server; every wait is bounded, so a broken client
fails the test instead of hanging it. Proxy variables are cleared (owned clients trust the
environment), except in the test that pins that decision.
"""

from __future__ import annotations

import email.utils
import gc
import json
import random
import socket
import struct
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import Any

import anyio
import httpx
import pytest

from aiwrapper import _errors as errors
from aiwrapper._wire import _http as http_module
from aiwrapper._wire._framing import SSEDecoder, SSEEvent
from aiwrapper._wire._http import HttpTransport
from aiwrapper._wire._httpcall import HttpCall
from aiwrapper.providers._base import error_class_for_status, make_error

pytestmark = pytest.mark.anyio

Handler = Callable[["SocketServer", socket.socket], None]
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")


@pytest.fixture(autouse=True)
def no_proxy_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    delays: list[float] = []

    async def fake_sleep(delay: float) -> None:
        delays.append(delay)

    monkeypatch.setattr(http_module, "sleep", fake_sleep)
    return delays


def on_error(status: int, body: bytes, headers: Mapping[str, str]) -> errors.ProviderError:
    cls = error_class_for_status(status)
    return make_error(cls, "error", provider="test", status=status, body=body, headers=headers)


def call(url: str, *, stream: bool = False, body: dict[str, Any] | None = None) -> HttpCall:
    payload = {"model": "m"} if body is None else body
    return HttpCall(url=url, headers={"authorization": "Bearer k"}, body=payload, stream=stream)


class SocketServer:
    """A threaded HTTP server on 127.0.0.1 running ``handle(server, conn)`` per connection."""

    def __init__(self, handle: Handler) -> None:
        self.handle = handle
        self.accepted = 0
        self.heads: list[bytes] = []  # every request head read, in order
        self.closed_by_peer = threading.Event()
        self.gate = threading.Event()  # for handlers that wait on the client
        self.stop = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}/v1/chat"
        self.threads: list[threading.Thread] = []

    def serve(self) -> None:
        self.listener.settimeout(0.02)  # poll, since closing a socket does not wake accept()
        while not self.stop.is_set():
            try:
                conn, _ = self.listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(10)  # a handler never blocks longer than this
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.accepted += 1
            thread = threading.Thread(target=self._run, args=(conn,), daemon=True)
            self.threads.append(thread)
            thread.start()

    def _run(self, conn: socket.socket) -> None:
        with conn, suppress(OSError):
            self.handle(self, conn)

    def read_request(self, conn: socket.socket, buffer: bytes = b"") -> bytes | None:
        """Read one request (head and content-length body); None when the peer closed.

        Pipelining is not used by httpx, so nothing after the body is kept.
        """
        while b"\r\n\r\n" not in buffer:
            data = conn.recv(65536)
            if not data:
                return None
            buffer += data
        head, _, rest = buffer.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(rest) < length:
            rest += conn.recv(65536)
        self.heads.append(head)
        return head + b"\r\n\r\n" + rest

    def wait_for_close(self, conn: socket.socket) -> None:
        """Block until the client closes the connection (or the server stops)."""
        conn.settimeout(0.05)
        while not self.stop.is_set():
            try:
                if conn.recv(65536) == b"":
                    self.closed_by_peer.set()
                    return
            except TimeoutError:
                continue


@contextmanager
def serving(handle: Handler) -> Iterator[SocketServer]:
    server = SocketServer(handle)
    acceptor = threading.Thread(target=server.serve, daemon=True)
    acceptor.start()
    try:
        yield server
    finally:
        server.stop.set()
        acceptor.join(5)
        server.listener.close()
        for thread in server.threads:
            thread.join(5)


def chunked(*parts: bytes) -> bytes:
    return b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in parts) + b"0\r\n\r\n"


def head(status: str = "200 OK", **headers: str) -> bytes:
    lines = [f"HTTP/1.1 {status}"] + [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


SSE_HEAD = head(content_type="text/event-stream", transfer_encoding="chunked")


def json_response(body: bytes, status: str = "200 OK", **headers: str) -> bytes:
    return (
        head(status, content_type="application/json", content_length=str(len(body)), **headers)
        + body
    )


async def read_events(transport: HttpTransport, url: str) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events: list[SSEEvent] = []
    async with transport.stream(call(url, stream=True), on_error) as chunks:
        async for chunk in chunks:
            events += decoder.feed(chunk)
    return events + decoder.flush()


def serve_forever(response: bytes) -> Handler:
    """A keep-alive handler answering every request with ``response``."""

    def handle(server: SocketServer, conn: socket.socket) -> None:
        while server.read_request(conn) is not None:
            conn.sendall(response)

    return handle


# --- stalls and broken bodies ---------------------------------------------------------------


def head_then_stall(server: SocketServer, conn: socket.socket) -> None:
    server.read_request(conn)
    conn.sendall(SSE_HEAD)
    server.stop.wait(10)


async def test_a_head_then_silence_is_a_request_timeout_for_both_kinds_of_call() -> None:
    with serving(head_then_stall) as server:
        async with HttpTransport(timeout=0.2, max_retries=0) as transport:
            started = time.monotonic()
            with pytest.raises(errors.RequestTimeoutError):
                await read_events(transport, server.url)
            with pytest.raises(errors.RequestTimeoutError):
                await transport.request_json(call(server.url), on_error)
            assert time.monotonic() - started < 3


def close_inside_a_chunk(server: SocketServer, conn: socket.socket) -> None:
    request = server.read_request(conn)
    assert request is not None
    if b"whole" in request:
        conn.sendall(head(content_type="application/json", content_length="40") + b'{"half":')
    else:
        conn.sendall(SSE_HEAD + b'9\r\ndata: 1\n\n\r\n20\r\ndata: {"cut')  # 0x20 promised


async def test_a_peer_closing_inside_a_chunk_is_a_stream_error() -> None:
    with serving(close_inside_a_chunk) as server:
        async with HttpTransport(timeout=5, max_retries=0) as transport:
            decoder = SSEDecoder()
            events: list[SSEEvent] = []

            async def consume() -> None:
                async with transport.stream(call(server.url, stream=True), on_error) as chunks:
                    async for chunk in chunks:
                        events.extend(decoder.feed(chunk))

            with pytest.raises(errors.StreamError):
                await consume()
            assert events == [(None, "1")]
            with pytest.raises(errors.StreamError):
                await transport.request_json(call(server.url, body={"whole": 1}), on_error)


ODD_PIECES = (b"data: h\xc3\xa9", b"llo\r\n\r\ndata: \xf0\x9f", b"\x98\x80\r\n\r\n: x\r\n")
ODD_CHUNKS = (
    SSE_HEAD
    + b"%X;name=value\r\n%s\r\n" % (len(ODD_PIECES[0]), ODD_PIECES[0])  # a chunk extension
    + b"%X\r\n%s\r\n" % (len(ODD_PIECES[1]), ODD_PIECES[1])  # upper-case hex size
    + b"%x\r\n%s\r\n" % (len(ODD_PIECES[2]), ODD_PIECES[2])  # a 4-byte character split
    + b"0\r\nx-trailer: 1\r\n\r\n"  # a trailer after the last chunk
)


def odd_splits(server: SocketServer, conn: socket.socket) -> None:
    rng = random.Random(3)
    while server.read_request(conn) is not None:
        cuts = sorted(rng.sample(range(1, len(ODD_CHUNKS)), 40))
        for a, b in zip([0, *cuts], [*cuts, len(ODD_CHUNKS)], strict=True):
            conn.sendall(ODD_CHUNKS[a:b])
            time.sleep(0.001)


async def test_chunked_encoding_split_at_odd_places_gives_exact_events_and_keeps_alive() -> None:
    with serving(odd_splits) as server:
        async with HttpTransport(timeout=5) as transport:
            for _ in range(3):
                assert await read_events(transport, server.url) == [(None, "héllo"), (None, "😀")]
        assert server.accepted == 1


def gzip_sse(server: SocketServer, conn: socket.socket) -> None:
    server.read_request(conn)
    packer = zlib.compressobj(wbits=31)  # gzip framing
    first = packer.compress(b"data: 1\n\n") + packer.flush(zlib.Z_SYNC_FLUSH)
    conn.sendall(
        head(content_type="text/event-stream", content_encoding="gzip", transfer_encoding="chunked")
        + b"%x\r\n%s\r\n" % (len(first), first)
    )
    if server.gate.wait(5):  # the client saw event 1 before event 2 was even compressed
        rest = packer.compress(b"data: [DONE]\n\n") + packer.flush()
        conn.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(rest), rest))


async def test_gzip_encoded_sse_is_decoded_incrementally() -> None:
    with serving(gzip_sse) as server:
        async with HttpTransport(timeout=5) as transport:
            decoder = SSEDecoder()
            events: list[SSEEvent] = []
            async with transport.stream(call(server.url, stream=True), on_error) as chunks:
                async for chunk in chunks:
                    events += decoder.feed(chunk)
                    if events:
                        server.gate.set()
            assert events + decoder.flush() == [(None, "1"), (None, "[DONE]")]


async def test_a_one_megabyte_event_arrives_whole() -> None:
    payload = json.dumps({"text": "x€" * 350_000}).encode()
    body = b"data: " + payload + b"\n\ndata: [DONE]\n\n"
    response = SSE_HEAD + b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    with serving(serve_forever(response)) as server:
        async with HttpTransport(timeout=5) as transport:
            events = await read_events(transport, server.url)
    assert len(payload) > 1_000_000
    assert events == [(None, payload.decode()), (None, "[DONE]")]


async def test_a_200_with_a_non_json_body_is_a_stream_error_and_the_connection_is_kept() -> None:
    page = b"<html><body>Bad gateway</body></html>"
    response = head(content_type="text/html", content_length=str(len(page))) + page
    with serving(serve_forever(response)) as server:
        async with HttpTransport(timeout=5) as transport:
            for _ in range(2):
                with pytest.raises(errors.StreamError) as info:
                    await transport.request_json(call(server.url), on_error)
                assert "text/html" in str(info.value)
                assert "Bad gateway" in str(info.value)
                assert isinstance(info.value.__cause__, ValueError)
        assert server.accepted == 1  # the body was read to its end, the connection reused


# --- statuses and retry headers -------------------------------------------------------------


def limited_until_date(server: SocketServer, conn: socket.socket) -> None:
    while server.read_request(conn) is not None:
        if len(server.heads) == 1:
            when = email.utils.formatdate(time.time() + 3, usegmt=True)
            conn.sendall(json_response(b'{"error":{}}', "429 Too Many Requests", retry_after=when))
        else:
            conn.sendall(json_response(b'{"ok":true}'))


async def test_429_with_an_http_date_retry_after_waits_until_that_date(
    sleeps: list[float],
) -> None:
    with serving(limited_until_date) as server:
        async with HttpTransport(timeout=5) as transport:
            assert await transport.request_json(call(server.url), on_error) == {"ok": True}
    [delay] = sleeps
    assert 1.0 < delay <= 3.0  # the date has whole seconds; a test machine may be slow
    assert len(server.heads) == 2


async def test_503_with_x_should_retry_false_is_sent_once(sleeps: list[float]) -> None:
    response = json_response(b'{"error":"busy"}', "503 Service Unavailable", x_should_retry="false")
    with serving(serve_forever(response)) as server:
        async with HttpTransport(timeout=5, max_retries=3) as transport:
            with pytest.raises(errors.ServerError) as info:
                await transport.request_json(call(server.url), on_error)
    assert info.value.status_code == 503
    assert info.value.body == b'{"error":"busy"}'
    assert len(server.heads) == 1
    assert sleeps == []


# --- keep-alive, cancellation, reuse --------------------------------------------------------


def drop_the_second_request(rst: bool) -> Handler:
    """Answer one request per connection and drop that connection at its next request."""

    def handle(server: SocketServer, conn: socket.socket) -> None:
        if server.read_request(conn) is None:
            return
        conn.sendall(
            json_response(b"1") if len(server.heads) == 1 else SSE_HEAD + chunked(b"data: 2\n\n")
        )
        if server.read_request(conn) is not None and rst:
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    return handle


@pytest.mark.parametrize("rst", [False, True], ids=["closed", "reset"])
async def test_a_keep_alive_connection_dropped_on_reuse_is_resent_once_at_once(
    rst: bool, sleeps: list[float]
) -> None:
    with serving(drop_the_second_request(rst)) as server:
        async with HttpTransport(timeout=5, max_retries=0) as transport:
            assert await transport.request_json(call(server.url), on_error) == 1
            # Reused connection dropped: resent on a fresh one, no retry budget, no delay.
            assert await read_events(transport, server.url) == [(None, "2")]
    assert server.accepted == 2
    assert len(server.heads) == 3
    assert sleeps == []


def stream_or_stall(server: SocketServer, conn: socket.socket) -> None:
    request = server.read_request(conn)
    if request is None:
        return
    if b"stall" in request:
        conn.sendall(SSE_HEAD + b"9\r\ndata: 1\n\n\r\n")
        server.wait_for_close(conn)
    elif b"silent" in request:
        server.wait_for_close(conn)
    else:
        conn.sendall(SSE_HEAD + chunked(b"data: ok\n\n"))
        stream_or_stall(server, conn)


@pytest.mark.parametrize("where", ["stall", "silent"], ids=["mid-stream", "before-head"])
async def test_cancelling_a_stream_closes_its_connection_and_the_next_request_works(
    where: str,
) -> None:
    with serving(stream_or_stall) as server:
        async with HttpTransport(timeout=5) as transport:
            assert await read_events(transport, server.url) == [(None, "ok")]
            with anyio.move_on_after(0.3) as scope:
                async with transport.stream(
                    call(server.url, stream=True, body={where: 1}), on_error
                ) as chunks:
                    async for chunk in chunks:
                        assert chunk == b"data: 1\n\n"
            assert scope.cancelled_caught
            assert await read_events(transport, server.url) == [(None, "ok")]
            assert server.closed_by_peer.wait(5)  # the cancelled connection was closed
        assert server.accepted == 2  # the idle first one served the last request


def record_and_answer(server: SocketServer, conn: socket.socket) -> None:
    while server.read_request(conn) is not None:
        conn.sendall(json_response(b'{"ok":1}'))


async def test_a_borrowed_client_base_url_and_headers_do_not_break_absolute_urls() -> None:
    import httpx

    client = httpx.AsyncClient(
        base_url="http://elsewhere.invalid/api/",
        headers={"x-team": "blue", "Authorization": "Bearer old"},
        params={"tenant": "7"},
        trust_env=False,
    )
    with serving(record_and_answer) as server:
        async with client, HttpTransport(http_client=client) as transport:
            assert await transport.request_json(call(server.url), on_error) == {"ok": 1}
    [request_head] = server.heads
    lines = request_head.decode().lower().split("\r\n")
    assert lines[0] == "post /v1/chat?tenant=7 http/1.1"
    assert f"host: 127.0.0.1:{server.port}" in lines
    assert "x-team: blue" in lines
    assert [line for line in lines if line.startswith("authorization")] == [
        "authorization: bearer k"
    ]


async def test_owned_clients_follow_proxy_variables_and_no_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with serving(record_and_answer) as proxy, serving(record_and_answer) as direct:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        async with HttpTransport(timeout=5) as transport:
            assert await transport.request_json(call(direct.url), on_error) == {"ok": 1}
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        async with HttpTransport(timeout=5) as transport:
            assert await transport.request_json(call(direct.url), on_error) == {"ok": 1}
    [proxied] = proxy.heads
    assert proxied.startswith(f"POST {direct.url} HTTP/1.1".encode())  # absolute form
    assert [h.split(b"\r\n")[0] for h in direct.heads] == [b"POST /v1/chat HTTP/1.1"]


async def test_a_header_value_with_a_line_break_is_a_config_error() -> None:
    with serving(record_and_answer) as server:
        async with HttpTransport(timeout=5) as transport:
            bad = HttpCall(url=server.url, headers={"x-key": "a\r\nx: y"}, body={}, stream=False)
            with pytest.raises(errors.ConfigError):
                await transport.request_json(bad, on_error)
    assert server.heads == []


# --- moved from test_http: keep-alive reuse, broken bodies, timeouts, early exit ------------


async def read_all(transport: HttpTransport, request: HttpCall) -> list[bytes]:
    async with transport.stream(request, on_error) as chunks:
        return [chunk async for chunk in chunks]


async def test_sequential_streams_reuse_one_connection() -> None:
    with serving(serve_forever(SSE_HEAD + chunked(b"data: 1\n\n", b"data: [DONE]\n\n"))) as server:
        async with HttpTransport(timeout=5) as transport:
            for _ in range(3):
                body = await read_all(transport, call(server.url, stream=True))
                assert b"".join(body) == b"data: 1\n\ndata: [DONE]\n\n"
        assert server.accepted == 1


def close_mid_body(server: SocketServer, conn: socket.socket) -> None:
    server.read_request(conn)
    conn.sendall(SSE_HEAD + b"9\r\ndata: 1\n\n\r\n")  # one chunk, then the peer vanishes


async def test_peer_closing_mid_body_is_a_stream_error() -> None:
    with serving(close_mid_body) as server:
        async with HttpTransport(timeout=5) as transport:
            received: list[bytes] = []

            async def consume() -> None:
                async with transport.stream(call(server.url, stream=True), on_error) as it:
                    async for chunk in it:
                        received.append(chunk)

            with pytest.raises(errors.StreamError) as info:
                await consume()
    assert b"".join(received) == b"data: 1\n\n"
    assert isinstance(info.value.__cause__, httpx.HTTPError)


def never_answer(server: SocketServer, conn: socket.socket) -> None:
    server.read_request(conn)
    server.stop.wait(10)


async def test_slow_server_is_a_request_timeout() -> None:
    with serving(never_answer) as server:
        async with HttpTransport(timeout=0.2, max_retries=2) as transport:
            with pytest.raises(errors.RequestTimeoutError):
                await transport.request_json(call(server.url), on_error)
        assert server.accepted == 1  # a read timeout is not retried


def stall_mid_body(server: SocketServer, conn: socket.socket) -> None:
    server.read_request(conn)
    conn.sendall(SSE_HEAD + b"9\r\ndata: 1\n\n\r\n")
    server.stop.wait(10)


async def test_server_stalling_mid_stream_is_a_request_timeout() -> None:
    with serving(stall_mid_body) as server:
        async with HttpTransport(timeout=0.2) as transport:
            with pytest.raises(errors.RequestTimeoutError):
                await read_all(transport, call(server.url, stream=True))


async def test_refused_connection_is_retried_then_a_connection_error() -> None:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    transport = HttpTransport(timeout=2, max_retries=1, retry_base_delay=0)
    with pytest.raises(errors.ConnectionError) as info:
        await transport.request_json(call(f"http://127.0.0.1:{port}/v1"), on_error)
    assert isinstance(info.value.__cause__, httpx.ConnectError)
    await transport.aclose()


def stream_then_stall(server: SocketServer, conn: socket.socket) -> None:
    while (request := server.read_request(conn)) is not None:
        conn.sendall(SSE_HEAD + b"9\r\ndata: 1\n\n\r\n")
        if b"stall" in request:
            server.stop.wait(10)
            return
        conn.sendall(b"0\r\n\r\n")


async def test_leaving_a_real_stream_early_drops_its_connection_cleanly() -> None:
    with serving(stream_then_stall) as server:
        async with HttpTransport(timeout=5) as transport:
            request = call(server.url, stream=True, body={"x": "stall"})
            async with transport.stream(request, on_error) as chunks:
                async for chunk in chunks:
                    assert chunk == b"data: 1\n\n"
                    break
            gc.collect()  # a generator left unfinished would now warn (an error under pytest)
            assert await read_all(transport, call(server.url, stream=True)) == [b"data: 1\n\n"]
        assert server.accepted == 2  # the abandoned connection was not put back in the pool


# --- the connection pool --------------------------------------------------------------------


def slow_stream(server: SocketServer, conn: socket.socket) -> None:
    """Each request streams four events 0.1 s apart, on keep-alive connections."""
    while server.read_request(conn) is not None:
        with server.lock:
            server.busy += 1
            server.most_busy = max(server.most_busy, server.busy)
        conn.sendall(SSE_HEAD)
        for i in range(4):
            time.sleep(0.1)
            conn.sendall(b"%x\r\n%s\r\n" % (len(b"data: %d\n\n" % i), b"data: %d\n\n" % i))
        with server.lock:
            server.busy -= 1
        conn.sendall(b"0\r\n\r\n")


@contextmanager
def serving_slow_streams() -> Iterator[SocketServer]:
    with serving(slow_stream) as server:
        server.lock, server.busy, server.most_busy = threading.Lock(), 0, 0  # type: ignore[attr-defined]
        yield server


async def test_waiting_for_a_pooled_connection_does_not_count_against_the_timeout() -> None:
    # Six 0.4 s streams over two connections: the last ones wait 0.8 s for a connection,
    # far past the 0.3 s timeout, which each read (0.1 s apart) keeps to.
    with serving_slow_streams() as server:
        async with HttpTransport(timeout=0.3, max_connections=2, max_retries=0) as transport:
            bodies: list[list[SSEEvent]] = []

            async def one() -> None:
                bodies.append(await read_events(transport, server.url))

            async with anyio.create_task_group() as tg:
                for _ in range(6):
                    tg.start_soon(one)
        assert bodies == [[(None, str(i)) for i in range(4)]] * 6
        assert (server.accepted, server.most_busy) == (2, 2)  # type: ignore[attr-defined]


async def test_max_connections_of_a_factory_caps_the_connections_of_its_runs() -> None:
    from aiwrapper import Lang

    body = b'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\n'
    answer = SSE_HEAD + chunked(body, b"data: [DONE]\n\n")
    with serving(serve_forever(answer)) as server:
        base_url = server.url.removesuffix("/chat")
        async with Lang.openai(api_key="k", base_url=base_url, max_connections=3) as lang:
            assert lang.model.transport._limits.max_connections == 3  # type: ignore[attr-defined]
            async with anyio.create_task_group() as tg:
                for _ in range(8):
                    tg.start_soon(lang.ask, "hi")
        assert 1 <= server.accepted <= 3


@pytest.mark.parametrize(
    ("value", "borrowed", "message"),
    [
        (0, False, "max_connections must be >= 1"),
        (2.5, False, "must be an int"),
        (True, False, "must be an int"),
        (8, True, "a borrowed http_client keeps its own limits"),
    ],
)
async def test_a_bad_max_connections_is_a_config_error(
    value: Any, borrowed: bool, message: str
) -> None:
    async with httpx.AsyncClient() as client:
        with pytest.raises(errors.ConfigError, match=message):
            HttpTransport(max_connections=value, http_client=client if borrowed else None)


def test_the_default_pool_serves_hundreds_of_runs_and_waits_for_a_connection() -> None:
    transport = HttpTransport(timeout=3)
    assert transport._limits.max_connections >= 500
    assert (transport.timeout.read, transport.timeout.pool) == (3, None)
