"""Reading a request body into a front-end's request without holding the event loop.

A body under ``_INLINE_BODY_BYTES`` is read on the loop: a worker thread would cost more than
it does. A bigger one is read whole in a worker thread: parsed, checked and translated by its
front-end into the neutral conversation, so the loop only awaits the outcome. A thread alone
does not free the loop, because every step that holds the GIL holds the loop too. Measured on
an 8 MiB body of 40,000 tools, these held it for tens of ms each, and are avoided so:

- json's C parser holds the GIL for the whole document (about 10 ms a MiB), and its
  pure-Python one for each whole string, number or run of whitespace (one 8 MiB string: 10 to
  35 ms): past ``_PREEMPTIBLE_BODY_BYTES`` the body is read by ``_jsonsteps``, whose every
  call into C looks at 64 K characters at most;
- the switch interval itself (5 ms by default) is how long the loop waits for the GIL while a
  worker computes: it is 0.5 ms while such a body is read;
- a garbage collection cannot be interrupted, and a full one walks every tracked object: about
  100 ms over the 200,000 containers of a half-parsed body. The collector is paused while such
  a body is read, which is bounded in time, and one such body is read at a time; what the read
  leaves alive is collected once in the worker, not within the request's run on the loop;
- freeing a parsed body is one uninterruptible cascade (about 20 ms for that body, wherever
  its last reference goes, the loop included). It is taken apart piecewise in the worker, and
  a refusal reaches the loop without the traceback whose frames would still hold it.

The collector, the switch interval and the lock are those of all heavy work
(``_run._offload``), which a served big request goes on with: ``Lang.chat`` copies, checks,
encodes and writes it off the loop too. Once it is answered, ``release`` frees its
conversation in a worker, a step at a time.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from .._run._offload import heavy_work, take_apart
from ..providers._callstate import unpack_calls
from ..providers._serving import ClientRequest, Frontend, GatewayError, in_call_order
from ._jsonsteps import loads as loads_in_steps

if TYPE_CHECKING:
    from .._conversation._messages import LangMessages

__all__ = ["Decoded", "read_request", "release"]

logger = logging.getLogger("aiwrapper.gateway")

# Smaller bodies are read and decoded on the loop: a worker thread would cost more than they do.
_INLINE_BODY_BYTES = 8 * 1024
# Past this size json's C parser would hold the GIL (and so the loop) for more than a few ms.
_PREEMPTIBLE_BODY_BYTES = 256 * 1024
# Messages past which a served conversation is freed off the loop, and how many at a time.
_MANY_TO_RELEASE = 1_000
_RELEASE_STEP = 1_000


@dataclass(slots=True, frozen=True)
class Decoded:
    """A client's request as its front-end read it.

    Attributes:
        request: The decoded request.
        messages: Its conversation, with packed call state unpacked, in call order.
    """

    request: ClientRequest
    messages: LangMessages


async def read_request(front: Frontend, chunks: list[bytes]) -> Decoded:
    """The client's request in the body ``chunks``, or a ``GatewayError`` (400) in the client's
    shape. A big body's chunks are joined, and emptied, off the loop."""
    if sum(map(len, chunks)) < _INLINE_BODY_BYTES:
        return _decode(front, _parse(b"".join(chunks)))
    outcome = await anyio.to_thread.run_sync(_read_off_loop, front, chunks)
    if isinstance(outcome, GatewayError):
        raise outcome
    return outcome


async def release(decoded: Decoded) -> None:
    """Free a served request's conversation, when it is big, in a worker thread.

    The decoded request's two lists of messages (as sent, and in call order) hold the last
    references to the conversation once the answer is sent: dropped at once on the loop, they
    would be freed in one cascade (about 10 ms for thousands of messages). They are emptied in
    place instead, a thousand messages at a time.
    """
    if len(decoded.messages) >= _MANY_TO_RELEASE:
        lists = (decoded.request.messages, decoded.messages)
        await anyio.to_thread.run_sync(_empty_in_steps, lists)


def _empty_in_steps(lists: tuple[list[Any], ...]) -> None:
    for messages in lists:
        while messages:  # each step frees what only its messages held; the GIL passes between
            del messages[-_RELEASE_STEP:]


def _read_off_loop(front: Frontend, chunks: list[bytes]) -> Decoded | GatewayError:
    """``_decode`` in a worker thread; a refusal is returned, not raised (see ``_detached``)."""
    body = b"".join(chunks)
    chunks.clear()  # the body is held once, and its chunks are freed here
    if len(body) < _PREEMPTIBLE_BODY_BYTES:
        return _read_held(front, body)
    with heavy_work():  # alone, without collections, with a short switch interval
        return _read_held(front, body)


def _read_held(front: Frontend, body: bytes) -> Decoded | GatewayError:
    held: list[Any] = []  # the only reference to the parsed body, so it can be taken apart
    try:
        held.append(_parse(body))
        return _decode(front, held[0])
    except GatewayError as error:
        return _detached(error)
    finally:
        take_apart(held)


def _parse(body: bytes) -> Any:
    """The body's JSON; a 400 when it is not JSON. Past ``_PREEMPTIBLE_BODY_BYTES`` it is read
    in short steps (``_jsonsteps``): slower, but giving the loop the GIL between them."""
    try:
        if len(body) < _PREEMPTIBLE_BODY_BYTES:
            return json.loads(body)
        return loads_in_steps(body)
    except (ValueError, RecursionError) as exc:
        raise GatewayError(400, "invalid_request", "the body is not valid JSON") from exc


def _decode(front: Frontend, parsed: Any) -> Decoded:
    try:
        request = front.decode(parsed)
        unpack_calls(request.messages)
        return Decoded(request, in_call_order(request.messages))
    except GatewayError:
        raise
    except Exception as exc:  # a shape no check foresaw: the client's mistake, never a 500
        logger.warning("gateway: a request no front-end check refused failed to decode: %r", exc)
        raise GatewayError(400, "invalid_request", "the request could not be read") from exc


def _detached(error: GatewayError) -> GatewayError:
    """``error`` without the tracebacks of its chain: their frames hold the parsed body, which
    would otherwise be freed in one piece wherever the error is dropped (on the loop)."""
    seen: set[int] = set()
    chain: list[BaseException | None] = [error]
    while chain:
        link = chain.pop()
        if link is not None and id(link) not in seen:  # a chain set by hand may loop
            seen.add(id(link))
            link.__traceback__ = None
            chain += (link.__cause__, link.__context__)
    return error
