"""Real MCP servers for the tests, written with the official SDK's ``MCPServer``.

Run as ``python server_app.py VARIANT stdio`` or ``python server_app.py VARIANT http PORT``:
``main`` has the tools the tests drive, ``twin`` has an ``add`` of its own (to tell two servers
apart), ``paged`` hands out its 5 tools 2 per page.
"""

from __future__ import annotations

import base64
import os
import sys
from typing import Any

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ListToolsResult, PaginatedRequestParams
from pydantic import BaseModel

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)
seen: set[str] = set()  # tags of calls that reached the server
cancelled: set[str] = set()  # tags of calls the client cancelled


class Weather(BaseModel):
    city: str
    temp_c: float


class Stop(BaseModel):
    city: str
    nights: int


class Trip(BaseModel):
    traveller: str
    stops: list[Stop]


def build_main() -> MCPServer:
    server = MCPServer("main")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool()
    def weather(city: str) -> Weather:
        """The weather in a city (structured, and the same data as text)."""
        return Weather(city=city, temp_c=21.5)

    @server.tool()
    def plan(trip: Trip) -> str:
        """Plan a trip (a nested model, so the schema holds definitions and references)."""
        return f"{trip.traveller}: " + ", ".join(f"{s.city} x{s.nights}" for s in trip.stops)

    @server.tool()
    def search(query: str, limit: int = 10) -> str:
        """Search (an optional parameter, which strict mode sends as nullable)."""
        return f"{limit} results for {query}"

    @server.tool()
    def tally(counts: dict[str, int]) -> int:
        """Sum counts (a free-form map: OpenAI's strict mode cannot express it)."""
        return sum(counts.values())

    @server.tool()
    def picture() -> Image:
        """A tiny PNG."""
        return Image(data=PNG, format="png")

    @server.tool()
    def fail(reason: str) -> str:
        """Always fails."""
        raise ToolError(f"failed because {reason}")

    @server.tool()
    async def slow(seconds: float, tag: str) -> str:
        """Sleep, noting whether the client cancelled the call."""
        seen.add(tag)
        try:
            await anyio.sleep(seconds)
        except anyio.get_cancelled_exc_class():
            cancelled.add(tag)
            raise
        return f"slept {seconds}"

    @server.tool()
    def touch(tag: str) -> str:
        """Note that a call reached the server."""
        seen.add(tag)
        return f"touched {tag}"

    @server.tool()
    def report(tag: str) -> dict[str, Any]:
        """Whether a tag reached the server, and whether its call was cancelled."""
        return {"seen": tag in seen, "cancelled": tag in cancelled}

    @server.tool()
    async def grow(name: str, ctx: Context) -> str:
        """Add a tool called ``name`` and tell the client, in both protocol eras."""
        server.add_tool(lambda: f"{name} ran", name=name, description="a tool added at run time")
        await ctx.notify_tools_changed()
        await ctx.session.send_tool_list_changed()
        return f"added {name}"

    @server.tool()
    def pid() -> int:
        """The server's process id."""
        return os.getpid()

    @server.tool()
    def big(megabytes: float) -> str:
        """A long text result."""
        return "x" * int(megabytes * 2**20)

    @server.tool()
    def die() -> str:
        """Exit the process in the middle of the call."""
        os._exit(3)

    return server


def build_twin() -> MCPServer:
    server = MCPServer("twin")

    @server.tool()
    def add(a: int, b: int) -> str:
        """Add two integers, the twin's way."""
        return f"twin says {a + b}"

    return server


class PagedServer(MCPServer):
    """Lists its tools two at a time (``MCPServer`` itself sends everything in one page)."""

    async def _handle_list_tools(
        self, ctx: Any, params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        tools = await self.list_tools()
        start = int(params.cursor) if params and params.cursor else 0
        end = start + 2
        cursor = str(end) if end < len(tools) else None
        return ListToolsResult(tools=tools[start:end], next_cursor=cursor)


def build_paged() -> MCPServer:
    server = PagedServer("paged")
    for i in range(5):
        server.add_tool(_numbered(i), name=f"t{i}", description=f"tool number {i}")
    return server


def _numbered(i: int) -> Any:
    return lambda: f"tool {i}"


if __name__ == "__main__":
    app = {"main": build_main, "twin": build_twin, "paged": build_paged}[sys.argv[1]]()
    if sys.argv[2] == "stdio":
        app.run()
    else:
        app.run("streamable-http", host="127.0.0.1", port=int(sys.argv[3]))
