"""A stdio server's process: started as the leader of a process group, ended group and all.

A server may start helpers of its own (a language server, a browser) and exit without them;
they stay in its process group, so ending the group on close leaves nothing running. A
helper that leaves the group (``setsid``, a daemon) escapes by design. POSIX only: on Windows
the ``mcp`` package's own transport, which uses a Job Object, starts and ends the server.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping
from contextlib import suppress
from pathlib import Path

import anyio
import anyio.abc

__all__ = ["spawn", "stop"]

_GRACE = 2.0  # seconds a server has to exit once its stdin is closed (the MCP shutdown rule)
_TERM_GRACE = 2.0  # seconds between SIGTERM and SIGKILL
_POLL = 0.02


async def spawn(
    command: str, args: list[str], *, env: Mapping[str, str], cwd: str | Path | None
) -> anyio.abc.Process:
    """Start ``command`` with piped stdio as the leader of a new session (and process group)."""
    return await anyio.open_process(
        [command, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=dict(env),
        cwd=cwd,
        start_new_session=True,
    )


async def stop(process: anyio.abc.Process) -> None:
    """Close stdin, let the server exit, then end whatever is left of its group.

    Shielded from cancellation and bounded in time: a cancelled run still stops its server.
    """
    with anyio.CancelScope(shield=True):
        async with anyio.create_task_group() as group:
            # Read to the end: a server blocked writing an answer nobody reads can exit, and
            # the pipe sees its end (else it is left open, to the garbage collector).
            group.start_soon(_drain, process.stdout)
            await _close(process.stdin)
            await _exited(process, _GRACE)
            # The leader's pid names its group even after it exited, while any member lives on.
            await _end_group(process.pid, process)
            group.cancel_scope.deadline = anyio.current_time() + _GRACE  # a helper that left
        await _close(process.stdout)


async def _drain(stream: anyio.abc.ByteReceiveStream | None) -> None:
    with suppress(OSError, anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
        while stream is not None:
            await stream.receive()


async def _close(stream: anyio.abc.AsyncResource | None) -> None:
    if stream is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await stream.aclose()


async def _end_group(group: int, process: anyio.abc.Process) -> None:
    if not _signal(group, signal.SIGTERM):
        return
    with anyio.move_on_after(_TERM_GRACE):
        while _signal(group, 0):
            _ = process.returncode  # reaps a dead leader (on trio), else its zombie lingers
            await anyio.sleep(_POLL)
        return
    _signal(group, signal.SIGKILL)
    await _exited(process, _TERM_GRACE)


def _signal(group: int, number: int) -> bool:
    """Send ``number`` to the group; whether anything may be left in it."""
    try:
        os.killpg(group, number)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member we may not signal (or a zombie, on macOS)
        return True
    return True


async def _exited(process: anyio.abc.Process, seconds: float) -> bool:
    # Not process.wait(): on asyncio it also waits for the pipes' end, which a helper that
    # inherited them keeps open after the server itself exited.
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(_POLL)
    return process.returncode is not None
