"""``python -m aiwrapper``: a demo of two tools, streamed, on any provider or none.

With an API key in the environment (``OPENAI_API_KEY``, ``ANTHROPIC_API_KEY``,
``GEMINI_API_KEY``; or ``AIWRAPPER_PROVIDER=ollama``) it talks to that provider; without one
it runs on the offline model, which calls each tool once and sums up the results.
"""

from __future__ import annotations

import sys
from datetime import date
from typing import Literal

from . import Lang, LangResult, tool

FORECASTS = {"tokyo": (18, "clear"), "paris": (11, "rain"), "oslo": (2, "snow")}


@tool
def get_weather(city: str, unit: Literal["celsius", "fahrenheit"] = "celsius") -> dict[str, object]:
    """Get the current weather in a city.

    Args:
        city: City name, e.g. "Tokyo".
        unit: Temperature unit.
    """
    temp_c, sky = FORECASTS.get(city.lower(), (15, "cloudy"))
    temp = temp_c if unit == "celsius" else round(temp_c * 9 / 5 + 32)
    return {"city": city, "temperature": temp, "unit": unit, "sky": sky}


@tool
def days_until(day: date) -> int:
    """Count the days from today until a date.

    Args:
        day: The date, as YYYY-MM-DD.
    """
    return (day - date.today()).days


class Printer:
    """Prints the answer as it streams, and each call when it starts and when it ends."""

    def __init__(self) -> None:
        self.printed = 0
        self.seen: dict[str, str] = {}

    def __call__(self, result: LangResult) -> None:
        for call in result.function_calls:
            if (
                call.status in ("running", "done", "error", "denied")
                and self.seen.get(call.id) != call.status
            ):
                self.seen[call.id] = call.status
                if call.status == "running":
                    print(f"\n→ {call.name}({call.arguments})", flush=True)
                else:
                    print(f"← {call.name}: {call.error or call.result}", flush=True)
        if len(result.answer) < self.printed:
            self.printed = 0
        print(result.answer[self.printed :], end="", flush=True)
        self.printed = len(result.answer)


def main() -> int:
    """Run the demo; returns the exit status."""
    lang = Lang.from_env()
    if lang.provider == "offline":
        print("No API key found: running on the offline model (set OPENAI_API_KEY to go live).")
    prompt = "What's the weather in Tokyo and Paris, and how many days until 2030-01-01?"
    print(f"> {prompt}")
    result = lang.ask_sync(prompt, functions=[get_weather, days_until], on_result=Printer())
    print(
        f"\n\n[{result.iterations} requests, {len(result.function_calls)} tool calls, "
        f"{result.usage.total_tokens} tokens]"
    )
    lang.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
