"""AWS Signature Version 4 for one Bedrock request: the ``Authorization`` header and its dates.

Signing reads the exact bytes that will be sent: the method, the path as sent (each segment
percent-encoded once more in the canonical request, as AWS does for every service but S3), the
query, the signed headers (``host``, ``x-amz-date``, ``x-amz-content-sha256`` and, for temporary
credentials, ``x-amz-security-token``), and the body's SHA-256. The key is derived from the
secret, the date, the region and the service (``bedrock``). Nothing here reads credentials: they
are handed in (``_aws_auth`` finds them).
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from datetime import datetime
from urllib.parse import quote

import httpx

__all__ = ["AwsCredentials", "sign"]

_ALGORITHM = "AWS4-HMAC-SHA256"


@dataclass(frozen=True, slots=True)
class AwsCredentials:
    """An access key, its secret and, for temporary credentials, the session token."""

    access_key: str
    secret_key: str = field(repr=False)
    token: str | None = field(default=None, repr=False)


def sign(
    url: str,
    body: bytes,
    credentials: AwsCredentials,
    *,
    region: str,
    now: datetime,
    service: str = "bedrock",
) -> dict[str, str]:
    """The headers that sign ``POST url`` with ``body``, at ``now`` (UTC)."""
    sent = httpx.URL(url)  # the Host httpx sends: a scheme's default port left out
    path = sent.raw_path.split(b"?", 1)[0].decode("ascii")
    stamp = now.strftime("%Y%m%dT%H%M%SZ")
    headers = {
        "host": sent.netloc.decode("ascii"),
        "x-amz-content-sha256": hashlib.sha256(body).hexdigest(),
        "x-amz-date": stamp,
    }
    if credentials.token:
        headers["x-amz-security-token"] = credentials.token
    names = ";".join(sorted(headers))
    canonical = "\n".join(
        [
            "POST",
            quote(path or "/", safe="/~"),
            _canonical_query(sent.query.decode("ascii")),
            *(f"{name}:{headers[name].strip()}" for name in sorted(headers)),
            "",
            names,
            headers["x-amz-content-sha256"],
        ]
    )
    scope = f"{stamp[:8]}/{region}/{service}/aws4_request"
    to_sign = "\n".join([_ALGORITHM, stamp, scope, hashlib.sha256(canonical.encode()).hexdigest()])
    signature = hmac.new(
        _key(credentials.secret_key, stamp[:8], region, service), to_sign.encode(), hashlib.sha256
    ).hexdigest()
    headers["Authorization"] = (
        f"{_ALGORITHM} Credential={credentials.access_key}/{scope}, "
        f"SignedHeaders={names}, Signature={signature}"
    )
    del headers["host"]  # the transport sends the URL's own host
    return headers


def _key(secret: str, date: str, region: str, service: str) -> bytes:
    key = f"AWS4{secret}".encode()
    for piece in (date, region, service, "aws4_request"):
        key = hmac.new(key, piece.encode(), hashlib.sha256).digest()
    return key


def _canonical_query(query: str) -> str:
    pairs = sorted(
        tuple(quote(p, safe="-_.~") for p in [*pair.split("=", 1), ""][:2])
        for pair in query.split("&")
        if pair
    )
    return "&".join(f"{name}={value}" for name, value in pairs)
