"""``SizeLimits``: how much of a response, an error body or a tool result the SDK keeps.

A misbehaving server can stream a line that never ends or a body without end, and a tool can
return megabytes; these caps keep memory bounded. Exceeding a stream limit is a
``StreamError`` that names the limit; an error body and a tool result are cut, with a marker
saying so. The transport (``_http.py``), the framing and the tool executor read them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .._errors import ConfigError

__all__ = ["SizeLimits", "clip_text"]


@dataclass(frozen=True, slots=True)
class SizeLimits:
    """Caps on what is read from a provider and sent back to it (the ``limits`` option).

    Attributes:
        frame_bytes: The longest SSE event or NDJSON line of a stream (default 32 MiB).
        body_bytes: The largest response body, streamed or not (default 512 MiB).
        error_body_bytes: How much of an error response is read and kept on
            ``ProviderError.body`` (default 64 KiB); the rest is cut, with a marker.
        tool_result_chars: The longest tool result sent to the model (default 100,000
            characters); a longer one is cut, with a note telling the model so.
    """

    frame_bytes: int = 32 * 2**20
    body_bytes: int = 512 * 2**20
    error_body_bytes: int = 64 * 2**10
    tool_result_chars: int = 100_000

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if type(value) is not int or value < 1:
                raise ConfigError(
                    f"SizeLimits.{spec.name} must be an int of at least 1, not {value!r}"
                )


def clip_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with a visible note when anything was cut."""
    if len(text) <= limit:
        return text
    return (
        f"{text[:limit]}\n[... result truncated: {len(text) - limit:,} of {len(text):,} "
        "characters not shown]"
    )
