"""``serve`` against hostile clients, over each HTTP protocol (h11, and httptools where installed).

Each case ends with a 400 or a closed connection, never a hang, and the server's log has no
traceback; the server goes on answering others.
"""

from __future__ import annotations

import json
import re
import selectors
import socket
import time
from collections.abc import Iterator

import httpx
import pytest

from .serving import PROTOCOLS, serving

HEAD = b"Host: 127.0.0.1\r\n"
CHAT = json.dumps({"model": "x", "messages": [{"role": "user", "content": "Hi"}]}).encode()


@pytest.fixture(scope="module", params=PROTOCOLS)
def base(request: pytest.FixtureRequest) -> Iterator[str]:
    """A server with a 4096-byte head limit and a one-second head deadline."""
    errors: list[str] = []
    options = ("--max-header-bytes", "4096", "--header-timeout", "1")
    with serving("--route", "x=offline:x", *options, protocol=request.param, errors=errors) as url:
        yield url
    assert "Traceback" not in errors[0]
    assert "ERROR" not in errors[0]


def _exchange(base: str, data: bytes, *, seconds: float = 10) -> bytes:
    """What the server sends back for ``data`` until it closes the connection."""
    port = int(base.rsplit(":", 1)[1])
    reply = b""
    deadline = time.monotonic() + seconds
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(seconds)
        try:
            sock.sendall(data)
            while chunk := sock.recv(65536):
                reply += chunk
                assert time.monotonic() < deadline, "the server kept the connection open"
        except ConnectionResetError:  # closed with part of what was sent still unread
            pass
        except TimeoutError:
            pytest.fail(f"the server neither answered nor closed: {reply!r}")
    return reply


def _statuses(reply: bytes) -> list[bytes]:
    """The status codes of the answers in ``reply`` (status lines follow bodies unseparated)."""
    return re.findall(rb"HTTP/1\.1 (\d{3}) ", reply)


def test_a_request_head_past_the_limit_is_refused(base: str) -> None:
    small = httpx.get(base + "/healthz", headers={"x-pad": "a" * 2000})
    huge = httpx.get(base + "/healthz", headers={"x-pad": "a" * 8000})
    assert small.status_code == 200
    assert huge.status_code == 400


@pytest.mark.parametrize("pieces", [1, 64])
def test_a_megabyte_header_is_a_400_or_a_close(base: str, pieces: int) -> None:
    pad = b"a" * (1 << 20)
    head = b"GET /healthz HTTP/1.1\r\n" + HEAD + b"X-Pad: " + pad + b"\r\n\r\n"
    port = int(base.rsplit(":", 1)[1])
    reply = b""
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(10)
        try:
            step = len(head) // pieces + 1
            for start in range(0, len(head), step):
                sock.sendall(head[start : start + step])
            reply = sock.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            pass  # closed before it read all of it
    assert reply == b"" or _statuses(reply) == [b"400"]
    assert httpx.get(base + "/healthz").status_code == 200


@pytest.mark.parametrize(
    "behind", [b"", b"GET /healthz HTTP/1.1\r\n" + HEAD + b"\r\n"], ids=["alone", "pipelined"]
)
def test_an_unfinished_head_past_the_limit_is_a_400_before_its_deadline(
    base: str, behind: bytes
) -> None:
    unfinished = b"GET /healthz HTTP/1.1\r\n" + HEAD + b"X-Pad: " + b"a" * 5000
    assert _statuses(_exchange(base, behind + unfinished))[-1:] == [b"400"]


def test_pipelined_requests_are_answered_in_order(base: str) -> None:
    body = json.dumps({"model": "x", "messages": [{"role": "user", "content": "y" * 30000}]})
    first = b"POST /v1/chat/completions HTTP/1.1\r\n" + HEAD + b"Content-Type: application/json\r\n"
    first += b"Content-Length: %d\r\n\r\n%s" % (len(body), body.encode())
    second = b"GET /healthz HTTP/1.1\r\n" + HEAD + b"Connection: close\r\n\r\n"
    reply = _exchange(base, first + second)
    assert _statuses(reply) == [b"200", b"200"]
    assert reply.endswith(b'{"status":"ok"}')


def test_a_chunked_request_body_is_read(base: str) -> None:
    pieces = [CHAT[:10], CHAT[10:]]
    body = b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"
    head = b"POST /v1/chat/completions HTTP/1.1\r\n" + HEAD + b"Connection: close\r\n"
    head += b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    reply = _exchange(base, head + body)
    assert _statuses(reply) == [b"200"]
    assert b'"finish_reason":"stop"' in reply


SMUGGLED = b"GET /healthz HTTP/1.1\r\n" + HEAD + b"\r\n"
CHAT_HEAD = b"POST /v1/chat/completions HTTP/1.1\r\n" + HEAD + b"Content-Type: application/json\r\n"


@pytest.mark.parametrize(
    "data",
    [
        b"GET /healthz HTTP/1.1 and more\r\n" + HEAD + b"\r\n",
        b"BLAH\x00 / HTTP/1.1\r\n\r\n",
        b"GET /\x7f HTTP/1.1\r\n" + HEAD + b"\r\n",
        b"GET /healthz HTTP/1.1\r\nBad Header: 1\r\n" + HEAD + b"\r\n",
        CHAT_HEAD + b"Transfer-Encoding: chunked\r\n\r\nzz\r\n" + CHAT + b"\r\n0\r\n\r\n",
        CHAT_HEAD + b"Content-Length: 5\r\nContent-Length: 7\r\n\r\n0\r\n\r\n" + SMUGGLED,
    ],
    ids=["request-line", "method", "path", "header-name", "chunk-size", "two-lengths"],
)
def test_a_malformed_request_is_a_400_and_a_close(base: str, data: bytes) -> None:
    assert _statuses(_exchange(base, data)) == [b"400"]


@pytest.mark.parametrize("order", ["length-first", "chunked-first"])
def test_a_request_framed_both_ways_is_answered_once_and_closed(base: str, order: str) -> None:
    framing = [b"Content-Length: 40\r\n", b"Transfer-Encoding: chunked\r\n"]
    if order == "chunked-first":
        framing.reverse()
    body = b"%x\r\n%s\r\n0\r\n\r\n" % (len(CHAT), CHAT)
    reply = _exchange(base, CHAT_HEAD + b"".join(framing) + b"\r\n" + body + SMUGGLED)
    assert len(_statuses(reply)) == 1  # the request behind it is never read as one
    assert _statuses(reply)[0] in (b"200", b"400")


def test_connections_trickling_headers_are_closed_after_the_header_timeout(base: str) -> None:
    port = int(base.rsplit(":", 1)[1])
    sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
    answered = b"GET /healthz HTTP/1.1\r\n" + HEAD + b"\r\n"
    try:
        for index, sock in enumerate(sockets):  # half of them behind a request answered first
            sock.sendall((answered if index % 2 else b"") + b"GET /healthz HTTP/1.1\r\n" + HEAD)
        began = time.monotonic()
        closed = _trickle(sockets, seconds=8)
        assert closed == len(sockets)
        assert time.monotonic() - began < 8
        assert httpx.get(base + "/healthz").status_code == 200
    finally:
        for sock in sockets:
            sock.close()


def _trickle(sockets: list[socket.socket], *, seconds: float) -> int:
    """Send each socket a header line at a time; how many the server closed."""
    for sock in sockets:
        sock.settimeout(0.01)
    closed: set[int] = set()
    deadline = time.monotonic() + seconds
    while len(closed) < len(sockets) and time.monotonic() < deadline:
        for index, sock in enumerate(sockets):
            if index in closed:
                continue
            try:
                sock.sendall(b"X-Slow: 1\r\n")
                while sock.recv(1024):  # an answer to the request before: read past it
                    pass
                closed.add(index)
            except TimeoutError:
                pass
            except OSError:
                closed.add(index)
        time.sleep(0.2)
    return len(closed)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_idle_connections_past_the_descriptor_limit_do_not_lock_clients_out(
    protocol: str,
) -> None:
    with serving("--route", "x=ollama:qwen3", limit_files=256, protocol=protocol) as base:
        port = int(base.rsplit(":", 1)[1])
        idle = _connected(port, count=300)
        try:
            reply = httpx.get(base + "/healthz", timeout=15)
            assert reply.status_code == 200
        finally:
            for sock in idle:
                sock.close()


def _connected(port: int, *, count: int) -> list[socket.socket]:
    """``count`` connections to ``port``, each established (its handshake done), all at once.

    Past the server's backlog the kernel drops a connection's first packets and the client
    sends them again a second or more later: opened one after another, each such wait would
    add up; opened together, they overlap.
    """
    sockets = [socket.socket(socket.AF_INET, socket.SOCK_STREAM) for _ in range(count)]
    try:
        with selectors.DefaultSelector() as waiting:
            for sock in sockets:
                sock.setblocking(False)
                sock.connect_ex(("127.0.0.1", port))
                waiting.register(sock, selectors.EVENT_WRITE)
            deadline = time.monotonic() + 30
            while waiting.get_map() and time.monotonic() < deadline:
                for key, _ in waiting.select(timeout=1):
                    waiting.unregister(key.fileobj)
            assert not waiting.get_map(), f"{len(waiting.get_map())} of {count} never connected"
        for sock in sockets:
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0
            sock.setblocking(True)
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
    return sockets
