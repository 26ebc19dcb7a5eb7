"""One open connection to an MCP server: the session, its tool list, its calls, its errors.

This module owns everything that touches the ``mcp`` package's client: opening the transport
(a subprocess over stdio, see :mod:`aiwrapper.mcp._stdio`, or streamable HTTP), the handshake
and reading the whole tool list (every page), both within the server's ``timeout``, noticing
``tools/list_changed`` in both protocol eras, calling a tool, and turning the package's failures
into aiwrapper's errors. Entering and leaving a connection must happen in one task (the
``mcp`` client is built on anyio task groups); ``MCPServer`` and the run see to that. Turning
listed tools into ``Tool`` objects is left to :mod:`aiwrapper.mcp._tools`.
"""

from __future__ import annotations

import math
import sys
import tempfile
from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TextIO, cast

import anyio
import anyio.abc
import httpx2
import mcp.types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CONNECTION_CLOSED, PARSE_ERROR
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._errors import AIWrapperError, ConnectionError
from .._wire._sizelimits import SizeLimits
from ._capped import capping_hook
from ._errors import MCPToolError
from ._stdio import StdioTransport
from ._tail import STDERR_TAIL_BYTES, OutputTail

__all__ = ["Connection", "TransportSpec"]

_MAX_PAGES = 1000  # a server that keeps handing out cursors must not hang the run
# Like a provider stream's longest event: an MCP message is read whole before it is parsed.
MESSAGE_BYTES = SizeLimits().frame_bytes
# Of the stderr tail kept, what an error quotes (as much as the errors quoted before the tail).
QUOTED_STDERR_CHARS = 2000


@dataclass(frozen=True, slots=True)
class TransportSpec:
    """How to reach a server: a command to start (stdio) or a URL (streamable HTTP)."""

    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] | None = None
    cwd: str | Path | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float | None = None  # bounds the handshake and each listing, as it bounds a call
    max_message_bytes: int = MESSAGE_BYTES

    @property
    def label(self) -> str:
        """The server as a person would name it in a message."""
        if self.url is not None:
            return self.url
        return " ".join([self.command or "", *self.args])


class Connection:
    """An open session with one MCP server (open and close it from the same task)."""

    def __init__(self, spec: TransportSpec) -> None:
        self.spec = spec
        self.changed = True  # the tool list must be read (again)
        self._stack = AsyncExitStack()
        self._client: Client | None = None
        self._errlog: IO[bytes] | None = None  # Windows: the mcp package's stdio client writes it
        self._stdio: StdioTransport | None = None
        self.stderr: OutputTail | None = None  # the tail of a stdio server's stderr
        self._lists_change = False  # the server announces tools/list_changed
        self._stop: anyio.Event | None = None  # set by close(): the session task leaves
        self.lost: AIWrapperError | None = None  # why the session ended before close()

    async def open(self) -> None:
        """Start the transport and the session; failures are ``ConnectionError``.

        The session lives in a task of its own: a transport that fails (a dropped HTTP
        stream) cancels that task, never the run that uses the connection.

        Raises:
            ConnectionError: The command is missing, the port refuses, the server exits.
        """
        self._stop = anyio.Event()
        try:
            transport = self._transport()  # its file and HTTP client close after the task
            group = await self._stack.enter_async_context(anyio.create_task_group())
            await group.start(self._hold, transport)
        except BaseException as exc:
            # Cancelled too: the task group entered above must be left before the caller's
            # cancel scope is, or anyio refuses to exit that scope (a RuntimeError). Not under
            # a shield: a task group is left only from the scope it was entered in.
            with suppress(Exception):
                await self._stack.aclose()
            if not isinstance(exc, Exception):
                raise
            raise self._failure("cannot connect to", exc) from exc

    async def close(self) -> None:
        """End the session; a stdio server's process is stopped (shielded from cancellation)."""
        if self._stop is not None:
            self._stop.set()
        with suppress(Exception):  # a server that already died has nothing left to close
            await self._stack.aclose()

    async def _hold(self, transport: Any, *, task_status: Any) -> None:
        """Enter the session, serve calls from other tasks until ``close``, leave it."""
        started, stop = False, self._stop
        assert stop is not None  # made by open(), which starts this task
        # The scope wraps the whole session (anyio's scopes must nest); its deadline is lifted
        # once the handshake is done.
        with anyio.CancelScope(deadline=_deadline(self.spec.timeout)) as handshake:
            try:
                async with (
                    Client(transport, message_handler=self._on_message) as client,
                    anyio.create_task_group() as listeners,
                ):
                    await self._watch_list_changes(client, listeners)
                    handshake.deadline = math.inf
                    self._client, started = client, True
                    task_status.started()
                    await stop.wait()
                    listeners.cancel_scope.cancel()
            except Exception as exc:
                if not started:
                    raise
                self.lost = self._failure("lost the connection to", exc)
            finally:
                self._client = None
        if handshake.cancelled_caught and not started:
            raise ConnectionError(
                f"MCP server {self.spec.label} did not answer the handshake within "
                f"{self.spec.timeout:g} s"
            )

    async def list_tools(self) -> list[types.Tool]:
        """Every tool of the server, following ``nextCursor`` page by page."""
        client = self._require()
        tools: list[types.Tool] = []
        cursor: str | None = None
        self.changed = False  # a change announced while listing triggers another read
        try:
            with anyio.move_on_at(_deadline(self.spec.timeout)):
                for _ in range(_MAX_PAGES):
                    page = await client.list_tools(cursor=cursor, cache_mode="refresh")
                    tools += page.tools
                    cursor = page.next_cursor
                    if cursor is None:
                        return tools
                raise ConnectionError(f"MCP server {self.spec.label}: tools/list never ended")
        except Exception as exc:
            self.changed = True  # read it again next time
            raise self._failure("cannot list the tools of", exc) from exc
        self.changed = True
        raise ConnectionError(
            f"MCP server {self.spec.label} did not list its tools within {self.spec.timeout:g} s"
        )

    async def call(self, name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        """Call a tool; a lost server is ``ConnectionError``, a refused call ``MCPToolError``."""
        client = self._require()
        try:
            return await client.call_tool(name, arguments)
        except MCPError as exc:
            if exc.code == CONNECTION_CLOSED:
                self.lost = self.lost or self._failure("lost the connection to", exc)
                raise self.lost from exc
            if exc.code == PARSE_ERROR:  # an answer that cannot be read, or one over the cap
                raise MCPToolError(f"cannot read the server's answer: {exc.message}") from exc
            raise MCPToolError(f"the server refused the call: {exc.message}") from exc
        except (httpx2.HTTPError, OSError, anyio.BrokenResourceError) as exc:
            self.lost = self.lost or self._failure("lost the connection to", exc)
            raise self.lost from exc
        except Exception as exc:  # e.g. structured content that fails its own output schema
            raise MCPToolError(f"{type(exc).__name__}: {exc}") from exc
        finally:
            # A server that announces list changes may have changed it in this very call, and
            # over HTTP its notice can arrive after the result: read the list again to be sure.
            self.changed = (self.changed or self._lists_change) and self.lost is None

    def _require(self) -> Client:
        if self.lost is not None:
            raise self.lost
        if self._client is None:
            raise ConnectionError(f"MCP server {self.spec.label} is not connected")
        return self._client

    def _transport(self) -> Any:
        spec = self.spec
        if spec.url is not None:
            http = httpx2.AsyncClient(
                headers=dict(spec.headers),
                timeout=httpx2.Timeout(30, read=300),
                event_hooks={"response": [capping_hook(spec.max_message_bytes)]},
            )
            self._stack.push_async_callback(http.aclose)
            return streamable_http_client(
                spec.url, http_client=http, max_sse_event_size=spec.max_message_bytes
            )
        env = dict(spec.env) if spec.env is not None else None
        if sys.platform != "win32":
            self._stdio = StdioTransport(
                spec.command or "",
                list(spec.args),
                env=env,
                cwd=spec.cwd,
                label=spec.label,
                max_message_bytes=spec.max_message_bytes,
            )
            self.stderr = self._stdio.stderr
            return self._stdio.connect()
        # Windows: the mcp package's client ends the server's process tree with a Job Object.
        # The server's stderr goes to a file, not the user's terminal; its tail explains failures.
        errlog = tempfile.TemporaryFile("w+b")  # noqa: SIM115 - closed by the stack
        self._stack.callback(errlog.close)  # closed with the connection, after the process
        self._errlog = errlog
        params = StdioServerParameters(
            command=spec.command or "", args=list(spec.args), env=env, cwd=spec.cwd
        )
        # Only its file descriptor is used: binary, so its tail can be read from an offset.
        return stdio_client(params, errlog=cast(TextIO, errlog))

    async def _on_message(self, message: object) -> None:
        # Handshake-era servers announce a changed list with a notification.
        if isinstance(message, types.ToolListChangedNotification):
            self.changed = True
        await anyio.lowlevel.checkpoint()

    async def _watch_list_changes(self, client: Client, group: anyio.abc.TaskGroup) -> None:
        """On 2026-07-28 a change arrives only on a ``subscriptions/listen`` stream."""
        capability = client.server_capabilities.tools
        self._lists_change = bool(capability and capability.list_changed)
        if self._lists_change and client.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await group.start(self._listen, client)

    async def _listen(self, client: Client, *, task_status: Any) -> None:
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                task_status.started()
                async for _event in subscription:
                    self.changed = True
        except Exception:  # e.g. SubscriptionLost: the session itself decides if it is lost
            pass  # no change stream: the list is still read after calls and on refresh()
        finally:
            with suppress(RuntimeError):  # started already
                task_status.started()

    def _failure(self, doing: str, exc: BaseException) -> AIWrapperError:
        """``exc`` (maybe an exception group) as aiwrapper's error, with the server's stderr."""
        leaf = _first_leaf(exc)
        if isinstance(leaf, AIWrapperError):
            return leaf
        if self._stdio is not None and self._stdio.failure is not None:
            reason = self._stdio.failure
        elif isinstance(leaf, FileNotFoundError) and self.spec.url is None:
            reason = f"command not found: {self.spec.command!r}"
        elif isinstance(leaf, MCPError):
            reason = leaf.message
        else:
            reason = f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__
        return ConnectionError(f"{doing} MCP server {self.spec.label}: {reason}{self._tail()}")

    def _tail(self) -> str:
        text = self.stderr.text() if self.stderr is not None else _file_tail(self._errlog)
        # The error may become a tool result the model reads: its last lines say why.
        text = text[-QUOTED_STDERR_CHARS:]
        return f"\nserver stderr:\n{text}" if text else ""


def _file_tail(log: IO[bytes] | None) -> str:
    """The end of a stderr file, read without reading it whole."""
    if log is None or log.closed:
        return ""
    with suppress(OSError, ValueError):
        log.flush()
        size = log.seek(0, 2)
        log.seek(max(0, size - STDERR_TAIL_BYTES))
        return log.read().decode("utf-8", errors="replace").strip()
    return ""


def _deadline(timeout: float | None) -> float:
    return math.inf if timeout is None else anyio.current_time() + timeout


def _first_leaf(exc: BaseException) -> BaseException:
    """The first real exception inside (nested) exception groups; anyio wraps failures."""
    inner: Sequence[BaseException] | None = getattr(exc, "exceptions", None)
    while inner:
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc
