"""``HttpModel``: a provider's wire format plus the HTTP transport, together a ``Model``.

The glue between the protocol and transport layers: encode the request, send it, cut the
body into SSE events or NDJSON lines, feed them to the provider's decoder and hand every event
to the loop's sink. It knows no wire format itself (that stays in ``providers/<name>.py``) and
no httpx (that stays in ``_http.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NoReturn, Protocol

from typing_extensions import Unpack

from .. import _errors as errors
from .._conversation._events import Event
from .._run._bodybytes import body_bytes
from .._run._contract import EventSink, Provider, ProviderRequest, StreamDecoder, output_support
from .._run._offload import is_heavy, off_loop, take_apart
from .._wire._credentials import BearerToken
from .._wire._eventstream import EventStreamDecoder
from .._wire._framing import NDJSONDecoder, SSEDecoder, SSEEvent
from .._wire._http import HttpSettings, HttpTransport
from .._wire._httpcall import HttpCall
from .._wire._sizelimits import SizeLimits
from ._genai_names import genai_name

__all__ = ["HttpModel"]

_FeedMany = Callable[[list[Any], list[Event]], None]


class Signer(Protocol):
    """Signs a request over its exact body (the headers to add)."""

    async def headers(self, url: str, body: dict[str, Any]) -> dict[str, str]: ...


class _Frames(Protocol):
    def feed(self, chunk: bytes) -> list[Any]: ...
    def flush(self) -> list[Any]: ...


_DEFAULT_SIZES = SizeLimits()  # frozen: one for every request that sets none


class HttpModel:
    """A ``Model`` that talks to a provider over HTTP.

    Args:
        provider: The wire format (OpenAI, Anthropic, ...), already configured.
        transport: Sends the requests; shared by every call of this model.
        model: The model name, as the provider spells it.
    """

    def __init__(self, provider: Provider, transport: HttpTransport, *, model: str) -> None:
        if provider.framing not in ("sse", "ndjson", "eventstream"):
            raise errors.ConfigError(f"Unknown framing {provider.framing!r} of {provider.name}")
        self.name = provider.name
        self.genai_name = genai_name(provider.name)  # telemetry: gen_ai.provider.name
        self.output_support = output_support(provider)
        self.model = model
        self.provider = provider
        self.transport = transport
        # Credentials that refresh themselves (a cloud's tokens), where the provider has them.
        self.auth: BearerToken | None = getattr(provider, "auth", None)
        # A signature over each request's bytes (AWS SigV4), where the provider signs.
        self.signer: Signer | None = getattr(provider, "signer", None)

    @classmethod
    def connect(cls, provider: Provider, model: str, **settings: Unpack[HttpSettings]) -> HttpModel:
        """``provider`` over a new transport made from ``settings`` (what a factory builds)."""
        return cls(provider, HttpTransport(**settings), model=model)

    async def send(self, request: ProviderRequest, sink: EventSink) -> None:
        """Run one round and hand every event to ``sink`` in order.

        Raises:
            ProviderError: the provider answered with an error (status, or inside the stream).
            ConnectionError: the provider could not be reached.
            RequestTimeoutError: the provider did not answer in time.
            StreamError: the response broke off or could not be decoded.
        """
        if is_heavy(request.messages):  # encoded and written off the event loop
            call = await off_loop(partial(self._written, request))
        else:
            encoded = self.provider.encode(request)
            # Named for the log lines; built directly, at half the cost of dataclasses.replace.
            call = HttpCall(
                encoded.url, encoded.headers, encoded.body, encoded.stream, self.name, request.model
            )
        if self.signer is not None:
            signed = await self.signer.headers(call.url, call.body)
            headers = {**call.headers, **signed}
            call = HttpCall(
                call.url, headers, call.body, call.stream, call.provider, call.model, call.content
            )
        if self.auth is not None:
            await self._send_authorized(self.auth, call, request, sink)
            return
        await self._send(call, request, sink)

    def _written(self, request: ProviderRequest) -> HttpCall:
        """The call for a heavy ``request``, its body written to bytes, in a worker thread
        (``_run._offload``). The body itself is kept for a signer only; otherwise it is freed
        here, a piece at a time, rather than at once on the loop."""
        encoded = self.provider.encode(request)
        content = body_bytes(encoded.body)
        body = encoded.body if self.signer is not None else {}
        call = HttpCall(
            encoded.url, encoded.headers, body, encoded.stream, self.name, request.model, content
        )
        if self.signer is None:
            held = [encoded.body]
            del encoded, body
            take_apart(held)
        return call

    async def _send(self, call: HttpCall, request: ProviderRequest, sink: EventSink) -> None:
        limits = request.options.limits or _DEFAULT_SIZES
        if call.stream:
            await self._send_stream(call, request, sink, limits)
            return
        body = await self.transport.request_json(call, self.provider.error, limits=limits)
        await sink(self._decode(lambda: self.provider.decode_response(body, request)))

    async def _send_authorized(
        self, auth: BearerToken, call: HttpCall, request: ProviderRequest, sink: EventSink
    ) -> None:
        """Send with the current token; on a 401, refresh it once and send once more.

        Only a refusal before any event is retried: an answer that already reached ``sink``
        is never asked for twice.
        """
        token = await auth.token()
        heard = False

        async def watched(events: list[Event]) -> None:
            nonlocal heard
            heard = heard or bool(events)
            await sink(events)

        try:
            await self._send(_with_token(call, token), request, watched)
        except errors.AuthenticationError:
            if heard:
                raise
            fresh = await auth.refresh(token)
            await self._send(_with_token(call, fresh), request, sink)

    async def aclose(self) -> None:
        """Release the transport's connections."""
        await self.transport.aclose()

    async def _send_stream(
        self, call: HttpCall, request: ProviderRequest, sink: EventSink, limits: SizeLimits
    ) -> None:
        decoder = self.provider.decode_stream(request)
        framer, feed_many = self._framing(decoder, limits.frame_bytes)
        frames = framer.feed  # the per-chunk path is hot: locals, no extra calls
        async with self.transport.stream(call, self.provider.error, limits=limits) as chunks:
            async for chunk in chunks:
                batch: list[Event] = []
                try:
                    feed_many(frames(chunk), batch)
                except Exception as exc:
                    await sink(batch)  # what arrived before the error is kept in the result
                    self._raise(exc)
                if batch:
                    await sink(batch)  # outside the try: the sink's errors stay its own
        tail: list[Event] = []
        try:
            feed_many(framer.flush(), tail)
            tail += decoder.close()
        except Exception as exc:
            await sink(tail)
            self._raise(exc)
        await sink(tail)

    def _decode(self, decode: Callable[[], list[Event]]) -> list[Event]:
        """Run a decoding step, reporting a decoder's own bugs as ``StreamError``."""
        try:
            return decode()
        except errors.AIWrapperError:
            raise
        except Exception as exc:
            raise self._undecodable(exc) from exc

    def _framing(self, decoder: StreamDecoder, most: int | None) -> tuple[_Frames, _FeedMany]:
        """The body's framing, and how a chunk's frames (SSE events or NDJSON lines) go to
        the decoder together."""
        if self.provider.framing == "sse":
            return SSEDecoder(most), _batched(decoder, sse=True)
        if self.provider.framing == "eventstream":  # messages come out as (name, data) too
            return EventStreamDecoder(most), _batched(decoder, sse=True)
        return NDJSONDecoder(most), _batched(decoder, sse=False)

    def _raise(self, exc: Exception) -> NoReturn:
        """Raise a decoding failure: the SDK's own errors as they are, a decoder's bugs as
        ``StreamError``."""
        if isinstance(exc, errors.AIWrapperError):
            raise exc
        raise self._undecodable(exc) from exc

    def _undecodable(self, exc: Exception) -> errors.StreamError:
        return errors.StreamError(f"{self.name}: cannot decode the response ({exc!r})")


def _with_token(call: HttpCall, token: str) -> HttpCall:
    headers = {**call.headers, "Authorization": f"Bearer {token}"}
    return HttpCall(
        call.url, headers, call.body, call.stream, call.provider, call.model, call.content
    )


def _batched(decoder: StreamDecoder, sse: bool) -> _FeedMany:
    """The decoder's ``feed_events`` (SSE) or ``feed_lines`` (NDJSON), or else a loop that
    calls ``feed`` for each frame."""
    many: _FeedMany | None = getattr(decoder, "feed_events" if sse else "feed_lines", None)
    if many is not None:
        return many
    feed = decoder.feed

    def events_one_by_one(events: list[SSEEvent], into: list[Event]) -> None:
        for name, data in events:
            into += feed(name, data)

    def lines_one_by_one(lines: list[str], into: list[Event]) -> None:
        for line in lines:
            into += feed(None, line)

    return events_one_by_one if sse else lines_one_by_one
