"""HTTP error responses of OpenAI-compatible servers mapped onto the exception tree."""

from __future__ import annotations

import json

import httpx
import pytest

from aiwrapper import Lang
from aiwrapper import _errors as errors
from aiwrapper.providers.openai import PRESETS, OpenAIProvider


def openai_error(message: str, kind: str, code: str | None = None) -> bytes:
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return json.dumps(body).encode()


@pytest.mark.parametrize(
    ("status", "body", "cls", "message"),
    [
        (
            400,
            openai_error(
                "Invalid 'tools': array too long.",
                "invalid_request_error",
                "array_above_max_length",
            ),
            errors.BadRequestError,
            "Invalid 'tools': array too long.",
        ),
        (
            401,
            openai_error(
                "Incorrect API key provided: sk-abc.", "invalid_request_error", "invalid_api_key"
            ),
            errors.AuthenticationError,
            "Incorrect API key provided: sk-abc.",
        ),
        (
            403,
            openai_error(
                "Country, region, or territory not supported",
                "request_forbidden",
                "unsupported_country_region_territory",
            ),
            errors.PermissionDeniedError,
            "Country, region, or territory not supported",
        ),
        (
            404,
            openai_error(
                "The model `gpt-9` does not exist", "invalid_request_error", "model_not_found"
            ),
            errors.NotFoundError,
            "The model `gpt-9` does not exist",
        ),
        (
            500,
            openai_error("The server had an error while processing your request.", "server_error"),
            errors.ServerError,
            "The server had an error while processing your request.",
        ),
        (
            503,
            openai_error("The engine is currently overloaded.", "server_error"),
            errors.OverloadedError,
            "The engine is currently overloaded.",
        ),
        (422, b'{"detail":"Unprocessable"}', errors.BadRequestError, "Unprocessable"),
        (
            502,
            b"<html><body>Bad Gateway</body></html>\n",
            errors.ServerError,
            "<html><body>Bad Gateway</body></html>",
        ),
        (500, b"", errors.ServerError, "HTTP 500"),
    ],
)
def test_status_maps_to_error_class_with_message_and_request_id(
    status: int, body: bytes, cls: type[errors.ProviderError], message: str
) -> None:
    err = OpenAIProvider(api_key="k").error(status, body, {"X-Request-Id": "req_123"})
    assert type(err) is cls
    assert (err.message, err.status_code, err.request_id, err.provider) == (
        message,
        status,
        "req_123",
        "openai",
    )
    assert err.retry_after is None


def test_rate_limit_reads_retry_after() -> None:
    body = openai_error("Rate limit reached for requests", "requests", "rate_limit_exceeded")
    err = OpenAIProvider(api_key="k").error(429, body, {"retry-after": "2", "x-request-id": "r"})
    assert type(err) is errors.RateLimitError
    assert err.retry_after == 2.0
    assert err.body == json.loads(body)
    assert str(err) == "openai 429: Rate limit reached for requests (request id r)"


def test_insufficient_quota_is_a_rate_limit_that_says_retrying_will_not_help() -> None:
    body = openai_error(
        "You exceeded your current quota.", "insufficient_quota", "insufficient_quota"
    )
    err = OpenAIProvider(api_key="k").error(429, body, {"retry-after": "20"})
    assert type(err) is errors.RateLimitError
    assert (
        err.message == "You exceeded your current quota. (quota exhausted: retrying will not help)"
    )
    assert (err.retry_after, err.retryable) == (None, False)


@pytest.mark.anyio
@pytest.mark.parametrize(("code", "requests"), [("insufficient_quota", 1), ("rate_limit", 2)])
async def test_an_exhausted_quota_is_not_retried_but_a_rate_limit_is(
    code: str, requests: int
) -> None:
    sent: list[httpx.Request] = []

    def server(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(429, content=openai_error("Slow down.", code, code))

    client = httpx.AsyncClient(transport=httpx.MockTransport(server))
    lang = Lang.openai(api_key="k", http_client=client, max_retries=1, retry_base_delay=0)
    with pytest.raises(errors.RateLimitError):
        await lang.ask("hi")
    assert len(sent) == requests


def test_openrouter_int_code_and_upstream_provider() -> None:
    base_url, _, profile = PRESETS["openrouter"]
    body = (
        b'{"error":{"code":402,"message":"Insufficient credits",'
        b'"metadata":{"provider_name":"Anthropic"}}}'
    )
    err = OpenAIProvider(api_key="k", base_url=base_url, profile=profile).error(402, body, {})
    assert type(err) is errors.PermissionDeniedError  # out of credits: retrying cannot help
    assert (err.provider, err.message) == (
        "openrouter",
        "Insufficient credits (upstream provider: Anthropic)",
    )


def test_mistral_object_error_with_structured_message() -> None:
    base_url, _, profile = PRESETS["mistral"]
    body = (
        b'{"object":"error","message":{"detail":[{"type":"extra_forbidden","loc":["body","x"]}]},'
        b'"type":"invalid_request_message_error","param":null,"code":null}'
    )
    err = OpenAIProvider(api_key="k", base_url=base_url, profile=profile).error(422, body, {})
    assert type(err) is errors.BadRequestError
    assert err.message == '{"detail":[{"type":"extra_forbidden","loc":["body","x"]}]}'


def test_vllm_object_error() -> None:
    base_url, _, profile = PRESETS["vllm"]
    body = (
        b'{"object":"error","message":"The model `x` does not exist.",'
        b'"type":"NotFoundError","param":null,"code":404}'
    )
    err = OpenAIProvider(api_key=None, base_url=base_url, profile=profile).error(404, body, {})
    assert type(err) is errors.NotFoundError
    assert err.message == "The model `x` does not exist."
