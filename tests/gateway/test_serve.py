"""``python -m aiwrapper serve``: a real process under uvicorn, started and stopped by the test."""

from __future__ import annotations

import http.server
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import httpx

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
    while True:
        try:
            if httpx.get(base + "/healthz").status_code == 200:
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
    threading.Thread(target=backend.serve_forever, daemon=True).start()
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
