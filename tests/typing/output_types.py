# pyright: strict, reportUnnecessaryTypeIgnoreComment=true
"""Checked by mypy in the test suite: ``output_type`` types ``result.output`` as that class."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from typing_extensions import assert_type

from aiwrapper import Lang, LangResult


@dataclass
class Weather:
    city: str
    temperature: float


async def typed_async(lang: Lang) -> None:
    result = await lang.ask("Weather in Oslo?", output_type=Weather)
    assert_type(result, LangResult[Weather])
    assert_type(result.output, Weather)
    again = await lang.chat(result.messages.add_user("And Rome?"), output_type=Weather)
    assert_type(again.output, Weather)
    numbers = await lang.ask("Primes below 10?", output_type=list[int])
    assert_type(numbers.output, list[int])


def typed_sync(lang: Lang) -> None:
    result = lang.ask_sync("Weather in Oslo?", {"max_tokens": 100}, output_type=Weather)
    assert_type(result.output, Weather)
    print(result.output.temperature + 1.5)  # a float, not Any: mypy checks the arithmetic
    again = lang.chat_sync(result.messages, output_type=int)
    assert_type(again.output, int)


def untyped(lang: Lang) -> None:
    plain = lang.ask_sync("hi")
    assert_type(plain, LangResult[Any])
    choice = lang.ask_sync("yes or no?", output_type=Literal["yes", "no"])  # not a class
    assert_type(choice.output, Any)


def wrong(lang: Lang) -> None:
    result = lang.ask_sync("Weather?", output_type=Weather)
    print(result.output.humidity)  # type: ignore[attr-defined]  # Weather has no humidity


async def typed_stream(lang: Lang) -> None:
    async with lang.stream("Weather in Oslo?", output_type=Weather) as run:
        async for _event in run:
            pass
    assert_type(run.result.output, Weather)
