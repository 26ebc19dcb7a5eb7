"""``MCPServer``: an MCP server the user puts in ``functions``, opened by them or by the run.

This module owns a server's configuration and lifecycle. ``async with server`` holds one
connection, used by every run until the block ends; otherwise each run that needs the server
opens its own connection and closes it when the run ends, in the run's task (so ``ask_sync``
works too, and concurrent runs never share a half-closed session). The tool list is read whole
once per connection and again after the server says it changed or after ``refresh()``.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping, Sequence
from contextlib import AsyncExitStack
from dataclasses import replace
from pathlib import Path
from typing import Any

import mcp.types as types

from .._errors import ConfigError
from .._tools import Tool
from .._tools.sources import ToolFeed, ToolSource
from .._wire._numbers import finite_number
from ._connection import MESSAGE_BYTES, Connection, TransportSpec
from ._tools import Caller, ToolOptions, make_tools

__all__ = ["MCPServer"]


class _Live:
    """An open connection and the tools read from it (one list object while unchanged)."""

    def __init__(self, connection: Connection, options: ToolOptions, caller: Caller) -> None:
        self.thread = threading.get_ident()  # its event loop's thread (one loop per thread)
        self.connection = connection
        self.options = options
        self.caller = caller
        self.listed: list[Tool] = []

    async def tools(self) -> list[Tool]:
        connection = self.connection
        if connection.changed and connection.lost is None:  # a lost server keeps its last list
            listed = await connection.list_tools()
            self.listed = make_tools(listed, self.options, self.caller, connection.spec.label)
        return self.listed


class MCPServer(ToolSource):
    """An MCP server whose tools a model can call; build one with :meth:`stdio` or :meth:`http`.

    Put it in ``functions`` beside local tools (``functions=[server, my_tool]``): it stands for
    all its tools. Use ``async with server:`` to keep one connection across runs; without it,
    each run opens the server and closes it when the run ends.
    """

    def __init__(self, spec: TransportSpec, options: ToolOptions) -> None:
        self._spec = spec
        self._options = options
        self._live: _Live | None = None

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        **common: Any,
    ) -> MCPServer:
        """A server started as a subprocess and spoken to over its stdin and stdout.

        Args:
            command: The program to run (``"npx"``, ``sys.executable``...).
            args: Its arguments.
            env: Variables set over a minimal safe environment (``HOME``, ``PATH``...); the rest
                of ``os.environ`` (API keys) is not passed unless given here.
            cwd: The working directory of the process.
            **common: ``prefix``, ``include``, ``exclude``, ``timeout``, ``requires_approval``,
                ``sequential``, ``max_message_bytes`` (see :meth:`http`).
        """
        spec = TransportSpec(command=command, args=tuple(args), env=env, cwd=cwd)
        return cls(_bounded(spec, common), _options(**common))

    @classmethod
    def http(
        cls, url: str, *, headers: Mapping[str, str] | None = None, **common: Any
    ) -> MCPServer:
        """A server reached over streamable HTTP.

        Args:
            url: Its endpoint (``http://127.0.0.1:8000/mcp``).
            headers: Sent with every request (an ``Authorization`` token, say).
            **common: ``prefix`` (declare tool ``t`` as ``prefix_t``), ``include`` and
                ``exclude`` (the server's tool names), ``timeout`` (seconds for each call, for
                the handshake and for reading the tool list), ``requires_approval`` and
                ``sequential`` (``True`` for every tool, or a set of the server's tool names),
                ``max_message_bytes`` (the largest message read from the server, 32 MiB by
                default: a larger one ends the connection, and the call that waited for it
                gets an error result).
        """
        spec = TransportSpec(url=url, headers=dict(headers or {}))
        return cls(_bounded(spec, common), _options(**common))

    async def __aenter__(self) -> MCPServer:
        if self._live is not None:
            raise ConfigError(f"MCP server {self._spec.label} is already open")
        connection = Connection(self._spec)
        await connection.open()
        self._live = _Live(connection, self._options, connection.call)
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        live, self._live = self._live, None
        if live is not None:
            await live.connection.close()

    async def tools(self) -> list[Tool]:
        """The server's tools (after ``include``/``exclude``), as ``Tool`` objects.

        Open (``async with``), the tools call through the open connection; otherwise the list is
        read on a short connection, and each call opens one until the server is open.
        """
        if self._live is not None:
            return list(await self._live.tools())
        live = _Live(Connection(self._spec), self._options, self._call_detached)
        await live.connection.open()
        try:
            return list(await live.tools())
        finally:
            await live.connection.close()

    async def refresh(self) -> None:
        """Read the tool list again before the next request (open servers only)."""
        if self._live is not None:
            self._live.connection.changed = True

    async def open_for_run(self, stack: AsyncExitStack) -> ToolFeed:
        """Used by the run: the open connection's tools, or a connection for this run only.

        A run on another event loop (``ask_sync`` beside an ``async with server``) cannot use
        the open connection, which belongs to its own loop: it gets one of its own.
        """
        if self._live is not None and self._live.thread == threading.get_ident():
            return self._live.tools
        connection = Connection(self._spec)
        await connection.open()
        stack.push_async_callback(connection.close)
        return _Live(connection, self._options, connection.call).tools

    async def _call_detached(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        if self._live is not None and self._live.thread == threading.get_ident():
            return await self._live.connection.call(name, arguments)
        connection = Connection(self._spec)
        await connection.open()
        try:
            return await connection.call(name, arguments)
        finally:
            await connection.close()

    def __repr__(self) -> str:
        return f"MCPServer({self._spec.label!r})"


def _bounded(spec: TransportSpec, common: dict[str, Any]) -> TransportSpec:
    """``spec`` with the server's ``timeout`` and message cap (taken out of ``common``)."""
    cap = common.pop("max_message_bytes", MESSAGE_BYTES)
    if type(cap) is not int or cap < 1:
        raise ConfigError(f"max_message_bytes must be an int of at least 1, not {cap!r}")
    timeout = common.get("timeout")
    if timeout is not None and not (finite_number(timeout) and timeout > 0):
        raise ConfigError(f"timeout must be a positive number of seconds, not {timeout!r}")
    return replace(spec, timeout=timeout, max_message_bytes=cap)


def _options(
    *,
    prefix: str | None = None,
    include: Collection[str] | None = None,
    exclude: Collection[str] = (),
    timeout: float | None = None,
    requires_approval: bool | Collection[str] = False,
    sequential: bool | Collection[str] = False,
) -> ToolOptions:
    if isinstance(include, str) or isinstance(exclude, str):
        raise ConfigError("include and exclude take collections of tool names, not one string")
    return ToolOptions(
        prefix=prefix,
        include=frozenset(include) if include is not None else None,
        exclude=frozenset(exclude),
        timeout=timeout,
        requires_approval=_flag(requires_approval),
        sequential=_flag(sequential),
    )


def _flag(value: bool | Collection[str]) -> bool | frozenset[str]:
    return value if isinstance(value, bool) else frozenset(value)
