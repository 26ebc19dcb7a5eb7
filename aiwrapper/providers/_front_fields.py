"""Field rules every front-end shares: unknown fields, fields refused, the extra sampling fields.

A front-end translates each request field of its wire or refuses it with a 400 naming it,
never ignores it: a client that asked for something the answer does not honour must hear so.
Each front-end lists its wire's fields; these helpers refuse what is not listed, refuse a
listed field set to a value this gateway cannot serve, and read the sampling fields only
some backends have (``seed``, the penalties, ``logit_bias``, ``top_k``, the end user's id),
which reach the backend as options; a backend whose wire lacks one refuses it by name.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ._serving import bad_request, check_number, check_type

__all__ = [
    "check_flag",
    "read_sampling",
    "read_user",
    "refuse_extra",
    "refuse_set",
    "refuse_unknown",
    "refuse_unless",
    "refuse_value",
]

# Each sampling field's JSON type: "integer", "number", or a Python type.
_KINDS: dict[str, Any] = {
    "seed": "integer",
    "presence_penalty": "number",
    "frequency_penalty": "number",
    "top_k": "integer",
    "logit_bias": dict,
}


def refuse_unknown(body: Mapping[str, Any], known: Collection[str], where: str = "") -> None:
    """A 400 naming the first field of ``body`` not in ``known`` (sorted, so it is stable)."""
    unknown = sorted(str(key) for key in body if key not in known)
    if unknown:
        path = f"{where}.{unknown[0]}" if where else unknown[0]
        raise bad_request(f"unknown field {path!r}: this gateway does not support it", path)


def refuse_extra(
    item: Mapping[str, Any],
    known: frozenset[str],
    where: str,
    empty: Mapping[str, str] | None = None,
) -> None:
    """A 400 naming the first key of a nested object (a message, a part, a tool) at ``where``
    that is neither read (``known``) nor, set to null or an empty value, one of ``empty``.

    ``empty`` maps the keys a vendor's SDK writes when it replays its own objects to why the
    gateway cannot honour them set: a replay leaves them null or empty, and is served.
    """
    if item.keys() <= known:  # the common case, one set comparison
        return
    for key in sorted(str(k) for k in item if k not in known):
        reason = (empty or {}).get(key)
        if reason is not None and _empty(item[key]):
            continue
        path = f"{where}.{key}"
        why = reason or "this gateway does not support it"
        raise bad_request(
            f"unknown field {path!r}: {why}"
            if reason is None
            else f"{path!r} is not supported by this gateway: {why}",
            path,
        )


def _empty(value: object) -> bool:
    """Null, false or an empty string, list or object (not 0, which equals False)."""
    return value is None or value is False or (type(value) in (str, list, dict) and not value)


def refuse_unless(body: Mapping[str, Any], key: str, *accepted: Any) -> None:
    """A 400 naming ``key`` when it holds a value other than ``null`` or one of ``accepted``."""
    value = body.get(key)
    if value is not None and not any(value == ok for ok in accepted):
        raise bad_request(f"{key}={value!r} is not supported by this gateway", key)


def check_flag(item: Mapping[str, Any], key: str, where: str) -> bool | None:
    """``item[key]`` when absent, null, true or false; otherwise a 400 naming ``where.key``."""
    value = item.get(key)
    if value is not None and not isinstance(value, bool):
        raise bad_request(f"'{where}.{key}' must be true or false", f"{where}.{key}")
    return value


def refuse_value(
    item: Mapping[str, Any], key: str, where: str, accepted: Collection[Any], why: str
) -> None:
    """A 400 naming ``where.key`` when ``item`` sets it to neither null nor one of ``accepted``.

    A value matches only one of its own JSON type (``true`` is not ``1``); ``why`` says why the
    gateway cannot honour another.
    """
    value = item.get(key)
    if value is None or any(value == ok and type(value) is type(ok) for ok in accepted):
        return
    path = f"{where}.{key}"
    raise bad_request(f"{path}={value!r:.80} is not supported by this gateway: {why}", path)


def refuse_set(body: Mapping[str, Any], reasons: Mapping[str, str]) -> None:
    """A 400 naming the first field of ``reasons`` that ``body`` sets, with its reason."""
    for key, reason in reasons.items():
        if body.get(key) is not None:
            raise bad_request(f"{key!r} is not supported by this gateway: {reason}", key)


def read_sampling(body: Mapping[str, Any], keys: Collection[str]) -> dict[str, Any]:
    """The options for the sampling fields ``keys`` of ``body`` (each ``None`` when absent)."""
    options: dict[str, Any] = {}
    for key in keys:
        kind = _KINDS[key]
        if kind in ("integer", "number"):
            options[key] = check_number(body, key, integer=kind == "integer")
        else:
            options[key] = check_type(body, key, kind)
    return options


def read_user(body: Mapping[str, Any]) -> str | None:
    """The end user's id: ``safety_identifier`` (the newer name) or ``user``."""
    user = check_type(body, "safety_identifier", str) or check_type(body, "user", str)
    return str(user) if user else None
