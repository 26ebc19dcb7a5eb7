"""The exception tree of aiwrapper.

Every error the SDK raises derives from one root, so ``except AIWrapperError`` catches all of
them and no httpx, json or anyio exception reaches the user unwrapped::

    AIWrapperError
    ├── ConfigError                 the user's mistake, raised before any request
    ├── ToolDefinitionError         a function that cannot become a tool (at decoration time)
    ├── ToolArgumentsError          a model's arguments that do not fit the tool's schema
    ├── ProviderError               the provider answered with an error
    │   ├── AuthenticationError     401
    │   ├── PermissionDeniedError   403
    │   ├── NotFoundError           404
    │   ├── BadRequestError         400, 413, 422 and other 4xx
    │   ├── RateLimitError          429 (``retry_after``)
    │   └── ServerError             5xx
    │       └── OverloadedError     503 / 529 / "overloaded"
    ├── ConnectionError             the request never reached the provider
    ├── RequestTimeoutError         the provider did not answer in time
    ├── StreamError                 a stream that breaks or cannot be decoded
    ├── MaxIterationsError          the run hit ``max_iterations`` (carries the partial result)
    ├── OutputValidationError       the final answer does not fit ``output_type`` (carries it)
    └── RunTimeoutError             the run hit its ``timeout`` (carries the partial result)
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "AIWrapperError",
    "AuthenticationError",
    "BadRequestError",
    "ConfigError",
    "ConnectionError",
    "MaxIterationsError",
    "NotFoundError",
    "OutputValidationError",
    "OverloadedError",
    "PermissionDeniedError",
    "ProviderError",
    "RateLimitError",
    "RequestTimeoutError",
    "RunTimeoutError",
    "ServerError",
    "StreamError",
    "ToolArgumentsError",
    "ToolDefinitionError",
]


class AIWrapperError(Exception):
    """Raised for every failure of the SDK; the root of the tree.

    An error raised by a run after its first request (a provider error, a broken stream,
    a limit) carries ``result``: the run's partial ``LangResult``, whose ``messages`` can be
    passed to ``chat`` as is. Errors raised before any request leave it ``None``.
    """

    # A ``LangResult``, typed loosely: errors stand on the package's ground floor, below the
    # result (whose messages raise ``ConfigError``), so this module cannot name it.
    result: Any = None


class ConfigError(AIWrapperError):
    """Raised before any request when the user's configuration cannot work."""


class ToolDefinitionError(AIWrapperError):
    """Raised at decoration time when a function cannot be turned into a tool."""


class ToolArgumentsError(AIWrapperError):
    """Raised when a model's arguments do not fit a tool's schema.

    ``errors`` lists every problem as ``{"path": <JSON pointer>, "message": ...}``; ``str()``
    lists them all, phrased so the text can be sent back to the model.
    """

    def __init__(self, tool_name: str, errors: list[dict[str, str]]) -> None:
        self.tool_name = tool_name
        self.errors = errors
        lines = [f"{e['path'] or '/'}: {e['message']}" for e in errors]
        super().__init__(f"Invalid arguments for {tool_name!r}: " + "; ".join(lines))


class ProviderError(AIWrapperError):
    """Raised when a provider answers with an error status or an error inside a stream.

    ``retryable`` is the provider's own verdict on an error status, which wins over the
    status: ``False`` when its body says retrying cannot help (an exhausted billing quota
    answered with 429, say); ``None``, the default, leaves it to the status and headers.
    """

    retryable: bool | None

    def __init__(
        self,
        message: str,
        *,
        provider: str,
        status_code: int | None = None,
        body: Any = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.provider = provider
        self.status_code = status_code
        self.body = body
        self.request_id = request_id
        self.retry_after = retry_after
        self.retryable = None

    def __str__(self) -> str:
        where = f"{self.provider} {self.status_code}" if self.status_code else self.provider
        suffix = f" (request id {self.request_id})" if self.request_id else ""
        return f"{where}: {self.message}{suffix}"


class AuthenticationError(ProviderError):
    """Raised when the provider rejects the API key (401)."""


class PermissionDeniedError(ProviderError):
    """Raised when the key may not use this model or endpoint (403)."""


class NotFoundError(ProviderError):
    """Raised when the model or endpoint does not exist (404)."""


class BadRequestError(ProviderError):
    """Raised when the provider rejects the request as malformed (400, 413, 422, other 4xx)."""


class RateLimitError(ProviderError):
    """Raised when the provider rate-limits the request (429); ``retry_after`` in seconds."""


class ServerError(ProviderError):
    """Raised when the provider fails on its side (5xx)."""


class OverloadedError(ServerError):
    """Raised when the provider reports that it is overloaded (503, 529, ``overloaded``)."""


class ConnectionError(AIWrapperError):  # shadows the builtin on purpose: a public name
    """Raised when the request could not reach the provider."""


class RequestTimeoutError(AIWrapperError):
    """Raised when the provider did not answer within the request timeout."""


class StreamError(AIWrapperError):
    """Raised when a stream breaks off, ends early, or carries data that cannot be decoded."""


class _RunError(AIWrapperError):
    def __init__(self, message: str, result: Any) -> None:
        super().__init__(message)
        self.result = result


class MaxIterationsError(_RunError):
    """Raised when a run makes ``max_iterations`` requests without a final answer."""


class OutputValidationError(_RunError):
    """Raised when the final answer still does not fit ``output_type`` after the repair rounds.

    ``errors`` lists every problem as ``{"path": <JSON pointer>, "message": ...}``, as
    ``ToolArgumentsError`` does; ``result`` holds the run with the answer as the model gave it.
    """

    def __init__(self, errors: list[dict[str, str]], result: Any) -> None:
        self.errors = errors
        lines = [f"{e['path'] or '/'}: {e['message']}" for e in errors]
        super().__init__("the answer does not fit output_type: " + "; ".join(lines), result)


class RunTimeoutError(_RunError):
    """Raised when a run exceeds its ``timeout``; ``result`` holds what was done so far."""
