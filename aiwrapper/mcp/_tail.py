"""``OutputTail``: the last bytes of a stream a server writes, kept to explain its failure.

An MCP server's stderr can run to hundreds of megabytes (a debug log left on); only its end
is useful in an error message, so only the end is ever held in memory.
"""

from __future__ import annotations

__all__ = ["STDERR_TAIL_BYTES", "OutputTail"]

STDERR_TAIL_BYTES = 64 * 2**10  # of a server's stderr, kept for error messages


class OutputTail:
    """The last ``limit`` bytes written to a stream: enough to explain a failure, never more."""

    __slots__ = ("_buffer", "limit")

    def __init__(self, limit: int = STDERR_TAIL_BYTES) -> None:
        self.limit = limit
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> None:
        """Add what the stream wrote next, forgetting what falls out of the window."""
        self._buffer += chunk[-self.limit :]
        if len(self._buffer) > self.limit:
            del self._buffer[: -self.limit]

    @property
    def size(self) -> int:
        """How many bytes are held (at most ``limit``)."""
        return len(self._buffer)

    def text(self) -> str:
        """The tail as text (undecodable bytes replaced), without surrounding blank space."""
        return self._buffer.decode("utf-8", errors="replace").strip()
