"""A text delta and its tokens' log probabilities in one streamed event, for the fronts.

The run shows a text delta's log probabilities as a ``LogprobsDelta`` right after its
``TextDelta``, while a client expects them inside the wire event that carries the text.
``TextWithTokens`` wraps a front's stream encoder for a request that asked for them: each text
delta waits for the next event, and when that is its tokens the front writes the two as one.
Only such requests pay for the wait; the others keep their encoder's one-step path.
"""

from __future__ import annotations

from typing import Protocol

from .._conversation._result import LangResult
from .._conversation._runevents import LogprobsDelta, RunEvent, TextDelta
from ._serving import GatewayError, StreamEncoder

__all__ = ["TextWithTokens", "TokensEncoder"]


class TokensEncoder(StreamEncoder, Protocol):
    """A front's stream encoder that can write a text delta with its tokens."""

    def text_with_tokens(self, text: TextDelta | None, tokens: LogprobsDelta) -> bytes:
        """The wire event(s) for ``text`` carrying ``tokens`` (``text`` None: tokens that
        followed no text)."""
        ...


class TextWithTokens:
    """``inner``'s stream, each text delta written together with the tokens after it."""

    def __init__(self, inner: TokensEncoder) -> None:
        self._inner = inner
        self._held: TextDelta | None = None  # the text delta waiting for its tokens

    def event(self, event: RunEvent) -> bytes:
        """The bytes of the text delta held, if any, and of this event."""
        held, self._held = self._held, None
        inner = self._inner
        if event.__class__ is LogprobsDelta:
            return inner.text_with_tokens(held, event)
        out = b"" if held is None else inner.event(held)
        if event.__class__ is TextDelta:
            self._held = event
            return out
        return out + inner.event(event)

    def finish(self, result: LangResult) -> bytes:
        """The text delta held (no tokens came for it), then the end of the stream."""
        return self._release() + self._inner.finish(result)

    def error(self, error: GatewayError) -> bytes:
        """The text delta held (it was answered), then the failure."""
        return self._release() + self._inner.error(error)

    def _release(self) -> bytes:
        held, self._held = self._held, None
        return b"" if held is None else self._inner.event(held)
