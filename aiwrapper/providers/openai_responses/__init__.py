"""The OpenAI Responses API (``POST {base}/responses``), for OpenAI and compatible servers.

``_encode`` builds the request body (the whole conversation each time, kept items replayed to
the same provider and model), ``_decode`` turns SSE events and whole ``response`` bodies into
neutral events (``_fields`` reads their keys, texts and usage), ``_errors`` reads the errors
that arrive inside a 200 answer, and ``_provider`` puts them together as a ``Provider``.
"""

from __future__ import annotations

from ..openai._profiles import OPENAI_PROFILE
from ._decode import ResponsesStreamDecoder
from ._encode import flat_tool
from ._provider import API_CHOICES, NAME, Api, ResponsesProvider, uses_responses

# The catalogue lists a model the same whichever of the vendor's APIs serves it.
CATALOGUE_IDS = {NAME: OPENAI_PROFILE.name}

__all__ = [
    "API_CHOICES",
    "CATALOGUE_IDS",
    "NAME",
    "Api",
    "ResponsesProvider",
    "ResponsesStreamDecoder",
    "flat_tool",
    "uses_responses",
]
