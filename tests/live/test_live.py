"""Live checks against the real APIs: skipped unless AIWRAPPER_LIVE=1 and the key is set.

CI never runs these. Run them by hand after a wire change::

    AIWRAPPER_LIVE=1 OPENAI_API_KEY=... python -m pytest tests/live -m live
"""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from aiwrapper import Lang, tool

pytestmark = [pytest.mark.live, pytest.mark.anyio]

PROVIDERS: dict[str, tuple[str, Callable[[], Lang]]] = {
    "openai": ("OPENAI_API_KEY", lambda: Lang.openai()),
    "anthropic": ("ANTHROPIC_API_KEY", lambda: Lang.anthropic()),
    "gemini": ("GEMINI_API_KEY", lambda: Lang.gemini()),
}


@tool
def get_weather(city: str) -> dict[str, object]:
    """Get the current weather in a city.

    Args:
        city: City name, e.g. "Tokyo".
    """
    return {"city": city, "temperature_c": {"tokyo": 18, "paris": 11}.get(city.lower(), 15)}


@pytest.fixture(params=["asyncio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.parametrize("name", sorted(PROVIDERS))
async def test_a_real_tool_loop(name: str) -> None:
    variable, make = PROVIDERS[name]
    if os.environ.get("AIWRAPPER_LIVE") != "1" or not os.environ.get(variable):
        pytest.skip(f"live test: set AIWRAPPER_LIVE=1 and {variable}")
    async with make() as lang:
        result = await lang.ask(
            "What is the weather in Tokyo and in Paris? Use the tool for each city.",
            functions=[get_weather],
        )
    assert {c.arguments["city"].lower() for c in result.function_calls} >= {"tokyo", "paris"}
    assert "18" in result.answer
    assert result.usage.total_tokens > 0
