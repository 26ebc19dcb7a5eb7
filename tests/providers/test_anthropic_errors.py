"""Anthropic HTTP error responses mapped to the error classes."""

from __future__ import annotations

import json

import pytest

from aiwrapper import _errors as errors
from aiwrapper.providers.anthropic import AnthropicProvider

PROVIDER = AnthropicProvider(api_key="k")


def body(kind: str, message: str, request_id: str | None = "req_body_01") -> bytes:
    payload = {"type": "error", "error": {"type": kind, "message": message}}
    if request_id:
        payload["request_id"] = request_id
    return json.dumps(payload).encode()


@pytest.mark.parametrize(
    ("status", "kind", "cls"),
    [
        (400, "invalid_request_error", errors.BadRequestError),
        (401, "authentication_error", errors.AuthenticationError),
        (402, "billing_error", errors.PermissionDeniedError),
        (403, "permission_error", errors.PermissionDeniedError),
        (404, "not_found_error", errors.NotFoundError),
        (413, "request_too_large", errors.BadRequestError),
        (429, "rate_limit_error", errors.RateLimitError),
        (500, "api_error", errors.ServerError),
        (504, "timeout_error", errors.ServerError),
        (529, "overloaded_error", errors.OverloadedError),
        (500, "overloaded_error", errors.OverloadedError),
    ],
)
def test_status_and_type_map_to_classes(
    status: int, kind: str, cls: type[errors.ProviderError]
) -> None:
    err = PROVIDER.error(status, body(kind, f"{kind} happened"), {"request-id": "req_hdr_01"})
    assert type(err) is cls
    assert err.message == f"{kind} happened"
    assert err.status_code == status
    assert err.provider == "anthropic"
    assert err.request_id == "req_hdr_01"
    assert err.body == json.loads(body(kind, f"{kind} happened"))


def test_rate_limit_reads_retry_after() -> None:
    err = PROVIDER.error(429, body("rate_limit_error", "Slow down"), {"Retry-After": "17"})
    assert isinstance(err, errors.RateLimitError)
    assert err.retry_after == 17.0
    assert str(err) == "anthropic 429: Slow down (request id req_body_01)"


def test_request_id_falls_back_to_the_body_then_none() -> None:
    assert PROVIDER.error(400, body("invalid_request_error", "x"), {}).request_id == "req_body_01"
    no_id = PROVIDER.error(400, body("invalid_request_error", "x", request_id=None), {})
    assert no_id.request_id is None


def test_non_json_bodies_keep_their_text() -> None:
    err = PROVIDER.error(502, b"<html>Bad Gateway</html>", {})
    assert type(err) is errors.ServerError
    assert err.message == "<html>Bad Gateway</html>"
    assert PROVIDER.error(503, b"", {}).message == "HTTP 503"
    assert type(PROVIDER.error(503, b"", {})) is errors.OverloadedError


def test_an_error_type_without_a_message_still_picks_the_class() -> None:
    err = PROVIDER.error(500, b'{"type":"error","error":{"type":"overloaded_error"}}', {})
    assert type(err) is errors.OverloadedError
    assert err.message == "HTTP 500"
