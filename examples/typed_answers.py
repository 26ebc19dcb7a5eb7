"""Typed answers: ask for a dataclass and get one back, validated (output_type).

Run: python examples/typed_answers.py
"""

from dataclasses import dataclass
from typing import Literal

from aiwrapper import Lang, tool


@dataclass
class Forecast:
    """A short forecast for one city."""

    city: str
    temperature: float
    sky: Literal["sunny", "cloudy", "rain"]


@tool
def get_temperature(city: str) -> float:
    """Current temperature in a city, in degrees Celsius.

    Args:
        city: City name, e.g. "Oslo".
    """
    return 3.5


lang = Lang.from_env()  # the offline model when no API key is set
# Tools run first; the final answer comes back as a Forecast (mypy knows its type too).
result = lang.ask_sync("Forecast for Oslo?", functions=[get_temperature], output_type=Forecast)
forecast: Forecast = result.output
print(f"{forecast.city}: {forecast.temperature} °C, {forecast.sky}")
print("calls:", [call.name for call in result.function_calls])

# Types that are not objects work too: they travel as {"value": ...} and are unwrapped.
primes = lang.ask_sync("The first primes?", output_type=list[int]).output
print("primes:", primes)
if lang.provider == "offline":
    print("(offline model: the answers above are schema-valid examples)")
