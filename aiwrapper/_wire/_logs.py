"""Log lines: one per HTTP attempt, under ``logging.getLogger("aiwrapper")``.

Loggers: ``aiwrapper.http`` (DEBUG: provider, model, URL without its query string, status,
duration, request id, and the retry decision) here; ``aiwrapper.tools`` (each tool call) in
``aiwrapper._run._toollog``; and ``aiwrapper`` itself (WARNING: ``Lang.from_env()`` falling
back to the offline model). No line holds a key, a header or a body. The lines are formatted
only when their level is enabled, so logging costs nothing when it is off.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping

from ._httpcall import HttpCall

__all__ = ["http_log", "log_attempt", "root_log"]

root_log = logging.getLogger("aiwrapper")
http_log = logging.getLogger("aiwrapper.http")
# Most servers send x-request-id; some send request-id.
_REQUEST_ID_HEADERS = ("x-request-id", "request-id")


def log_attempt(
    call: HttpCall,
    started: float,
    outcome: str,
    headers: Mapping[str, str] | None = None,
    decision: str = "",
) -> None:
    """One HTTP attempt: ``outcome`` is the status or the failure, ``decision`` what follows."""
    if not http_log.isEnabledFor(logging.DEBUG):
        return
    request_id = (
        next((headers[h] for h in _REQUEST_ID_HEADERS if h in headers), None)
        if (headers is not None)
        else None
    )
    http_log.debug(
        "%s model=%s POST %s -> %s in %.3fs request_id=%s%s",
        call.provider or "-",
        call.model or "-",
        call.url.split("?", 1)[0],  # some services put a key in the query string
        outcome,
        time.monotonic() - started,
        request_id or "-",
        f"; {decision}" if decision else "",
    )
