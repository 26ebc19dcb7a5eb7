"""``python -m aiwrapper serve``: a real process under uvicorn, started and stopped by the test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
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
