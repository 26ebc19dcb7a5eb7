"""The values inside a conversation document: JSON data, a call's result, images, documents.

The document (``_document.py``) is made of messages, parts and calls; this module owns what
they carry: provider state and arguments as plain JSON (checked, and copied, on the way out
and in, so that the document and the conversation never share a mutable object), a call's
``result`` tagged by how faithfully it could be written, and images and documents with their
bytes as base64. Each problem is a ``ConfigError`` naming its place in the document
(``messages[3].parts[1].state.data``).
"""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Callable
from typing import Any

from .._errors import ConfigError
from ._media import Document, Image, Media
from ._serialize import to_jsonable

__all__ = [
    "MAX_DEPTH",
    "Fail",
    "fields_of",
    "kind_of",
    "plain",
    "read_media",
    "read_result",
    "unreadable",
    "unwritable",
    "write_media",
    "write_result",
]

# Deeper than any provider's state or a sane call's arguments; what nests further is refused
# by path rather than walked into the interpreter's recursion limit.
MAX_DEPTH = 100

Fail = Callable[[str, str], ConfigError]


def unwritable(path: str, problem: str) -> ConfigError:
    """The error for a conversation that cannot be written, at ``path``."""
    return ConfigError(f"cannot write the conversation as JSON: {path}: {problem}")


def unreadable(path: str, problem: str) -> ConfigError:
    """The error for a document that cannot be read, at ``path``."""
    return ConfigError(f"not a conversation document aiwrapper can read: {path}: {problem}")


def kind_of(value: object) -> str:
    """A value's JSON kind (or Python type) for an error message."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean"}
    if value is None:
        return "null"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "a number"
    return names.get(type(value), type(value).__name__)


def fields_of(
    value: object, path: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``value`` as an object with all of ``required`` and nothing but ``optional`` beside.

    A key this version does not know is refused, never dropped: a newer writer that adds one
    bumps the version, and a document must not lose what it holds on the way in.
    """
    if not isinstance(value, dict):
        raise unreadable(path, f"expected an object, not {kind_of(value)}")
    missing = [key for key in required if key not in value]
    if missing:
        raise unreadable(path, f"missing {', '.join(map(repr, missing))}")
    unknown = [key for key in value if key not in required and key not in optional]
    if unknown:
        shown = ", ".join(f"{key!r:.40}" for key in unknown[:5])
        raise unreadable(path, f"unknown field {shown}")
    return value


def plain(value: Any, path: str, fail: Fail, depth: int = 0) -> Any:
    """A copy of ``value`` made of JSON data only: objects with string keys, lists, strings,
    finite numbers, booleans and null (a tuple is written as the list JSON makes of it).

    Raises:
        ConfigError: Something else, a NaN or an infinity, or nesting past ``MAX_DEPTH``.
    """
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return value if type(value) is str else str(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        raise fail(path, f"{value!r} is not a JSON number")
    if depth >= MAX_DEPTH:
        raise fail(path, f"nested deeper than {MAX_DEPTH} levels")
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise fail(path, f"the key {key!r:.40} is not a string")
            out[str(key)] = plain(item, _member(path, key), fail, depth + 1)
        return out
    if isinstance(value, list) or (fail is unwritable and isinstance(value, tuple)):
        return [plain(item, f"{path}[{i}]", fail, depth + 1) for i, item in enumerate(value)]
    raise fail(path, f"{kind_of(value)} is not JSON data")


def _member(path: str, key: str) -> str:
    return f"{path}.{key}" if key.isidentifier() else f"{path}[{key!r:.40}]"


# --- a call's result ---------------------------------------------------------------------


def write_result(value: Any, path: str) -> dict[str, Any] | None:
    """A call's ``result`` as a tagged object (``None`` for no result).

    ``{"value": v}`` holds JSON data: the result itself, or what the tool-result rule
    (``to_jsonable``) made of another value (a dataclass, a date, a set: the JSON the model
    was sent), which is what reads back. ``{"repr": text, "from": "module.Type"}`` keeps a
    value not even that rule can write (it raised) as its ``repr``, read back as that text.
    ``{"media": ...}`` is an image or a document, ``{"items": [...]}`` a list mixing them
    with other values.
    """
    if value is None:
        return None
    if isinstance(value, Media):
        return {"media": write_media(value)}
    if isinstance(value, (list, tuple)) and any(isinstance(v, Media) for v in value):
        items = [write_result(v, f"{path}[{i}]") or {"value": None} for i, v in enumerate(value)]
        return {"items": items}
    try:
        return {"value": plain(value, path, unwritable)}
    except ConfigError:
        pass
    try:  # the rule that wrote the result for the model; a value it cannot write is kept as text
        return {"value": plain(to_jsonable(value), path, unwritable)}
    except Exception:
        source = f"{type(value).__module__}.{type(value).__qualname__}"
        return {"repr": _safe_repr(value), "from": source}


def _safe_repr(value: object) -> str:
    try:
        return repr(value)
    except Exception:  # a broken __repr__ (or one nested past the recursion limit)
        return f"<{type(value).__qualname__} object>"


def read_result(value: object, path: str) -> Any:
    """The result ``write_result`` wrote (JSON data for a value converted on the way out)."""
    if not isinstance(value, dict):
        raise unreadable(path, f"expected an object, not {kind_of(value)}")
    if "media" in value:
        return read_media(fields_of(value, path, ("media",))["media"], f"{path}.media")
    if "items" in value:
        items = fields_of(value, path, ("items",))["items"]
        if not isinstance(items, list):
            raise unreadable(f"{path}.items", f"expected a list, not {kind_of(items)}")
        return [read_result(item, f"{path}.items[{i}]") for i, item in enumerate(items)]
    if "repr" in value:
        fields = fields_of(value, path, ("repr",), ("from",))
        _string(fields.get("from", ""), f"{path}.from")
        return _string(fields["repr"], f"{path}.repr")
    return plain(fields_of(value, path, ("value",))["value"], f"{path}.value", unreadable)


def _string(value: object, path: str) -> str:
    if not isinstance(value, str):
        raise unreadable(path, f"expected a string, not {kind_of(value)}")
    return value


# --- images and documents ----------------------------------------------------------------

_KINDS: dict[str, type[Image] | type[Document]] = {"image": Image, "document": Document}
MEDIA_FIELDS = ("kind", "media_type")
MEDIA_OPTIONAL = ("url", "name", "data")


def write_media(media: Media) -> dict[str, Any]:
    """An image or a document as ``kind``, ``media_type``, and its ``url`` or base64 ``data``."""
    out: dict[str, Any] = {"kind": media.kind, "media_type": media.media_type}
    if media.url is not None:
        out["url"] = media.url
    if media.name is not None:
        out["name"] = media.name
    if media.data is not None:
        out["data"] = media.base64()  # made once per value, however often it is written
    return out


def read_media(value: object, path: str) -> Image | Document:
    """The image or document ``write_media`` wrote."""
    fields = fields_of(value, path, MEDIA_FIELDS, MEDIA_OPTIONAL)
    cls = _KINDS.get(fields["kind"]) if isinstance(fields["kind"], str) else None
    if cls is None:
        raise unreadable(
            f"{path}.kind", f"expected 'image' or 'document', not {fields['kind']!r:.40}"
        )
    media_type = fields["media_type"]
    if media_type is not None and media_type not in cls.accepted:
        accepted = ", ".join(cls.accepted)
        raise unreadable(f"{path}.media_type", f"{media_type!r:.60} is not one of {accepted}")
    url, name, data = (fields.get(key) for key in MEDIA_OPTIONAL)
    for key, given in (("url", url), ("name", name), ("data", data)):
        if given is not None and not isinstance(given, str):
            raise unreadable(f"{path}.{key}", f"expected a string, not {kind_of(given)}")
    if (url is None) == (data is None):
        raise unreadable(path, "needs either 'url' or 'data', and not both")
    if data is None:
        return cls(media_type, url=url, name=name)
    if media_type is None:
        raise unreadable(f"{path}.media_type", "the media type of bytes must be given")
    return cls(media_type, name=name, _data=_bytes(data, f"{path}.data"))


def _bytes(data: str, path: str) -> bytes:
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise unreadable(path, "not valid base64") from exc
    if not raw:
        raise unreadable(path, "empty")
    return raw
