"""The small helpers every provider module shares: error builders, result text, body merging.

The provider interface itself (``ProviderRequest``, ``Provider``, ``Model``...) is the
contract in ``aiwrapper._run._contract``, which every provider module imports from there.
"""

from __future__ import annotations

import json
import operator
import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .. import _errors as errors
from .._conversation._events import Event, LogprobsEvent, TextDelta
from .._conversation._logprobs import TokenLogprob
from .._conversation._messages import LangMessage, MediaPart, TextPart
from .._run._contract import Provider, ToolChoice
from .._wire._httpcall import retry_after_seconds

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._run._options import LangOptions
    from .._wire._settings import HttpSettings
    from ._http_model import HttpModel

__all__ = [
    "api_key",
    "connect",
    "error_class_for_status",
    "error_result_text",
    "extra_sampling",
    "in_stream_error",
    "logprobs_after_text",
    "make_error",
    "merge_extra_body",
    "parse_json_body",
    "refuse_unenforceable",
    "result_text",
    "sampling_fields",
    "stop_sequences",
]


_STATUS_CLASSES: dict[int, type[errors.ProviderError]] = {
    400: errors.BadRequestError,
    401: errors.AuthenticationError,
    403: errors.PermissionDeniedError,
    404: errors.NotFoundError,
    408: errors.ServerError,  # the server gave up waiting: transient, and retried
    429: errors.RateLimitError,
    503: errors.OverloadedError,
    529: errors.OverloadedError,
}


def error_class_for_status(status: int) -> type[errors.ProviderError]:
    """The error class for an HTTP status (4xx without a class of its own: bad request)."""
    if status in _STATUS_CLASSES:
        return _STATUS_CLASSES[status]
    if status >= 500:
        return errors.ServerError
    if status >= 400:
        return errors.BadRequestError
    return errors.ProviderError


def parse_json_body(body: bytes) -> Any:
    """The body as JSON, or its text when it is not JSON (an HTML error page, say)."""
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", errors="replace")


def make_error(
    cls: type[errors.ProviderError],
    message: str,
    *,
    provider: str,
    status: int | None,
    body: Any,
    headers: Mapping[str, str],
    request_id_header: str = "x-request-id",
) -> errors.ProviderError:
    """Build a provider error with the request id and ``retry-after`` read from the headers."""
    lowered = {k.lower(): v for k, v in headers.items()}
    return cls(
        message,
        provider=provider,
        status_code=status,
        body=body,
        request_id=lowered.get(request_id_header),
        retry_after=retry_after_seconds(lowered),
    )


def in_stream_error(
    cls: type[errors.ProviderError] | None,
    message: str,
    *,
    provider: str,
    body: Any,
    unknown: str,
    status: int | None = None,
    request_id: str | None = None,
    retry_after: float | None = None,
) -> errors.AIWrapperError:
    """The exception for an error a provider reported inside a 200 stream.

    Args:
        cls: The class the error's own type or code maps to, or ``None`` for one no table
            knows.
        message: The provider's message.
        provider: The provider's name.
        body: The error object as it came.
        unknown: The ``StreamError`` message for an error of no known class.
        status: An HTTP status the error object itself carries (the response's was 200).
        request_id: A request id the error object carries.
        retry_after: A delay the error object asks for, in seconds.
    """
    if cls is None:
        return errors.StreamError(unknown)
    return cls(
        message,
        provider=provider,
        status_code=status,
        body=body,
        request_id=request_id,
        retry_after=retry_after,
    )


def error_result_text(message: str, error_type: str | None) -> str:
    """A failed call's result as JSON text, for wires that have no error flag."""
    payload = {"error": message, "error_type": error_type or "Error"}
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


def result_text(message: LangMessage) -> str:
    """A tool result as text, its images and documents described, in order.

    For wires that take neither in tool results.
    """
    parts = message.parts
    if len(parts) == 1 and parts[0].__class__ is TextPart:  # the common result: one text
        return parts[0].text
    if not any(isinstance(p, MediaPart) for p in parts):
        return message.content
    texts = (p.text if isinstance(p, TextPart) else p.describe() for p in parts)  # type: ignore[union-attr]
    return "\n".join(t for t in texts if t)


def sampling_fields(
    options: LangOptions, *, max_tokens: str, top_p: str, stop: str
) -> dict[str, Any]:
    """The sampling options that are set, under one wire's key names, stop always a list.

    The keys come in one order: temperature, the output cap, top-p, then stop sequences.
    """
    fields: dict[str, Any] = {}
    if options.temperature is not None:
        fields["temperature"] = options.temperature
    if options.max_tokens is not None:
        fields[max_tokens] = options.max_tokens
    if options.top_p is not None:
        fields[top_p] = options.top_p
    if options.stop is not None:
        fields[stop] = stop_sequences(options.stop)
    return fields


# Sampling options that not every wire has, in the order they go into a body.
EXTRA_SAMPLING = (
    *("seed", "presence_penalty", "frequency_penalty", "logit_bias", "user", "top_k"),
    *("logprobs", "top_logprobs"),
)
_extra_values = operator.attrgetter(*EXTRA_SAMPLING)
_NONE_SET = (None,) * len(EXTRA_SAMPLING)


def extra_sampling(options: LangOptions, provider: str, names: Mapping[str, str]) -> dict[str, Any]:
    """The ``EXTRA_SAMPLING`` options that are set, under their wire keys in ``names``.

    Raises:
        ConfigError: One is set that this wire has no field for (not in ``names``), naming
            it and the provider: dropping it would change the answer silently.
    """
    fields: dict[str, Any] = {}
    values = _extra_values(options)
    if values == _NONE_SET:  # the common case, told in one comparison
        return fields
    for option, value in zip(EXTRA_SAMPLING, values, strict=True):
        if value is None or value is False:  # logprobs=False asks for nothing: fine anywhere
            continue
        key = names.get(option)
        if key is None:
            raise errors.ConfigError(
                f"{option} is not supported by {provider}: its API has no such field; "
                "leave it unset"
            )
        fields[key] = dict(value) if isinstance(value, Mapping) else value
    return fields


def stop_sequences(stop: str | Sequence[str] | None) -> list[str] | None:
    """The ``stop`` option as a list (``None`` when not set), for wires that take only lists."""
    if stop is None:
        return None
    return [stop] if isinstance(stop, str) else list(stop)


def merge_extra_body(body: dict[str, Any], extra: Mapping[str, Any] | None) -> None:
    """Add the ``extra_body`` option's keys to ``body``, in place, without replacing any.

    An object the SDK already set (Gemini ``generationConfig``, Ollama ``options``) takes new
    keys one level down. A key the SDK set is never replaced: that would silently drop what
    an option asked for (``tools`` replacing the declared functions, say).

    Raises:
        ConfigError: ``extra`` holds a key the SDK set, named with its path.
    """
    for key, value in (extra or {}).items():
        if key not in body:
            body[key] = value
        elif isinstance(body[key], dict) and isinstance(value, Mapping):
            for inner, inner_value in value.items():
                if inner in body[key]:
                    raise _replaced(f"{key}.{inner}")
                body[key][inner] = inner_value
        else:
            raise _replaced(key)


def _replaced(path: str) -> errors.ConfigError:
    hint = "; provider-native tools go in the native_tools option" if path == "tools" else ""
    return errors.ConfigError(
        f"extra_body cannot replace {path!r}, which the SDK sets from the options; set it "
        f"through its option instead{hint}"
    )


def connect(provider: Provider, model: str, **settings: Unpack[HttpSettings]) -> HttpModel:
    """``provider`` as a model over a new transport: what each package's builder returns.

    The transport, and httpx with it, is imported here, when the first model is built, so
    importing a provider package stays light (declaring a strict tool reads every package's
    schema dialects).
    """
    from ._http_model import HttpModel

    return HttpModel.connect(provider, model, **settings)


def api_key(given: str | None, env_vars: Sequence[str], *, required: bool = True) -> str | None:
    """The API key: ``given``, else the first of ``env_vars`` that is set, stripped.

    A key read from a file ends with a newline, which no header may carry (and the failing
    header's text would show the key): the whitespace around a key is dropped.

    Raises:
        ConfigError: ``required`` and no key found, naming the variables to set.
    """
    for key in (given, *(os.environ.get(var) for var in env_vars)):
        if key and key.strip():
            return key.strip()
    if required:
        names = " or ".join(env_vars)
        raise errors.ConfigError(
            f"no API key: pass api_key=... or set the environment variable {names}"
        )
    return None


def refuse_unenforceable(
    wire: str,
    choice: ToolChoice | None,
    options: LangOptions,
    *,
    forces_calls: bool = True,
    forbids_parallel_calls: bool = True,
) -> None:
    """The one check of the tool options a wire cannot enforce, for a request sending tools.

    ``forces_calls`` says whether the wire can force a call (``function_call`` ``"required"``
    or a name), ``forbids_parallel_calls`` whether it can honour ``parallel_tool_calls=False``.
    Dropping either silently would lose what the user asked for, so it is refused instead;
    ``function_call="none"`` forbids every call, which leaves nothing to enforce.

    Raises:
        ConfigError: the option the wire cannot enforce, with what to do instead.
    """
    if choice is not None and choice.mode == "none":
        return
    if not forces_calls and choice is not None and choice.mode in ("required", "named"):
        raise errors.ConfigError(
            f"{wire} ignores tool_choice and cannot force a tool call, so function_call="
            f"{options.function_call!r} cannot be enforced; use 'auto' and ask for the call in "
            "the prompt, or pass only that function"
        )
    if not forbids_parallel_calls and options.parallel_tool_calls is False:
        raise errors.ConfigError(
            f"{wire} cannot stop a model from making several calls per turn "
            "(parallel_tool_calls=False); leave parallel_tool_calls unset, or use parallel=False "
            "to run the calls one at a time"
        )


def logprobs_after_text(events: list[Event], tokens: list[TokenLogprob]) -> bool:
    """Put ``tokens`` right after the last answer ``TextDelta`` of ``events``, for wires that
    give a chunk's tokens apart from its parts; False (nothing put) when there is none."""
    for index in range(len(events) - 1, -1, -1):
        if events[index].__class__ is TextDelta:
            events.insert(index + 1, LogprobsEvent(tokens))
            return True
    return False
