"""MCP servers as tools: the model calls the tools of a small stdio server.

Needs the extra: pip install 'aiwrapper[mcp]'. The server (examples/mcp_server/units_server.py)
is started for the run and stopped when it ends. With an API key the model calls each tool
once, with the number that goes with it. Without one, the offline model cannot tell which
number goes with which tool: it calls each of the two tools with each of the two numbers
(four calls), then answers from the results.
"""

from __future__ import annotations

import sys
from pathlib import Path

from aiwrapper import Lang
from aiwrapper.mcp import MCPServer

SERVER = Path(__file__).parent / "mcp_server" / "units_server.py"


def main() -> None:
    units = MCPServer.stdio(sys.executable, [str(SERVER)], prefix="units")
    lang = Lang.from_env()
    result = lang.ask_sync("How many feet are 3 metres, and what is 20 C in F?", functions=[units])
    for call in result.function_calls:
        print(f"→ {call.name}({call.arguments}) → {call.status}")
    print(result.answer)


if __name__ == "__main__":
    main()
