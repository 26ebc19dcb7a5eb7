"""The asyncio network backend of the transport's own client, against real 127.0.0.1 sockets.

Servers are the threaded ones of ``test_http_sockets``; TLS uses a self-signed certificate
made here. Most cases are asyncio only (the backend is asyncio's); on trio the owned client
must keep httpcore's backend and work as before.
"""

from __future__ import annotations

import datetime
import importlib.util
import ipaddress
import socket
import ssl
import struct
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpcore
import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from aiwrapper import _errors as errors
from aiwrapper._wire import _asyncionet as net
from aiwrapper._wire._http import HttpTransport

from .test_http_sockets import (  # no_proxy_environment: autouse, here too
    Handler,
    SocketServer,
    call,
    json_response,
    no_proxy_environment,  # noqa: F401
    on_error,
    serve_forever,
    serving,
)

pytestmark = pytest.mark.anyio
asyncio_only = pytest.mark.parametrize("anyio_backend", ["asyncio"])
# The same on uvloop too (``serve`` runs on it where installed): for the cases that look at
# no internals of asyncio's own loop.
asyncio_loops = pytest.mark.parametrize(
    "anyio_backend",
    [
        "asyncio",
        pytest.param(
            ("asyncio", {"use_uvloop": True}),
            id="uvloop",
            marks=pytest.mark.skipif(
                importlib.util.find_spec("uvloop") is None, reason="uvloop is not installed"
            ),
        ),
    ],
)
ANSWER = json_response(b'{"ok":1}')


@pytest.fixture
def protocols(monkeypatch: pytest.MonkeyPatch) -> list[net._Protocol]:
    """Every protocol the backend creates, in order."""
    made: list[net._Protocol] = []

    class Recorded(net._Protocol):
        def __init__(self) -> None:
            super().__init__()
            made.append(self)

    monkeypatch.setattr(net, "_Protocol", Recorded)
    return made


def backend() -> net.AsyncioBackend:
    return net.AsyncioBackend(httpcore.AnyIOBackend())


def pool_of(transport: HttpTransport, url: str) -> httpcore.AsyncConnectionPool:
    pool = transport._client(url)._transport._pool  # type: ignore[attr-defined]
    assert type(pool) is httpcore.AsyncConnectionPool
    return pool


def streams_of(transport: HttpTransport, url: str) -> list[Any]:
    return [c._connection._network_stream for c in pool_of(transport, url).connections]


def pending_timers() -> int:
    """Read timers of this backend still scheduled on the running loop."""
    import asyncio

    loop = asyncio.get_running_loop()
    scheduled = loop._scheduled  # type: ignore[attr-defined]
    return sum(1 for h in scheduled if h._callback is net._wake and not h.cancelled())


# --- where it is installed --------------------------------------------------------------------


def answer_until_closed(server: SocketServer, conn: socket.socket) -> None:
    while server.read_request(conn) is not None:
        conn.sendall(ANSWER)
    server.closed_by_peer.set()


@asyncio_loops
async def test_the_owned_client_reads_and_writes_through_asyncio_transports() -> None:
    with serving(answer_until_closed) as server:
        async with HttpTransport(timeout=5, max_retries=0) as transport:
            for _ in range(3):
                assert await transport.request_json(call(server.url), on_error) == {"ok": 1}
            assert type(pool_of(transport, server.url)._network_backend) is net.AsyncioBackend
            [stream] = streams_of(transport, server.url)
            assert type(stream) is net.AsyncioStream
            assert stream.get_extra_info("server_addr") == ("127.0.0.1", server.port)
            assert stream.get_extra_info("ssl_object") is None
        # Closed when aclose returns, with no further turn of the loop (none is taken here).
        assert server.closed_by_peer.wait(2)
    assert server.accepted == 1


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_on_trio_httpcores_own_backend_serves_the_requests() -> None:
    with serving(serve_forever(ANSWER)) as server:
        async with HttpTransport(timeout=5, max_retries=0) as transport:
            for _ in range(2):
                assert await transport.request_json(call(server.url), on_error) == {"ok": 1}
            [stream] = streams_of(transport, server.url)
            assert type(stream).__name__ == "TrioStream"
    assert server.accepted == 1


@asyncio_only
async def test_only_httpx_default_transport_with_a_plain_pool_gets_the_backend(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")
    client = HttpTransport()._client("https://example.invalid/v1")
    assert type(client._transport._pool._network_backend) is net.AsyncioBackend  # type: ignore[attr-defined]
    [proxy] = [t for t in client._mounts.values() if t is not None]
    assert type(proxy._pool) is httpcore.AsyncHTTPProxy  # type: ignore[attr-defined]
    assert type(proxy._pool._network_backend) is not net.AsyncioBackend  # type: ignore[attr-defined]
    await client.aclose()
    async with httpx.AsyncClient() as borrowed:
        assert HttpTransport(http_client=borrowed)._client() is borrowed
        backend = borrowed._transport._pool._network_backend  # type: ignore[attr-defined]
        assert type(backend) is not net.AsyncioBackend
    mock = httpx.MockTransport(lambda request: httpx.Response(200))
    net.install(mock)  # no pool: left alone
    odd = httpx.AsyncHTTPTransport()
    odd._pool = object()  # type: ignore[assignment] # an httpx without the expected pool
    net.install(odd)
    assert type(odd._pool) is object


# --- errors, as httpcore's anyio backend maps them ------------------------------------------


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@asyncio_loops
async def test_a_refused_connection_is_a_connect_error() -> None:
    with pytest.raises(httpcore.ConnectError) as info:
        await backend().connect_tcp("127.0.0.1", closed_port(), timeout=5)
    assert isinstance(info.value.__cause__, OSError)


@asyncio_only
async def test_a_connect_that_never_completes_is_a_connect_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import asyncio

    async def never(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(30)

    monkeypatch.setattr(asyncio.get_running_loop(), "create_connection", never)
    with anyio.fail_after(5):
        with pytest.raises(httpcore.ConnectTimeout):
            await backend().connect_tcp("127.0.0.1", 1, timeout=0.05)


@asyncio_only
async def test_a_cancelled_connect_leaves_no_timer(monkeypatch: pytest.MonkeyPatch) -> None:
    import asyncio

    async def never(*args: object, **kwargs: object) -> None:
        await asyncio.sleep(30)

    loop = asyncio.get_running_loop()
    monkeypatch.setattr(loop, "create_connection", never)
    with pytest.raises(TimeoutError):
        with anyio.fail_after(0.05):
            await backend().connect_tcp("127.0.0.1", 1, timeout=30)
    deadlines = [
        h
        for h in loop._scheduled  # type: ignore[attr-defined]
        if type(getattr(h._callback, "__self__", None)).__name__ == "Timeout"
    ]
    assert all(h.cancelled() for h in deadlines)


def send_then_close(data: bytes, *, reset: bool) -> Any:
    def handle(server: SocketServer, conn: socket.socket) -> None:
        conn.sendall(data)
        server.gate.wait(5)  # until the client has read it
        if reset:  # SO_LINGER 0: close() sends a RST
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    return handle


@asyncio_loops
async def test_a_peer_eof_reads_as_empty_bytes_after_the_data() -> None:
    with serving(send_then_close(b"hello", reset=False)) as server:
        stream = await backend().connect_tcp("127.0.0.1", server.port, timeout=5)
        assert await stream.read(3, timeout=5) == b"hel"
        assert await stream.read(100, timeout=5) == b"lo"
        server.gate.set()
        assert await stream.read(100, timeout=5) == b""
        assert stream.get_extra_info("is_readable") is True
        with pytest.raises(httpcore.WriteError):
            await stream.write(b"x", timeout=5)
        await stream.aclose()
        with pytest.raises(httpcore.ReadError):
            await stream.read(100, timeout=5)


@asyncio_loops
async def test_a_reset_is_a_read_error_then_a_write_error() -> None:
    with serving(send_then_close(b"hi", reset=True)) as server:
        stream = await backend().connect_tcp("127.0.0.1", server.port, timeout=5)
        assert await stream.read(100, timeout=5) == b"hi"
        server.gate.set()
        with pytest.raises(httpcore.ReadError) as info:
            await stream.read(100, timeout=5)
        assert isinstance(info.value.__cause__, ConnectionResetError)
        with pytest.raises(httpcore.WriteError):
            await stream.write(b"x", timeout=5)
        await stream.aclose()


def silent(server: SocketServer, conn: socket.socket) -> None:
    server.stop.wait(10)  # never reads, never answers


async def fill(stream: httpcore.AsyncNetworkStream) -> None:
    for _ in range(1000):  # the kernel's buffers fill, then asyncio's: the last write waits
        await stream.write(b"x" * 1_000_000, timeout=0.05)


@asyncio_only
async def test_silence_is_a_read_timeout_and_a_full_socket_a_write_timeout(
    protocols: list[net._Protocol],
) -> None:
    with serving(silent) as server:
        stream = await backend().connect_tcp("127.0.0.1", server.port, timeout=5)
        with pytest.raises(httpcore.ReadTimeout):
            await stream.read(100, timeout=0.05)
        with pytest.raises(httpcore.WriteTimeout):
            await fill(stream)
        assert protocols[0].writing_paused is True
        assert (protocols[0].reader, protocols[0].writer) == (None, None)
        assert pending_timers() == 0
        await stream.aclose()


@asyncio_loops
async def test_local_address_and_socket_options_are_applied() -> None:
    keepalive = (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    with serving(silent) as server:
        stream = await backend().connect_tcp(
            "127.0.0.1",
            server.port,
            timeout=5,
            local_address="127.0.0.1",
            socket_options=[keepalive],
        )
        sock = stream.get_extra_info("socket")
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
        assert stream.get_extra_info("client_addr")[0] == "127.0.0.1"
        assert stream.get_extra_info("server_addr") == ("127.0.0.1", server.port)
        assert stream.get_extra_info("is_readable") is False
        await stream.aclose()


# --- flow control -----------------------------------------------------------------------------

MEBIBYTE = 1024 * 1024


def flood(server: SocketServer, conn: socket.socket) -> None:
    block = bytes(range(256)) * 256  # 64 KiB
    for _ in range(16):
        conn.sendall(block * 8)
    server.gate.wait(10)


@asyncio_loops
async def test_a_slow_reader_of_a_fast_stream_buffers_a_bounded_amount(
    protocols: list[net._Protocol],
) -> None:
    with serving(flood) as server:
        stream = await backend().connect_tcp("127.0.0.1", server.port, timeout=5)
        received = bytearray()
        peak = 0
        paused_seen = False
        while len(received) < 8 * MEBIBYTE:
            await anyio.sleep(0.002)  # slower than the server sends
            peak = max(peak, protocols[0].buffered)
            paused_seen = paused_seen or protocols[0].reading_paused
            received += await stream.read(64 * 1024, timeout=5)
        server.gate.set()
        await stream.aclose()
    assert len(received) == 8 * MEBIBYTE
    assert received == bytes(range(256)) * 256 * 8 * 16
    assert paused_seen is True
    # The bound, plus what one socket read may add past it (asyncio reads 256 KiB at most).
    assert peak <= net._HIGH_WATER + 256 * 1024


def slow_sink(server: SocketServer, conn: socket.socket) -> None:
    total = 0
    while total < 4 * MEBIBYTE:
        data = conn.recv(65536)
        if not data:
            break
        total += len(data)
        server.heads.append(b"%d" % total)
        if total < MEBIBYTE:
            server.stop.wait(0.001)
    conn.sendall(b"%d" % total)
    server.gate.wait(5)


@asyncio_loops
async def test_a_big_write_waits_for_the_transport_to_drain() -> None:
    with serving(slow_sink) as server:
        stream = await backend().connect_tcp("127.0.0.1", server.port, timeout=5)
        await stream.write(b"y" * 4 * MEBIBYTE, timeout=5)
        # write() returned when asyncio's buffer fell under its low-water mark.
        assert stream._transport.get_write_buffer_size() <= 64 * 1024  # type: ignore[attr-defined]
        assert await stream.read(100, timeout=5) == b"4194304"
        server.gate.set()
        await stream.aclose()


# --- keep-alive and cancellation --------------------------------------------------------------


def answer_then_close_idle(server: SocketServer, conn: socket.socket) -> None:
    if server.read_request(conn) is not None:
        conn.sendall(ANSWER)
        server.gate.wait(5)  # the connection is idle in the client's pool: close it
        conn.shutdown(socket.SHUT_WR)
        server.closed_by_peer.set()


@asyncio_only
@pytest.mark.parametrize("tls", [False, True], ids=["tcp", "tls"])
async def test_an_idle_connection_the_server_closed_is_dropped_before_reuse(
    tls: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = certificate(tmp_path, x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    monkeypatch.setenv("SSL_CERT_FILE", str(files[0]))
    serve = serving_tls(files, answer_then_close_idle) if tls else serving(answer_then_close_idle)
    with serve as server:
        url = server.url.replace("http://", "https://") if tls else server.url
        # httpx alone (no resend-once of the transport): reusing the dead one would fail.
        async with HttpTransport(timeout=5, max_retries=0) as transport:
            client = transport._client(url)
            assert (await client.post(url, content=b"{}")).json() == {"ok": 1}
            [stream] = streams_of(transport, url)
            assert stream.get_extra_info("is_readable") is False
            assert type(stream) is net.AsyncioStream
            server.gate.set()
            assert await anyio.to_thread.run_sync(server.closed_by_peer.wait, 5)
            with anyio.fail_after(5):
                while not stream.get_extra_info("is_readable"):
                    await anyio.sleep(0.01)
            server.gate.clear()
            assert (await client.post(url, content=b"{}")).json() == {"ok": 1}
            server.gate.set()
    assert server.accepted == 2
    assert len(server.heads) == 2


def read_and_wait(server: SocketServer, conn: socket.socket) -> None:
    if server.read_request(conn) is not None:
        server.wait_for_close(conn)


@asyncio_only
async def test_a_cancelled_read_leaves_no_waiter_or_timer_and_closes_the_connection(
    protocols: list[net._Protocol],
) -> None:
    with serving(read_and_wait) as server:
        async with HttpTransport(timeout=30, max_retries=0) as transport:
            await cancel_cleanly(
                transport, call(server.url), protocols, lambda protocol: protocol.reader is not None
            )
            assert await anyio.to_thread.run_sync(server.closed_by_peer.wait, 5)


async def cancel_cleanly(
    transport: HttpTransport,
    request: Any,
    protocols: list[net._Protocol],
    waiting: Callable[[net._Protocol], bool],
) -> None:
    """Cancel ``request`` once its connection is ``waiting``; nothing is left behind.

    Cancelling on the state, not after a fixed time: on a loaded machine encoding a large
    body alone can outlast any fixed delay.
    """
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as group:

            async def cancel_once_waiting() -> None:
                with anyio.fail_after(10):
                    while not (protocols and waiting(protocols[0])):
                        await anyio.sleep(0.005)
                scope.cancel()

            group.start_soon(cancel_once_waiting)
            await transport.request_json(request, on_error)
            pytest.fail("the request finished")
    assert scope.cancelled_caught
    [protocol] = protocols
    assert (protocol.reader, protocol.writer) == (None, None)
    assert pending_timers() == 0
    assert pool_of(transport, request.url).connections == []


def never_reads(server: SocketServer, conn: socket.socket) -> None:
    server.stop.wait(10)


@asyncio_only
async def test_a_cancelled_write_leaves_no_waiter_or_timer(
    protocols: list[net._Protocol],
) -> None:
    with serving(never_reads) as server:
        async with HttpTransport(timeout=30, max_retries=0) as transport:
            huge = call(server.url, body={"text": "z" * (64 * MEBIBYTE)})
            await cancel_cleanly(
                transport, huge, protocols, lambda protocol: protocol.writer is not None
            )
            [protocol] = protocols
            # Closed at once: the megabytes asyncio held for a server that never reads are
            # dropped, not kept until it does.
            with anyio.fail_after(5):
                while not protocol.eof:
                    await anyio.sleep(0.01)
            assert protocol.transport.get_write_buffer_size() == 0  # type: ignore[union-attr]


# --- TLS --------------------------------------------------------------------------------------


def certificate(tmp_path: Path, san: x509.GeneralName) -> tuple[Path, Path]:
    """A self-signed certificate for ``san`` and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "aiwrapper test")])
    now = datetime.datetime.now(datetime.timezone.utc)
    public = key.public_key()
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([san]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(public), critical=False)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_file, key_file


@pytest.fixture
def tls_files(tmp_path: Path) -> tuple[Path, Path]:
    return certificate(tmp_path, x509.IPAddress(ipaddress.ip_address("127.0.0.1")))


@contextmanager
def serving_tls(files: tuple[Path, Path], answer: Handler | None = None) -> Iterator[SocketServer]:
    """``answer`` (by default ``serve_forever(ANSWER)``) over TLS with the certificate
    ``files``, offering ALPN."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*files)
    context.set_alpn_protocols(["http/1.1"])
    answer = answer or serve_forever(ANSWER)

    def handle(server: SocketServer, conn: socket.socket) -> None:
        with context.wrap_socket(conn, server_side=True) as tls:
            answer(server, tls)

    with serving(handle) as server:
        yield server


def trusting(cert_file: Path) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=str(cert_file))
    context.set_alpn_protocols(["http/1.1"])
    return context


@asyncio_loops
async def test_tls_round_trip_with_alpn_visible_to_httpcore(
    tls_files: tuple[Path, Path],
) -> None:
    with serving_tls(tls_files) as server:
        plain = await backend().connect_tcp("127.0.0.1", server.port, timeout=5)
        stream = await plain.start_tls(trusting(tls_files[0]), "127.0.0.1", timeout=5)
        ssl_object = stream.get_extra_info("ssl_object")
        assert isinstance(ssl_object, ssl.SSLObject)
        assert ssl_object.selected_alpn_protocol() == "http/1.1"
        assert stream.get_extra_info("server_addr") == ("127.0.0.1", server.port)
        await stream.write(b"POST / HTTP/1.1\r\ncontent-length: 2\r\n\r\n{}", timeout=5)
        received = b""
        while not received.endswith(b'{"ok":1}'):
            received += await stream.read(65536, timeout=5)
        assert received == ANSWER
        await stream.aclose()


async def test_https_through_the_transport_uses_the_certificates_of_ssl_cert_file(
    tls_files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, anyio_backend: str
) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", str(tls_files[0]))
    with serving_tls(tls_files) as server:
        url = server.url.replace("http://", "https://")
        async with HttpTransport(timeout=5, max_retries=0) as transport:
            for _ in range(2):
                assert await transport.request_json(call(url), on_error) == {"ok": 1}
            [stream] = streams_of(transport, server.url)
            assert isinstance(stream.get_extra_info("ssl_object"), ssl.SSLObject)
            expected = "AsyncioStream" if anyio_backend == "asyncio" else "TrioStream"
            assert type(stream).__name__ == expected
    assert server.accepted == 1


async def test_a_certificate_for_another_host_is_a_connection_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, anyio_backend: str
) -> None:
    files = certificate(tmp_path, x509.DNSName("elsewhere.example"))
    monkeypatch.setenv("SSL_CERT_FILE", str(files[0]))
    with serving_tls(files) as server:
        url = server.url.replace("http://", "https://")
        async with HttpTransport(timeout=5, max_retries=0) as transport:
            with pytest.raises(errors.ConnectionError) as info:
                await transport.request_json(call(url), on_error)
    causes = []
    cause: BaseException | None = info.value
    while cause is not None:
        causes.append(cause)
        cause = cause.__cause__ or cause.__context__
    assert any(isinstance(c, ssl.SSLCertVerificationError) for c in causes)
    assert str(info.value).startswith(f"Could not reach {url}: ")
    if anyio_backend == "asyncio":  # httpcore's trio backend gives only "ConnectError"
        assert "certificate verify failed: IP address mismatch" in str(info.value)
