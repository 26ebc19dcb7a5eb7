"""A small MCP server (official SDK) that examples/mcp_tools.py starts over stdio.

Run on its own it waits for a client on stdin; ``MCPServer.stdio`` starts it as a subprocess.
"""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("units")


@server.tool()
def metres_to_feet(metres: float) -> float:
    """Convert metres to feet."""
    return round(metres / 0.3048, 2)


@server.tool()
def celsius_to_fahrenheit(celsius: float) -> float:
    """Convert degrees Celsius to Fahrenheit."""
    return round(celsius * 9 / 5 + 32, 1)


if __name__ == "__main__":
    server.run()
