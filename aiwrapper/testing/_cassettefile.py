"""Reading a cassette file back: its shape checked whole before the first replayed request.

A cassette is ``{"exchanges": [{"request": {...}, "response": {...}}, ...]}`` (what
``aiwrapper.testing._recording`` writes). Files are hand-edited, cut off by a full disk or
mangled by a merge, so every departure from that shape is a ``ConfigError`` naming the file and the
place (``exchanges[2].response.status``), never a ``KeyError`` in the middle of a test run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .._errors import ConfigError

__all__ = ["load_exchanges"]

_REQUEST_KEYS = ("method", "url", "body")
_RESPONSE_KEYS = ("status", "headers", "body")


def load_exchanges(file: Path) -> list[dict[str, Any]]:
    """The exchanges recorded in ``file``, each checked to have what a replay reads.

    Raises:
        ConfigError: The file is missing, is not JSON, or is not shaped as a cassette.
    """
    try:
        raw = file.read_bytes()
    except FileNotFoundError as exc:
        raise ConfigError(f"{file}: no such cassette; record it first (record=True)") from exc
    data = _parse(file, raw)
    exchanges = data.get("exchanges") if isinstance(data, dict) else None
    if exchanges is None:
        shown = "an object without it" if isinstance(data, dict) else _kind(data)
        raise _fault(file, f"must be an object with 'exchanges', not {shown}")
    if not isinstance(exchanges, list):
        raise _fault(file, f"exchanges must be a list, not {_kind(exchanges)}")
    for index, exchange in enumerate(exchanges):
        _check_exchange(file, exchange, f"exchanges[{index}]")
    return exchanges


def _parse(file: Path, raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise _fault(file, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from exc
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        raise _fault(file, f"not valid JSON ({exc.msg} at {where}); record it again") from exc
    except ValueError as exc:  # a number of more digits than Python converts
        raise _fault(file, f"not readable JSON ({exc})") from exc
    except RecursionError as exc:
        raise _fault(file, "JSON nested too deeply to read") from exc


def _check_exchange(file: Path, exchange: Any, where: str) -> None:
    _object(file, exchange, where, ("request", "response"))
    request, response = exchange["request"], exchange["response"]
    _object(file, request, f"{where}.request", _REQUEST_KEYS)
    _object(file, response, f"{where}.response", _RESPONSE_KEYS)
    for key in ("method", "url"):
        _string(file, request[key], f"{where}.request.{key}")
    status = response["status"]
    if type(status) is not int or not 100 <= status <= 599:
        problem = f"must be an HTTP status code, not {_kind(status)}"
        raise _fault(file, f"{where}.response.status {problem}")
    headers = response["headers"]
    if not isinstance(headers, dict):
        raise _fault(file, f"{where}.response.headers must be an object, not {_kind(headers)}")
    for name, value in headers.items():
        _string(file, value, f"{where}.response.headers[{name!r}]")
    _string(file, response["body"], f"{where}.response.body")


def _object(file: Path, value: Any, where: str, keys: tuple[str, ...]) -> None:
    if not isinstance(value, dict):
        raise _fault(file, f"{where} must be an object, not {_kind(value)}")
    for key in keys:
        if key not in value:
            raise _fault(file, f"{where} has no {key!r}")


def _string(file: Path, value: Any, where: str) -> None:
    if not isinstance(value, str):
        raise _fault(file, f"{where} must be a string, not {_kind(value)}")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, from a "\ud800" escape
        raise _fault(file, f"{where} is not UTF-8 text ({exc.reason})") from exc


def _kind(value: Any) -> str:
    """What a JSON value is, for a message: containers by kind, scalars shown (short)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "null"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**12:
        return f"a {len(str(abs(value)))}-digit number"
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= 40 else text[:37] + "..."


def _fault(file: Path, problem: str) -> ConfigError:
    return ConfigError(f"{file}: not a readable cassette: {problem}")
