"""``python -m aiwrapper serve``: a real process under uvicorn, started and stopped by the test."""

from __future__ import annotations

import http.server
import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from .serving import SERVE, environment, free_port, serving, stack, wait_until_up


def test_serve_refuses_a_public_address_without_keys() -> None:
    done = subprocess.run(
        [*SERVE, "--route", "local=ollama:qwen3", "--host", "0.0.0.0"],
        capture_output=True,
        text=True,
        timeout=60,
        env=environment(),
    )
    assert done.returncode == 2
    assert "without --api-key" in done.stderr


def test_serve_refuses_a_route_it_cannot_read() -> None:
    done = subprocess.run([*SERVE, "--route", "local"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "NAME=PROVIDER:MODEL" in done.stderr


def test_serve_announces_serves_with_keys_and_shuts_down_on_ctrl_c() -> None:
    port = free_port()
    process = subprocess.Popen(
        [*SERVE, "--route", "local=ollama:qwen3", "--port", str(port), "--api-key", "gw-key"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert (
            line == f"aiwrapper gateway on http://127.0.0.1:{port} serving local -> ollama:qwen3"
            f" ({stack()})\n"
        )
        base = f"http://127.0.0.1:{port}"
        wait_until_up(base)
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
    port = free_port()
    env = {**environment(), "OLLAMA_HOST": f"http://127.0.0.1:{backend.server_port}"}
    command = [*SERVE, "--route", "local=ollama:qwen3", "--port", str(port)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    base = f"http://127.0.0.1:{port}"
    body = {"model": "local", "stream": True, "messages": [{"role": "user", "content": "Hi"}]}
    try:
        wait_until_up(base)
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


@pytest.fixture(scope="module")
def demo() -> Iterator[str]:
    """One ``serve`` process for the tests of options that need no other: offline routes."""
    with serving(
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
    port = free_port()
    route = f"local=vllm:local@http://127.0.0.1:{port}/v1"
    process = subprocess.Popen(
        [*SERVE, "--port", str(port), "--route", route],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=environment(),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(base)
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
