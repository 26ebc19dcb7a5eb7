"""``HttpSettings``: the transport keywords every ``Lang`` factory takes, as plain data.

Apart from the transport itself, so a provider package can declare its builder's keywords
without importing httpx: the transport is loaded only when a model is built.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypedDict

from .._errors import ConfigError
from ._numbers import finite_number

if TYPE_CHECKING:
    import httpx

__all__ = ["HttpSettings", "check_http_settings"]


class HttpSettings(TypedDict, total=False):
    """How a model reaches its server: the transport keywords every ``Lang`` factory takes.

    Each is optional; ``HttpTransport`` documents them and their defaults (``timeout`` 60 s,
    ``max_retries`` 2, backoff from 0.5 s up to 8 s).
    """

    timeout: float | None
    max_retries: int
    http_client: httpx.AsyncClient | None
    max_connections: int | None
    retry_base_delay: float
    retry_max_delay: float


def check_http_settings(**settings: object) -> None:
    """Refuse, when a model is made, a setting no request could use, naming it.

    A NaN delay would otherwise fail only at the first retry, deep inside a run, and a
    negative timeout would fail every request. An ``httpx.Timeout`` is httpx's to check: the
    caller passes ``timeout=None`` for it.

    Raises:
        ConfigError: The first setting found wrong.
    """
    for name, value in settings.items():
        problem = _CHECKS[name](name, value)
        if problem is not None:
            raise ConfigError(problem)


def _timeout_problem(name: str, value: object) -> str | None:
    if value is None or (finite_number(value) and value > 0):  # type: ignore[operator]
        return None
    return f"{name} must be a positive number of seconds or None, not {value!r}"


def _delay_problem(name: str, value: object) -> str | None:
    if finite_number(value) and value >= 0:  # type: ignore[operator]
        return None
    return f"{name} must be a number of seconds, at least 0, not {value!r}"


def _retries_problem(name: str, value: object) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return None
    return f"{name} must be an int of at least 0, not {value!r}"


_CHECKS: dict[str, Callable[[str, object], str | None]] = {
    "timeout": _timeout_problem,
    "max_retries": _retries_problem,
    "retry_base_delay": _delay_problem,
    "retry_max_delay": _delay_problem,
}
