"""A fake OpenAI server on 127.0.0.1 for the crash tests: a two-tool loop, counted.

It speaks Chat Completions (streamed) and answers by how far the conversation it is sent has
come: no tool result yet, a call of ``first``; one, a call of ``second``; two, the final
answer. It counts the requests of each stage, so a test sees whether a finished model request
was sent again after a crash. It runs in the test's process, while the workers that ask it are
other processes.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.faults.wires import openai_call, openai_text

ANSWER = "first and second are done"
USAGE = {"prompt_tokens": 10, "completion_tokens": 4}


def answer_for(stage: int) -> bytes:
    """The streamed answer to a conversation holding ``stage`` tool results."""
    if stage == 0:
        return openai_call("call_first", "first", '{"note": "one"}', USAGE)
    if stage == 1:
        return openai_call("call_second", "second", '{"note": "two"}', USAGE)
    return openai_text(ANSWER, USAGE)


class FakeOpenAI(ThreadingHTTPServer):
    """Started by ``start()``; ``stages`` counts the requests by tool results they held."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.stages: Counter[int] = Counter()
        self.lock = threading.Lock()
        self.base_url = f"http://127.0.0.1:{self.server_address[1]}/v1"
        self._thread = threading.Thread(target=self.serve_forever, args=(0.01,), daemon=True)

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self._thread.join()


class _Handler(BaseHTTPRequestHandler):
    server: FakeOpenAI
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        body: Any = json.loads(self.rfile.read(int(self.headers["content-length"])))
        stage = sum(1 for m in body["messages"] if m["role"] == "tool")
        with self.server.lock:
            self.server.stages[stage] += 1
        answer = answer_for(stage)
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: object) -> None:
        pass
