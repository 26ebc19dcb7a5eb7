"""The stdio transport: JSON-RPC lines to and from a server process, with bounds on everything.

This module owns what the ``mcp`` package's stdio client leaves open (POSIX): the server runs
in a process group of its own, ended whole on close (see :mod:`aiwrapper.mcp._process`); its
stderr is read as it comes and only the last 64 KiB are kept; a message longer than
``max_message_bytes`` ends the connection instead of being read whole; a line of stdout that
is not JSON-RPC (a server printing a banner) is logged once and skipped; an answer the
``mcp`` package cannot read (a schema nested too deep) becomes an error answer to its request
at once instead of leaving the request waiting. The session on top is the ``mcp`` package's.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

import anyio
import anyio.abc
from anyio.streams.buffered import BufferedByteReceiveStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage
from mcp_types import PARSE_ERROR, ErrorData, JSONRPCError, jsonrpc_message_adapter
from pydantic import ValidationError

from ._capped import too_large
from ._process import spawn, stop
from ._tail import OutputTail

__all__ = ["StdioTransport", "log"]

log = logging.getLogger("aiwrapper.mcp")
_NOISE_SHOWN = 200  # characters of a non-protocol line quoted in the log

Streams = tuple[
    MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]
]


class StdioTransport:
    """One server process spoken to over stdio; ``connect()`` is the ``mcp`` client's transport.

    Attributes:
        stderr: The tail of the server's stderr.
        failure: Why the server's stdout was given up on (a message over the size cap), if so.
    """

    def __init__(
        self,
        command: str,
        args: list[str],
        *,
        env: dict[str, str] | None,
        cwd: Any,
        label: str,
        max_message_bytes: int,
    ) -> None:
        self._command, self._args, self._env, self._cwd = command, args, env, cwd
        self._label = label
        self._max = max_message_bytes
        self._noisy = False  # a non-protocol line was logged already
        self.stderr = OutputTail()
        self.failure: str | None = None

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[Streams]:
        """Start the server; yield the session's streams; stop the server (and its group)."""
        env = get_default_environment() | (self._env or {})
        process = await spawn(self._command, self._args, env=env, cwd=self._cwd)
        to_session, from_server = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        to_server, from_session = anyio.create_memory_object_stream[SessionMessage](0)
        stderr_read = anyio.Event()
        async with anyio.create_task_group() as outer:
            outer.start_soon(self._read_stderr, process, stderr_read)
            try:
                async with anyio.create_task_group() as group:
                    group.start_soon(self._read_stdout, process, to_session)
                    group.start_soon(self._write_stdin, process, from_session, to_session)
                    try:
                        yield from_server, to_server
                    finally:
                        group.cancel_scope.cancel()
            finally:
                await stop(process)
                # Its last words explain a failure: read stderr to its end (now near).
                with anyio.CancelScope(shield=True), anyio.move_on_after(1):
                    await stderr_read.wait()
                for stream in (to_session, from_server, to_server, from_session):
                    stream.close()
                outer.cancel_scope.cancel()
                with anyio.CancelScope(shield=True), suppress(OSError, anyio.BrokenResourceError):
                    await process.stderr.aclose()  # type: ignore[union-attr]  # spawned with pipes

    async def _read_stdout(
        self, process: anyio.abc.Process, to_session: MemoryObjectSendStream[Any]
    ) -> None:
        assert process.stdout is not None  # spawned with pipes
        lines = BufferedByteReceiveStream(process.stdout)
        async with to_session:
            with suppress(anyio.EndOfStream, anyio.IncompleteRead, anyio.BrokenResourceError):
                while True:
                    try:
                        line = await lines.receive_until(b"\n", self._max)
                    except anyio.DelimiterNotFound:
                        self.failure = too_large(self._max)
                        return  # the session sees the connection end; its requests fail
                    message = self._decode(line)
                    if message is not None:
                        await to_session.send(message)

    async def _write_stdin(
        self,
        process: anyio.abc.Process,
        from_session: MemoryObjectReceiveStream[SessionMessage],
        to_session: MemoryObjectSendStream[Any],
    ) -> None:
        assert process.stdin is not None  # spawned with pipes
        try:
            async for message in from_session:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send(data.encode() + b"\n")
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await to_session.aclose()  # the server stopped reading: no request waits forever

    async def _read_stderr(self, process: anyio.abc.Process, done: anyio.Event) -> None:
        assert process.stderr is not None  # spawned with pipes
        try:
            async for chunk in process.stderr:
                self.stderr.feed(chunk)
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
        finally:
            done.set()

    def _decode(self, line: bytes) -> SessionMessage | None:
        """A line of stdout as a message, an error answer to its request, or nothing."""
        line = line.rstrip(b"\r")
        if not line.strip():
            return None
        try:
            return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
        except ValueError as exc:  # pydantic's ValidationError among them
            request = _answered_request(line)
            if request is None:
                self._noise(line)
                return None
            reason = _reason(exc)
            error = ErrorData(code=PARSE_ERROR, message=f"unreadable answer: {reason}")
            return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request, error=error))

    def _noise(self, line: bytes) -> None:
        # Once at WARNING, then DEBUG: a server that logs to stdout would flood the log.
        text = line[: _NOISE_SHOWN * 4].decode("utf-8", errors="replace")[:_NOISE_SHOWN]
        level = logging.DEBUG if self._noisy else logging.WARNING
        self._noisy = True
        log.log(
            level,
            "MCP server %s wrote text that is not MCP to its stdout "
            "(ignored, and so are the next lines like it): %r",
            self._label,
            text,
        )


def _reason(exc: ValueError) -> str:
    if isinstance(exc, ValidationError) and exc.error_count():
        return str(exc.errors(include_url=False)[0]["msg"])
    return str(exc).split("\n", 1)[0]


def _answered_request(line: bytes) -> int | str | None:
    """The id of the request a JSON-RPC answer the ``mcp`` package could not read is for."""
    try:
        data = json.loads(line)
    except RecursionError:  # nested past the parser's depth: its top level read without it
        data = _top_level(line.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    if not isinstance(data, dict) or not ("result" in data or "error" in data):
        return None
    ident = data.get("id")
    return ident if isinstance(ident, (int, str)) and not isinstance(ident, bool) else None


# A JSON string, or one of the characters that change the nesting or end a value.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]')


def _top_level(text: str) -> dict[str, object]:
    """An object's top-level keys, each with its value when that is a string or an integer
    (deeper values as None), read with no recursion however deep the rest is nested."""
    found: dict[str, object] = {}
    depth, key = 0, None
    for token in _TOKEN.finditer(text):
        kind = token.group()
        if kind in "{[":
            depth += 1
        elif kind in "}]":
            depth -= 1
        elif depth == 1 and kind == ":" and key is not None:
            found[key] = _scalar(text, token.end())
        elif depth == 1 and kind[0] == '"':
            key = json.loads(kind)
    return found


def _scalar(text: str, start: int) -> object:
    """The string or integer at ``start`` (after a colon), or None for anything else."""
    value = text[start : start + 200].lstrip()
    match = re.match(r'-?\d+|"(?:[^"\\]|\\.)*"', value)
    return json.loads(match.group()) if match else None
