"""The error an MCP tool call raises under ``tool_errors="raise"``."""

from __future__ import annotations

from typing import Any

from .._errors import AIWrapperError

__all__ = ["MCPToolError"]


class MCPToolError(AIWrapperError):
    """Raised when an MCP server answers a call with an error (``isError``) or refuses it.

    Under the default ``tool_errors="return"`` its message is the error result the model reads.

    Attributes:
        result: The server's ``CallToolResult``, when it sent one.
    """

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result
