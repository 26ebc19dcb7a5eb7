"""The OpenAI Responses API (``POST {base}/responses``), for OpenAI and compatible servers.

``_decode`` turns its SSE events and whole ``response`` bodies into neutral events and keeps a
turn's output items for replay; ``_errors`` reads the errors that arrive inside a 200 answer.
"""

from __future__ import annotations

from ._decode import ResponsesStreamDecoder

__all__ = ["NAME", "ResponsesStreamDecoder"]

NAME = "openai-responses"
