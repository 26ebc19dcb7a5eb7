"""Misbehaving MCP servers for the MCP tests, speaking raw JSON-RPC on stdio (no ``mcp`` import).

Run as ``python raw_server.py BEHAVIOUR [ARG]``:

- ``silent``: reads its stdin and never answers anything (not even ``initialize``);
- ``unlisted``: answers the handshake, and never answers ``tools/list``;
- ``nested``: answers the handshake, then lists a tool whose schema is nested 100 levels deep;
- ``deep``: answers the handshake, then lists a tool whose schema is nested 3,000 levels deep,
  past any JSON parser's recursion limit (written out by hand: ``json.dumps`` cannot);
- ``noisy``: prints a line of plain text to stdout before each answer;
- ``stderr MB``: writes ``MB`` megabytes of stderr, ending with ``last words``, and exits;
- ``big MB``: its tool ``big`` answers ``MB`` megabytes of text;
- ``grandchild PIDFILE``: starts a sleeping child (in the server's process group) whose pid it
  writes to ``PIDFILE``, and exits when its stdin closes, leaving the child behind.

Every behaviour but ``silent`` refuses ``server/discover`` (so clients fall back to the
``initialize`` handshake), lists one tool ``echo`` (or ``big``) and answers its calls.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

BEHAVIOUR = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else ""


def send(message: dict[str, Any]) -> None:
    if BEHAVIOUR == "noisy":
        sys.stdout.write("starting up, please wait...\n")
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def nested_schema(depth: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"x": schema}}
    return schema


def tool_list() -> dict[str, Any]:
    name = "big" if BEHAVIOUR == "big" else "echo"
    schema = nested_schema(100) if BEHAVIOUR == "nested" else {"type": "object", "properties": {}}
    return {"tools": [{"name": name, "description": "a tool", "inputSchema": schema}]}


def answer(request: dict[str, Any]) -> dict[str, Any]:
    method = request.get("method")
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": request["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "raw", "version": "1"},
        }
    elif method == "tools/list":
        result = tool_list()
    elif method == "tools/call":
        size = int(float(ARG or 0) * 2**20) if BEHAVIOUR == "big" else 0
        text = "x" * size if size else "echoed"
        result = {"content": [{"type": "text", "text": text}], "isError": False}
    else:
        error = {"code": -32601, "message": f"Method not found: {method}"}
        return {"jsonrpc": "2.0", "id": request["id"], "error": error}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def main() -> None:
    if BEHAVIOUR == "stderr":
        chunk = "e" * 1023 + "\n"
        for _ in range(int(ARG) * 1024):
            sys.stderr.write(chunk)
        sys.stderr.write("last words\n")
        sys.exit(3)
    if BEHAVIOUR == "grandchild":
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        with open(ARG, "w") as file:
            file.write(str(child.pid))
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("method") == "tools/list" and BEHAVIOUR == "unlisted":
            continue
        if request.get("method") == "tools/list" and BEHAVIOUR == "deep":
            schema = '{"type":"object","properties":{"x":' * 3000 + "{}" + "}}" * 3000
            tool = '{"name":"echo","description":"a tool","inputSchema":' + schema + "}"
            sys.stdout.write('{"jsonrpc":"2.0","result":{"tools":[' + tool + ']},"id":')
            sys.stdout.write(json.dumps(request["id"]) + "}\n")
            sys.stdout.flush()
        elif BEHAVIOUR != "silent" and "id" in request and "method" in request:
            send(answer(request))


if __name__ == "__main__":
    main()
