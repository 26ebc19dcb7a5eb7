"""What an upstream failure means to the gateway's client: ``as_gateway_error``.

Errors keep their meaning across the gateway: a rate limit stays a 429 with its retry-after,
an overloaded backend stays "overloaded" (each wire's own status for it), a request the
backend refused as malformed is the client's 400. Failures that are the operator's problem
(the backend refused the gateway's own key, a route to a model that does not exist, a
backend that is down or broken) are a 502 without the details: the client cannot fix them,
and they may say more about the backend than its clients should see.
"""

from __future__ import annotations

import logging

from .. import _errors as errors
from ..providers._serving import GatewayError

__all__ = ["as_gateway_error"]

logger = logging.getLogger("aiwrapper.gateway")

_OPERATOR = (errors.AuthenticationError, errors.PermissionDeniedError, errors.NotFoundError)


def as_gateway_error(exc: Exception, overloaded_status: int) -> GatewayError:
    """The response for ``exc``, raised while serving a request."""
    if isinstance(exc, GatewayError):
        return exc
    if isinstance(exc, (errors.ConfigError, errors.ToolDefinitionError)):
        return GatewayError(400, "invalid_request", str(exc))
    if isinstance(exc, errors.RateLimitError):
        return GatewayError(
            429, "rate_limit", "the backend is rate-limited", retry_after=exc.retry_after
        )
    if isinstance(exc, errors.OverloadedError):
        return GatewayError(overloaded_status, "overloaded", "the backend is overloaded")
    if isinstance(exc, errors.BadRequestError):
        return GatewayError(
            400, "invalid_request", f"the backend refused the request: {exc.message}"
        )
    if isinstance(exc, errors.RequestTimeoutError):
        return GatewayError(504, "timeout", "the backend did not answer in time")
    # Named by class and status only: an upstream's message may quote the key it refused.
    logger.warning(
        "upstream failure: %s %s", type(exc).__name__, getattr(exc, "status_code", None) or ""
    )
    if isinstance(exc, _OPERATOR):
        return GatewayError(502, "upstream", "the backend refused the gateway's request")
    if isinstance(exc, errors.AIWrapperError):
        return GatewayError(502, "upstream", "the backend failed or could not be reached")
    logger.exception("gateway failure", exc_info=exc)
    return GatewayError(500, "upstream", "the gateway failed")
