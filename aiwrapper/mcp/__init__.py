"""MCP servers as tools: ``functions=[MCPServer.stdio(...)]`` beside local tools.

Needs the optional extra ``aiwrapper[mcp]`` (the official ``mcp`` SDK); ``import aiwrapper``
never imports it. A server stands for all its tools: their schemas go through the dialect
engine, their arguments are validated locally, and the loop runs their calls like any other
(approval, timeouts, parallel or sequential, events, ``tool_errors``).
"""

from __future__ import annotations

try:
    import mcp as _mcp  # noqa: F401
except ImportError as exc:  # pragma: no cover - tested in a subprocess without the extra
    raise ImportError(
        "aiwrapper.mcp needs the MCP SDK, an optional extra: pip install 'aiwrapper[mcp]'"
    ) from exc

from ._errors import MCPToolError
from ._server import MCPServer

__all__ = ["MCPServer", "MCPToolError"]
