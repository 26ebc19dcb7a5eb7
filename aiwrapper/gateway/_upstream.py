"""What an upstream failure means to the gateway's client: ``as_gateway_error``.

Errors keep their meaning across the gateway: a rate limit stays a 429 with its retry-after,
an overloaded backend stays "overloaded" (each wire's own status for it), a request the
backend refused as malformed is the client's 400, and a loop another gateway detected stays
a 508. Failures that are the operator's problem (the backend refused the gateway's own key, a
route to a model that does not exist, a backend that is down or broken) are a 502 without the
details: the client cannot fix them, and they may say more about the backend than its
clients should see. The log line names the cause and the upstream host. Whatever is said,
to the client or the log, has the route's credentials taken out first.
"""

from __future__ import annotations

import logging

from .. import _errors as errors
from ..providers._serving import GatewayError
from ._redact import Redactor, printable, scrub

__all__ = ["as_gateway_error"]

logger = logging.getLogger("aiwrapper.gateway")

_OPERATOR = (errors.AuthenticationError, errors.PermissionDeniedError, errors.NotFoundError)
_LOOP_DETECTED = 508


def as_gateway_error(
    exc: Exception, overloaded_status: int, redact: Redactor | None = None
) -> GatewayError:
    """The response for ``exc``, raised while serving a request on a route (``redact``'s)."""
    if isinstance(exc, GatewayError):
        return exc
    clean = redact or scrub
    if isinstance(exc, (errors.ConfigError, errors.ToolDefinitionError)):
        return GatewayError(400, "invalid_request", clean(str(exc)))
    if isinstance(exc, errors.RateLimitError):
        return GatewayError(
            429, "rate_limit", "the backend is rate-limited", retry_after=exc.retry_after
        )
    if isinstance(exc, errors.OverloadedError):
        return GatewayError(overloaded_status, "overloaded", "the backend is overloaded")
    if isinstance(exc, errors.BadRequestError):
        message = f"the backend refused the request: {clean(exc.message)}"
        return GatewayError(400, "invalid_request", message)
    if isinstance(exc, errors.RequestTimeoutError):
        return GatewayError(504, "timeout", "the backend did not answer in time")
    _log_failure(exc, redact)
    if isinstance(exc, errors.ProviderError) and exc.status_code == _LOOP_DETECTED:
        message = "loop detected: the backend is a gateway this request already passed through"
        return GatewayError(_LOOP_DETECTED, "upstream", message, code="loop_detected")
    if isinstance(exc, _OPERATOR):
        return GatewayError(502, "upstream", "the backend refused the gateway's request")
    if isinstance(exc, errors.AIWrapperError):
        return GatewayError(502, "upstream", "the backend failed or could not be reached")
    logger.exception("gateway failure", exc_info=exc)
    return GatewayError(500, "upstream", "the gateway failed")


def _log_failure(exc: Exception, redact: Redactor | None) -> None:
    """One line: the error's class, status and cause, and the upstream host; no credentials."""
    clean = redact or scrub
    status = getattr(exc, "status_code", None)
    cause = getattr(exc, "message", None) or str(exc) or type(exc.__cause__).__name__
    logger.warning(
        "upstream failure from %s: %s%s (%s)",
        redact.host if redact else "-",
        type(exc).__name__,
        f" {status}" if status else "",
        printable(clean(str(cause)), 300),
    )
