"""``python -m aiwrapper serve``: a real process under uvicorn, started and stopped by the test."""

from __future__ import annotations

import http.server
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx
import pytest

SERVE = [sys.executable, "-m", "aiwrapper", "serve"]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _environment() -> dict[str, str]:
    env = dict(os.environ)
    env["OLLAMA_HOST"] = "http://127.0.0.1:9"  # nothing listens there: never the network
    return env


def test_serve_refuses_a_public_address_without_keys() -> None:
    done = subprocess.run(
        [*SERVE, "--route", "local=ollama:qwen3", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=_environment(),
    )
    assert done.returncode == 2
    assert "without --api-key" in done.stderr


def test_serve_refuses_a_route_it_cannot_read() -> None:
    done = subprocess.run([*SERVE, "--route", "local"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "NAME=PROVIDER:MODEL" in done.stderr


def test_serve_announces_serves_with_keys_and_shuts_down_on_ctrl_c() -> None:
    port = _free_port()
    process = subprocess.Popen(
        [*SERVE, "--route", "local=ollama:qwen3", "--port", str(port), "--api-key", "gw-key"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert (
            line == f"aiwrapper gateway on http://127.0.0.1:{port} serving local -> ollama:qwen3\n"
        )
        base = f"http://127.0.0.1:{port}"
        _wait_until_up(base)
        assert httpx.get(base + "/v1/models").status_code == 401
        models = httpx.get(base + "/v1/models", headers={"Authorization": "Bearer gw-key"})
        assert [m["id"] for m in models.json()["data"]] == ["local"]
        down = httpx.post(
            base + "/v1/messages",
            headers={"x-api-key": "gw-key"},
            json={
                "model": "local",
                "max_tokens": 5,
                "messages": [{"role": "user", "content": "Hi"}],
            },
        )
        assert down.status_code == 502  # the backend is unreachable
        assert down.json()["error"]["type"] == "api_error"
    finally:
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "POST /v1/messages route=local status=502" in errors
    assert "gw-key" not in errors


def _wait_until_up(base: str) -> None:
    deadline = time.monotonic() + 30
    with httpx.Client(verify=False) as client:  # plain http: no CA bundle to load per poll
        while True:
            try:
                if client.get(base + "/healthz").status_code == 200:
                    return
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the gateway did not come up"
                time.sleep(0.05)


class _SlowOllama(http.server.BaseHTTPRequestHandler):
    """An Ollama chat stream whose second half waits for ``release``."""

    release = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "application/x-ndjson")
        self.end_headers()
        first = {
            "model": "qwen3",
            "message": {"role": "assistant", "content": "Hel"},
            "done": False,
        }
        self.wfile.write(json.dumps(first).encode() + b"\n")
        self.wfile.flush()
        self.release.wait(30)
        last = {"model": "qwen3", "message": {"role": "assistant", "content": "lo"}, "done": True}
        last |= {"done_reason": "stop", "prompt_eval_count": 1, "eval_count": 2}
        self.wfile.write(json.dumps(last).encode() + b"\n")

    def log_message(self, *args: object) -> None:
        pass


def test_a_stream_in_flight_at_ctrl_c_still_finishes() -> None:
    backend = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _SlowOllama)
    threading.Thread(target=backend.serve_forever, args=(0.01,), daemon=True).start()
    port = _free_port()
    env = {**_environment(), "OLLAMA_HOST": f"http://127.0.0.1:{backend.server_port}"}
    command = [*SERVE, "--route", "local=ollama:qwen3", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    base = f"http://127.0.0.1:{port}"
    body = {"model": "local", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
    try:
        _wait_until_up(base)
        with httpx.stream("POST", base + "/v1/chat/completions", json=body, timeout=30) as reply:
            lines = reply.iter_lines()
            assert '"content":"Hel"' in "".join(next(lines) for _ in range(4))
            process.send_signal(signal.SIGINT)
            _wait_until_down(base)  # shutting down (no new connections), the stream in flight
            _SlowOllama.release.set()
            rest = list(lines)
        assert [line for line in rest if line][-1] == "data: [DONE]"
        assert any('"content":"lo"' in line for line in rest)
        assert process.wait(timeout=30) == 0
    finally:
        _SlowOllama.release.set()
        process.kill()
        process.communicate()
        backend.shutdown()
        backend.server_close()


def _wait_until_down(base: str) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(base + "/healthz", timeout=1)
        except httpx.TransportError:
            return
        assert time.monotonic() < deadline, "the gateway did not begin to shut down"
        time.sleep(0.05)


@contextmanager
def _serving(*args: str, limit_files: int | None = None) -> Iterator[str]:
    """The base URL of a ``serve`` process with ``args``, up and answering ``/healthz``."""
    port = _free_port()

    def limited() -> None:
        import resource

        if limit_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (limit_files, limit_files))

    with tempfile.TemporaryFile("w+") as log:  # never a full pipe that would block the server
        process = subprocess.Popen(
            [*SERVE, "--port", str(port), *args],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=_environment(),
            preexec_fn=limited,
        )
        try:
            _wait_until_up(f"http://127.0.0.1:{port}")
            yield f"http://127.0.0.1:{port}"
        finally:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=30)
            finally:
                process.kill()


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    """One ``serve`` process for the tests of options that need no other: offline routes."""
    with _serving(
        *("--route", "demo=offline:x", "--route", "canned=scripted:Hi there."),
        *("--cors-origin", "https://app.example", "--max-header-bytes", "4096"),
    ) as base:
        yield base


def test_offline_and_scripted_routes_serve_without_network(demo: str) -> None:
    canned = httpx.post(
        demo + "/v1/chat/completions",
        json={"model": "canned", "messages": [{"role": "user", "content": "Hello"}]},
    )
    again = httpx.post(
        demo + "/v1/messages",
        json={
            "model": "canned",
            "max_tokens": 9,
            "messages": [{"role": "user", "content": "?"}],
        },
    )
    offline = httpx.post(
        demo + "/v1/chat/completions",
        json={"model": "demo", "messages": [{"role": "user", "content": "Hello"}]},
    )
    assert canned.json()["choices"][0]["message"]["content"] == "Hi there."
    assert again.json()["content"] == [{"type": "text", "text": "Hi there."}]
    assert "Hello" in offline.json()["choices"][0]["message"]["content"]


def test_a_route_pointing_at_its_own_gateway_is_a_508_not_a_storm() -> None:
    port = _free_port()
    route = f"local=vllm:local@http://127.0.0.1:{port}/v1"
    process = subprocess.Popen(
        [*SERVE, "--port", str(port), "--route", route],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_until_up(base)
        reply = httpx.post(
            base + "/v1/chat/completions",
            json={"model": "local", "messages": [{"role": "user", "content": "Hi"}]},
            timeout=30,
        )
    finally:
        process.send_signal(signal.SIGINT)
        _, errors = process.communicate(timeout=30)
    assert reply.status_code == 508
    assert reply.json()["error"]["code"] == "loop_detected"
    served = [line for line in errors.splitlines() if "POST /v1/chat/completions" in line]
    assert len(served) <= 4  # the client's, the looped one (and the SDK's retries of it)
    assert any("status=508" in line for line in served)


def test_connections_trickling_headers_are_closed_after_the_header_timeout() -> None:
    with _serving("--route", "x=offline:x", "--header-timeout", "1") as base:
        port = int(base.rsplit(":", 1)[1])
        sockets = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
        try:
            began = time.monotonic()
            closed = _trickle(sockets, seconds=8)
            assert closed == len(sockets)
            assert time.monotonic() - began < 8
            assert httpx.get(base + "/healthz").status_code == 200
        finally:
            for sock in sockets:
                sock.close()


def _trickle(sockets: list[socket.socket], *, seconds: float) -> int:
    """Send each socket a request head a few bytes at a time; how many the server closed."""
    for sock in sockets:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        sock.settimeout(0.01)
    closed: set[int] = set()
    deadline = time.monotonic() + seconds
    while len(closed) < len(sockets) and time.monotonic() < deadline:
        for index, sock in enumerate(sockets):
            if index in closed:
                continue
            try:
                sock.sendall(b"X-Slow: 1\r\n")
                if sock.recv(1024) == b"":
                    closed.add(index)
            except TimeoutError:
                pass
            except OSError:
                closed.add(index)
        time.sleep(0.2)
    return len(closed)


def test_idle_connections_past_the_descriptor_limit_do_not_lock_clients_out() -> None:
    with _serving("--route", "x=ollama:qwen3", limit_files=256) as base:
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


def test_a_request_head_past_the_limit_is_refused(demo: str) -> None:
    small = httpx.get(demo + "/healthz", headers={"x-pad": "a" * 2000})
    huge = httpx.get(demo + "/healthz", headers={"x-pad": "a" * 8000})
    assert small.status_code == 200
    assert huge.status_code == 400


def test_a_cors_origin_given_to_serve_gets_preflight_answers(demo: str) -> None:
    preflight = httpx.options(
        demo + "/v1/chat/completions",
        headers={"origin": "https://app.example", "access-control-request-method": "POST"},
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == "https://app.example"


def test_serve_freezes_what_the_process_holds_once_uvicorn_is_set_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import gc

    import uvicorn

    from aiwrapper.gateway import _serve, _server

    frozen_before = gc.get_freeze_count()  # another test in this worker may have frozen some
    steps: list[str] = []
    monkeypatch.setattr(_server.gc, "collect", lambda: steps.append("collect"))
    monkeypatch.setattr(_server.gc, "freeze", lambda: steps.append("freeze"))
    monkeypatch.setattr(_serve, "_log_to_stderr", lambda: None)  # no handler left behind

    class _Server:
        def __init__(self, config: uvicorn.Config) -> None:
            steps.append(f"loaded={config.loaded}")

        def run(self) -> None:
            steps.append("run")

    monkeypatch.setattr(uvicorn, "Server", _Server)
    args = ["--route", "local=scripted:x", "--port", "0"]
    assert _serve.main(args) == 0
    assert steps == ["collect", "freeze", "loaded=True", "run"]
    assert gc.get_freeze_count() == frozen_before  # the test process is left as it was
