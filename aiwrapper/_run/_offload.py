"""Heavy request work in a worker thread, so that one big request does not hold the event loop.

A request whose conversation is big (``is_heavy``: thousands of messages, or hundreds of KiB
of text and media) costs tens to hundreds of ms to copy, check and encode, all of it holding
the event loop of whoever awaits it: a gateway serving other clients, an async service. That
work is pure computation on values nobody else changes meanwhile, so ``off_loop`` runs it in
a worker thread and the loop only awaits the outcome; a small request keeps its direct path,
where a thread would cost more than the work.

A thread alone does not free the loop, because every step that holds the GIL holds the loop
too. So, while heavy work runs (one piece at a time in the whole process, see ``heavy_work``):

- the switch interval (5 ms by default, how long the loop waits for the GIL while a worker
  computes) is ``SWITCH_INTERVAL``;
- the garbage collector is paused: a full collection cannot be interrupted and walks every
  tracked object (about 100 ms over a big conversation). What the work leaves alive is moved
  to the oldest generation without a walk, in the worker, not walked by young collections
  later on the loop. In a process that holds frozen objects (``serve`` freezes what it
  loaded; Python 3.12 starts with some) that move would unfreeze them, so there the collector
  runs young collections only, in short walks;
- a single call into C must stay short: json's encoder holds the GIL for a whole value, so a
  body is written a slice of each long list at a time (``_bodybytes``);
- freeing a big value is one uninterruptible cascade; ``take_apart`` frees JSON values a
  container at a time instead.

Cancellation waits for the worker (anyio's default): the work is bounded computation, and a
worker abandoned mid-way would still hold the lock, the collector and the switch interval for
others. Its outcome is then dropped, and the cancellation goes on.
"""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any, TypeVar

import anyio.lowlevel
import anyio.to_thread

from .._conversation._media import Media
from .._conversation._messages import LangMessage
from .._conversation._parts import MediaPart, TextPart, ThinkingPart, ToolCallPart

__all__ = [
    "HEAVY_BYTES",
    "SWITCH_INTERVAL",
    "YOUNG_AFTER_WORK",
    "heavy_work",
    "is_heavy",
    "is_heavy_input",
    "off_loop",
    "take_apart",
]

T = TypeVar("T")

# Content (characters of text, bytes of media) past which a request's work goes to a worker:
# under it, copying, checking and encoding take about a ms or less.
HEAVY_BYTES = 256 * 1024
# Messages past which a conversation is heavy whatever they hold (each costs µs to handle);
# under it, the estimate walks them, which costs little next to handling them.
_MANY_MESSAGES = 2_048
# What any part counts for besides its text or data: a few thousand parts at most are looked at.
_PART = 64
# How long a worker doing heavy work may keep the GIL while the loop waits for it.
SWITCH_INTERVAL = 0.0005
# Past this many young objects left by heavy work, they are collected before the loop gets them.
YOUNG_AFTER_WORK = 10_000
# A full-collection threshold never reached while heavy work runs.
_NO_FULL_COLLECTION = 1 << 30
# One piece of heavy work at a time, in the whole process (whose are the collector and the
# switch interval): the collector's pauses stay apart, and so does the memory of the work.
_HEAVY = threading.Lock()


def is_heavy(messages: Sequence[LangMessage]) -> bool:
    """Whether sending ``messages`` is heavy work (see the module docstring), estimated from
    their count and the size of their parts, without looking at more than a few thousand."""
    if len(messages) >= _MANY_MESSAGES:
        return True
    size = 0
    for message in messages:
        size = _message_size(message, size)
        if size >= HEAVY_BYTES:
            return True
    return False


def is_heavy_input(given: object) -> bool:
    """``is_heavy`` for what ``chat`` is given: ``LangMessage``s or message dicts (whose
    ``content`` is a string or a list of parts), before they are read."""
    if not isinstance(given, list):  # a prompt, or an iterable read as it goes: not estimated
        return False
    if len(given) >= _MANY_MESSAGES:
        return True
    size = 0
    for message in given:
        if isinstance(message, LangMessage):
            size = _message_size(message, size)
        elif isinstance(message, dict):
            size = _dict_size(message, size)
        if size >= HEAVY_BYTES:
            return True
    return False


def _message_size(message: LangMessage, size: int) -> int:
    """``size`` plus what ``message`` weighs, counted until ``HEAVY_BYTES`` is reached."""
    for part in message.parts:
        kind = part.__class__
        if kind is TextPart or kind is ThinkingPart:
            size += _PART + len(part.text)  # type: ignore[union-attr]
        elif kind is MediaPart:
            size += _PART + _media_size(part.media)  # type: ignore[union-attr]
        elif kind is ToolCallPart:
            size += _PART + _text_size(part.call.raw_arguments)  # type: ignore[union-attr]
        else:
            size += _PART
        if size >= HEAVY_BYTES:
            break
    return size


def _dict_size(message: dict[Any, Any], size: int) -> int:
    """``size`` plus what a message dict weighs (its text, its parts, its calls), counted
    until ``HEAVY_BYTES`` is reached."""
    content = message.get("content")
    size += _PART + _text_size(content)
    for items in (content, message.get("tool_calls")):
        if isinstance(items, list):
            for item in items:
                size += _PART + _text_size(_text_of(item))
                if size >= HEAVY_BYTES:
                    return size
    return size


def _text_of(item: object) -> object:
    """A part's text, or a call's arguments, in a message dict."""
    if not isinstance(item, dict):
        return None
    function = item.get("function")
    if isinstance(function, dict):
        return function.get("arguments")
    return item.get("text")


def _text_size(text: object) -> int:
    return len(text) if isinstance(text, str) else 0


def _media_size(media: Media) -> int:
    data = media._data
    return len(data) if data is not None else 0


async def off_loop(work: Callable[[], T]) -> T:
    """``work()`` in a worker thread, within ``heavy_work``; the loop awaits its outcome.

    A cancellation waits for ``work`` to finish (it is bounded computation), then goes on
    from here: the outcome is dropped, whatever the rest of the caller would not await.
    """
    outcome = await anyio.to_thread.run_sync(_in_heavy_work, work)
    await anyio.lowlevel.checkpoint_if_cancelled()
    return outcome


def _in_heavy_work(work: Callable[[], T]) -> T:
    with heavy_work():
        return work()


@contextmanager
def heavy_work() -> Iterator[None]:
    """The conditions heavy work runs under in its worker (see the module docstring): alone
    in the process, without automatic collections, with a short switch interval."""
    with _HEAVY, _collector_held(), _fine_switching():
        yield


def _collector_held() -> AbstractContextManager[None]:
    """No full collection meanwhile: the collector paused, or, in a process that froze
    objects of its own (``serve`` freezes what it loaded), kept to young collections."""
    return _young_collections_only() if gc.get_freeze_count() else _collector_paused()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """No automatic garbage collection meanwhile (one piece of heavy work at a time).

    What the work leaves alive (a served request's conversation: about 140,000 objects for an
    8 MiB one) is all young then. Left to the collector, it would be walked by one young
    collection and again as it ages, the second time likely on the loop; it is moved to the
    oldest generation here instead (``_promote_young``).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_count()[0] > YOUNG_AFTER_WORK:
                _promote_young()
            gc.enable()


def _promote_young() -> None:
    """Move every young object to the oldest generation.

    Freezing and unfreezing does it without walking them: each moves whole generations, as
    two splices of the collector's lists (a young collection would walk them all, about 20 ms
    for an 8 MiB conversation, the loop waiting). What the process froze itself would be
    unfrozen too: such a process is never paused (``_young_collections_only``).
    """
    if gc.get_freeze_count():  # frozen meanwhile: walked by a young collection instead
        gc.collect(1)
        return
    gc.freeze()
    gc.unfreeze()


@contextmanager
def _young_collections_only() -> Iterator[None]:
    """The collector runs, but never a full collection meanwhile.

    Young collections then walk what the work makes a few thousand objects at a time, each
    well under a ms, where a young collection of it all at the end would hold the GIL tens
    of ms. The survivors age as usual; a process that froze objects is spared a walk of
    those only in full collections, which this leaves to their usual pace.
    """
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, _NO_FULL_COLLECTION)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, old)


@contextmanager
def _fine_switching() -> Iterator[None]:
    """The GIL passes between threads every ``SWITCH_INTERVAL`` meanwhile."""
    interval = sys.getswitchinterval()
    sys.setswitchinterval(min(interval, SWITCH_INTERVAL))
    try:
        yield
    finally:
        sys.setswitchinterval(interval)


def take_apart(held: list[Any]) -> None:
    """Empty ``held`` and free the JSON values it held a container at a time.

    Freeing a big JSON value at once is one uninterruptible cascade; emptied container by
    container, it yields the GIL at every switch interval. A container something else still
    refers to (a request keeping a tool's schema, say) is left whole, never emptied: its
    holder frees it in time.
    """
    stack = held
    references = sys.getrefcount
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            if references(item) > _SOLE_REFERENCES:
                continue
            stack.extend(item.values())
        elif kind is list:
            if references(item) > _SOLE_REFERENCES:
                continue
            stack.extend(item)
        else:
            continue  # a string or a number: nothing under it
        item.clear()


def _sole_references() -> int:
    """What ``take_apart`` counts for a container nothing else holds, found with the very
    statements it runs: interpreters differ in the references they count (3.14 borrows some)."""
    stack: list[Any] = [[]]
    references = sys.getrefcount
    item = stack.pop()
    return references(item)


_SOLE_REFERENCES = _sole_references()
