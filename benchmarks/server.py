"""A tiny HTTP/1.1 keep-alive server on 127.0.0.1 that answers with pre-rendered bodies.

Run as its own process (``python benchmarks/server.py --deltas N``) so that serving never
competes with the measured client for the GIL; it prints its port on the first stdout line.
The first path segment names the scenario (``/openai-text/v1/chat/completions``,
``/anthropic/v1/messages``...), so any client's base URL can point at one. ``/loop`` (and each
wire's ``/loop-<wire>[-stream]``, ``wire_loops.py``) answers with tool calls, or with text
once the request holds a tool result. ``GET /stats`` reports how many connections carried a
benchmark request, to check connection reuse. With ``--variants``, a segment named by
``wire_variants.scenario_name`` is rendered when first asked for (the last few are kept).

Requests are parsed minimally (request line, ``Content-Length``, body); every response is a
whole ``bytes`` object written in one call, with ``Content-Length``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

import wire
import wire_calls
import wire_loops
import wire_responses
import wire_variants

# A tool result in each wire's request: Chat Completions and Ollama, Anthropic, Gemini, Responses.
_TOOL_RESULT = (
    b'"role":"tool"',
    b'"role": "tool"',
    b'"tool_result"',
    b'"functionResponse"',
    b'"function_call_output"',
)


def _response(scenario: wire.Scenario) -> bytes:
    head = (
        "HTTP/1.1 200 OK\r\n"
        f"content-type: {scenario.content_type}\r\n"
        f"content-length: {len(scenario.body)}\r\n"
        "\r\n"
    )
    return head.encode() + scenario.body


def render(deltas: int, calls: int, fragments: int) -> dict[str, bytes]:
    """Every scenario's full HTTP response, by the first path segment that selects it."""
    scenarios = {
        "openai-text": wire.openai_text(deltas),
        "openai-tools": wire.openai_tools(calls, fragments),
        "anthropic-tools": wire_calls.anthropic_tools(calls, fragments),
        "openai-big-call": wire_calls.openai_big_call(),
        "loop": wire.openai_loop_calls(),
        "loop-answer": wire.openai_loop_answer(),
        "short": wire.openai_loop_answer(),
        "tiny": wire.openai_tiny(),
        "anthropic": wire.anthropic_text(deltas),
        "gemini": wire.gemini_text(deltas),
        "ollama": wire.ollama_ndjson(deltas),
        "openai-responses": wire_responses.responses_text(deltas),
        "openai-responses-tools": wire_responses.responses_tools(calls, fragments),
        **wire_loops.loop_scenarios(),
    }
    return {name: _response(s) for name, s in scenarios.items()}


class Server:
    """Routing and the connection count, shared by every connection."""

    def __init__(self, responses: dict[str, bytes], *, variants: bool = False) -> None:
        self.responses = responses
        self.connections = 0
        self.variants = variants
        self.rendered: dict[str, bytes] = {}  # variant streams, the most recent last

    def _variant(self, segment: str) -> bytes | None:
        if not (self.variants and segment.startswith("v-")):
            return None
        response = self.rendered.pop(segment, None)
        if response is None:
            response = _response(wire_variants.render(segment))
            while len(self.rendered) >= 4:  # 50,000-delta bodies weigh megabytes each
                del self.rendered[next(iter(self.rendered))]
        self.rendered[segment] = response
        return response

    def answer(self, path: str, body: bytes) -> tuple[bytes, bool]:
        """The response for a request, and whether it was a benchmark (not a stats) request."""
        segment = path.lstrip("/").split("/", 1)[0].split("?", 1)[0]
        if segment == "stats":
            stats = json.dumps({"connections": self.connections}).encode()
            return _json_response(stats), False
        if segment.startswith("loop") and any(marker in body for marker in _TOOL_RESULT):
            segment += "-answer"
        response = self.responses.get(segment) or self._variant(segment)
        if response is None:
            return b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n", True
        return response, True


def _json_response(body: bytes) -> bytes:
    head = f"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


class Connection(asyncio.Protocol):
    """One keep-alive connection: parse requests as bytes arrive, answer each in one write."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.buffer = bytearray()
        self.counted = False
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (request := self._next_request()) is not None:
            response, counts = self.server.answer(*request)
            if counts and not self.counted:
                self.counted = True
                self.server.connections += 1
            assert self.transport is not None
            self.transport.write(response)

    def _next_request(self) -> tuple[str, bytes] | None:
        """The next complete ``(path, body)`` in the buffer, removed from it."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return None
        head = bytes(self.buffer[:end]).decode("latin-1")
        start = end + 4
        total = start + _content_length(head)
        if len(self.buffer) < total:
            return None
        body = bytes(self.buffer[start:total])
        del self.buffer[:total]
        return head.split(" ", 2)[1], body


def _content_length(head: str) -> int:
    for line in head.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            return int(value)
    return 0


async def serve(responses: dict[str, bytes], *, variants: bool = False) -> None:
    """Listen on an ephemeral port of 127.0.0.1, print it, serve until killed."""
    state = Server(responses, variants=variants)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Connection(state), "127.0.0.1", 0, backlog=128)
    port = server.sockets[0].getsockname()[1]
    print(port, flush=True)
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deltas", type=int, default=20_000)
    parser.add_argument("--calls", type=int, default=8)
    parser.add_argument("--fragments", type=int, default=250)
    parser.add_argument("--variants", action="store_true", help="serve wire_variants streams")
    args = parser.parse_args()
    responses = render(args.deltas, args.calls, args.fragments)
    try:
        asyncio.run(serve(responses, variants=args.variants))
    except KeyboardInterrupt:
        sys.exit(0)


if __name__ == "__main__":
    main()
