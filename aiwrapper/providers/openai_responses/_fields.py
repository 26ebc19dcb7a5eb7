"""Reading the fields of Responses API events: item keys, text fields and usage.

Compatible servers leave fields out or null (no ``output_index`` on llama-server, ``"delta":
null`` on some gateways); a field of the wrong type is an error the decoder reports as a
``StreamError``, never a value passed on.
"""

from __future__ import annotations

from typing import Any

from ..._conversation._events import UsageEvent
from ..._wire._jsontext import dumps_compact

__all__ = [
    "Key",
    "event_key",
    "item_key",
    "output_index",
    "standard_json",
    "text_or_none",
    "usage_event",
]

_EMPTY: dict[str, Any] = {}

Key = str | int  # an output item's id, or its output_index when it has none


def usage_event(usage: dict[str, Any]) -> UsageEvent:
    """The terminal response's ``usage`` (output tokens include reasoning tokens)."""
    details_in = usage.get("input_tokens_details") or _EMPTY
    details_out = usage.get("output_tokens_details") or _EMPTY
    return UsageEvent(
        input_tokens=usage.get("input_tokens"),
        output_tokens=usage.get("output_tokens"),
        cached_input_tokens=details_in.get("cached_tokens"),
        cache_write_tokens=details_in.get("cache_write_tokens"),
        reasoning_tokens=details_out.get("reasoning_tokens"),
        raw=usage,
    )


def text_or_none(value: Any) -> str | None:
    """A text field, or None when absent or null (compatible gateways send "delta": null)."""
    if value is None or value.__class__ is str:
        return value
    raise TypeError(f"text expected, got {value!r:.80}")


def standard_json(value: Any) -> bool:
    """Whether ``value`` is standard JSON (no NaN or infinity, not nested beyond reach)."""
    try:  # the writer set up once: json.dumps with an option builds an encoder per call
        dumps_compact(value)
    except (ValueError, TypeError, RecursionError):
        return False
    return True


def event_key(payload: dict[str, Any]) -> Key:
    """The item a delta event belongs to: its ``item_id``, else its ``output_index``."""
    item_id: Key | None = payload.get("item_id")
    return item_id if item_id else output_index(payload)


def item_key(payload: dict[str, Any], item: dict[str, Any]) -> Key:
    """The key of the item an ``output_item`` event carries, matching ``event_key``."""
    item_id: Key | None = item.get("id")
    return item_id if item_id else output_index(payload)


def output_index(payload: dict[str, Any]) -> int:
    """The event's ``output_index`` (0 where the server sends none)."""
    index: int = payload.get("output_index", 0)
    return index
