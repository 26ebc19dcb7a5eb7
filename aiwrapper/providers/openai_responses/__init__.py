"""The OpenAI Responses API (``POST {base}/responses``), for OpenAI and compatible servers.

``_encode`` builds the request body (the whole conversation each time, kept items replayed to
the same provider and model; ``_media`` writes images and documents as content parts),
``_decode`` turns SSE events and whole ``response`` bodies into neutral events (``_fields``
reads their keys, texts and usage, ``_logprobs`` token log probabilities), ``_errors`` reads
the errors that arrive inside a 200 answer, and ``_provider`` puts them together as a
``Provider``. ``FRONTENDS`` serves the same wire to clients: the gateway's
``POST /v1/responses`` (``_front`` reads requests, ``_front_input`` their ``input`` items,
``_front_media`` the images and documents in them, ``_front_items`` writes output items,
``_front_stream`` the events, ``_front_logprobs`` the tokens' log probabilities when a client
asks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from ..openai._profiles import OPENAI_PROFILE

if TYPE_CHECKING:
    from .._serving import Frontend
    from ._choice import API_CHOICES, NAME, Api, uses_responses
    from ._decode import ResponsesStreamDecoder
    from ._encode import flat_tool
    from ._provider import ResponsesProvider

    # The front-ends this package serves, by the POST path the gateway mounts each at.
    FRONTENDS: dict[str, Frontend]

# The catalogue lists a model the same whichever of the vendor's APIs serves it. The key is
# the provider's NAME, spelled out so that a catalogue lookup never loads the wire code.
CATALOGUE_IDS = {"openai-responses": OPENAI_PROFILE.name}


def _frontends() -> dict[str, Frontend]:
    from ._front import ResponsesAPI

    return {"/v1/responses": ResponsesAPI()}


if not TYPE_CHECKING:
    # The wire code and the gateway's front-end load when first read: choosing Chat
    # Completions, or looking up a model's rules, never loads them.
    __getattr__ = lazy_exports(
        __name__,
        {
            "ResponsesStreamDecoder": "._decode",
            "flat_tool": "._encode",
            "ResponsesProvider": "._provider",
            **dict.fromkeys(
                ("API_CHOICES", "NAME", "Api", "uses_responses"),
                "._choice",
            ),
        },
        {"FRONTENDS": _frontends},
    )

__all__ = [
    "API_CHOICES",
    "CATALOGUE_IDS",
    "FRONTENDS",
    "NAME",
    "Api",
    "ResponsesProvider",
    "ResponsesStreamDecoder",
    "flat_tool",
    "uses_responses",
]
