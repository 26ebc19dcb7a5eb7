"""``python -m aiwrapper``: a demo of two tools, streamed, on any provider or none.

``python -m aiwrapper --help`` lists the commands (``ask``, ``doctor``, ``serve``; ``_cli.py``).

With a provider's API key in the environment, or ``AIWRAPPER_PROVIDER`` naming one, it talks
to that provider (``Lang.from_env`` picks it); without either it runs on the offline model,
which calls each tool once and sums up the results.
"""

from __future__ import annotations

import sys
from typing import Literal

from . import CallFinished, CallReady, Lang, RunEvent, TextDelta, tool

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


RATES = {"USD": 1.0, "EUR": 0.92, "JPY": 151.3}


@tool
def convert_currency(amount: float, to: Literal["JPY", "EUR", "USD"], source: str = "USD") -> float:
    """Convert an amount of money between currencies.

    Args:
        amount: How much money.
        to: The currency to convert to.
        source: The currency the amount is in, e.g. "USD".
    """
    return round(amount / RATES.get(source.upper(), 1.0) * RATES[to], 2)


class Printer:
    """Prints the answer as it streams, and each call when it is ready and when it ends."""

    def __init__(self) -> None:
        self.line_open = False  # the cursor is not at the start of a line

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, TextDelta):
            print(event.text, end="", flush=True)
            self.line_open = not event.text.endswith("\n")
        elif isinstance(event, CallReady):
            self._line(f"→ {event.call.name}({event.call.arguments})")
        elif isinstance(event, CallFinished):
            self._line(f"← {event.call.name}: {event.call.error or event.call.result}")

    def _line(self, text: str) -> None:
        print(("\n" if self.line_open else "") + text, flush=True)
        self.line_open = False


def main(argv: list[str] | None = None) -> int:
    """Run the demo (no arguments) or a command (``_cli.py``); returns the exit status."""
    from ._cli import run

    return run(argv, demo)


def demo() -> int:
    """Two tools, streamed: the answer as it arrives, each call when ready and when done."""
    lang = Lang.from_env()  # without a key it says so (a warning) and runs offline
    prompt = "What's the weather in Tokyo, and how much is 100 dollars in yen?"
    print(f"> {prompt}")
    result = lang.ask_sync(prompt, functions=[get_weather, convert_currency], on_event=Printer())
    print(
        f"\n\n[{result.iterations} requests, {len(result.function_calls)} tool calls, "
        f"{result.usage.total_tokens} tokens]"
    )
    lang.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
