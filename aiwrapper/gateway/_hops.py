"""Loop protection: the hop header every upstream request of the gateway carries.

A route may point back at the gateway itself (``serve --route local=vllm:local`` on the
vLLM preset's default port), or gateways may point at each other; each forwarded request
would then make another without end. Every gateway has a random id; its upstream requests
carry the ids of the gateways they passed through, its own last. A request that already
passed through this gateway, or through more than ``MAX_HOPS`` gateways, is refused with
508 (Loop Detected) before any upstream call.
"""

from __future__ import annotations

import re
import secrets

from ..providers._serving import GatewayError

__all__ = ["HOP_HEADER", "MAX_HOPS", "Hops"]

HOP_HEADER = "x-aiwrapper-gateway-hops"
MAX_HOPS = 4
_MAX_HEADER_CHARS = 1024  # a longer value is no chain of gateways: refused whole
_ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_UNKNOWN = "unknown"  # stands for a hop that is no id: counted, never sent on as it came


class Hops:
    """One gateway's id, and the check and header of the requests it forwards."""

    def __init__(self) -> None:
        self.id = secrets.token_hex(8)

    def forward(self, passed: str | None) -> dict[str, str]:
        """The hop header for the upstream request of a request that carried ``passed``.

        Raises:
            GatewayError: 508 when the request looped back here or passed too many gateways.
        """
        chain = _chain(passed)
        if self.id in chain:
            raise _loop("the request came back to this gateway (a route points at itself)")
        if len(chain) > MAX_HOPS:
            raise _loop(f"the request passed through more than {MAX_HOPS} gateways")
        return {HOP_HEADER: ", ".join([*chain, self.id])}


def _chain(passed: str | None) -> list[str]:
    if not passed:
        return []
    if len(passed) > _MAX_HEADER_CHARS:
        raise _loop("the request passed through too many gateways")
    hops = [hop.strip() for hop in passed.split(",") if hop.strip()]
    return [hop if _ID.fullmatch(hop) else _UNKNOWN for hop in hops]


def _loop(message: str) -> GatewayError:
    return GatewayError(508, "upstream", f"loop detected: {message}", code="loop_detected")
