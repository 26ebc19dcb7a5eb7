# pyright: strict, reportUnnecessaryTypeIgnoreComment=true
"""Checked by mypy and pyright (strict) in the test suite: a user's script as editors see it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from typing_extensions import assert_type

from aiwrapper import DEFER, Document, Image, Lang, LangMessages, LangResult, RunEvent, tool


@tool
def get_weather(city: str, days: int = 1) -> dict[str, int]:
    """Weather in a city."""
    return {"temperature": 2 * days}


@tool(sequential=True)
async def book(city: str) -> str:
    """Book a trip."""
    return city


def tools_stay_their_functions() -> None:
    assert_type(get_weather("Oslo"), dict[str, int])
    assert_type(get_weather("Oslo", days=3)["temperature"], int)
    as_function: Callable[[str, int], dict[str, int]] = get_weather
    print(as_function)
    print(get_weather.name, get_weather.schema_for("openai"), book.sequential)


def overrides_are_options(lang: Lang) -> None:
    result = lang.ask_sync(
        "Weather in Oslo?",
        functions=[get_weather, book],
        temperature=0.2,
        max_tokens=100,
        thinking="low",
        stop=["\n"],
        tool_errors="raise",
    )
    assert_type(result, LangResult[Any])
    again = lang.chat_sync(result.messages, max_iterations=3, output_type=int, timeout=5.0)
    assert_type(again.output, int)
    for event in lang.stream_sync("hi", parallel=False, deps={"user": 1}):
        assert_type(event, RunEvent)


async def overrides_async(lang: Lang) -> None:
    result = await lang.ask("hi", system_prompt="Be brief.", max_tool_calls=2)
    more = await lang.chat(result.messages, top_p=0.9)
    async with lang.stream(more.messages, auto_execute=False) as run:
        async for _event in run:
            pass
    print(run.result.answer)


def prompts_take_images_and_documents(lang: Lang, picture: Image, paper: Document) -> None:
    result = lang.ask_sync(["What is in this picture?", picture, "And here?", paper])
    assert_type(result, LangResult[Any])
    more = lang.chat_sync(result.messages.with_user(("Compare:", picture, paper)))
    print(more.messages[-1].media, lang.stream_sync([picture]))


async def approval_that_waits(lang: Lang) -> None:
    result = await lang.ask(
        "Book Oslo", functions=[book], approve=lambda call: DEFER if call.name == "book" else True
    )
    saved: str = result.messages.to_json()
    decisions = {call.id: True for call in result.pending}
    done = await lang.resume(saved, decisions, functions=[book], max_iterations=3)
    assert_type(done, LangResult[Any])
    again = lang.resume_sync(LangMessages.from_json(saved), {"call_1": "no"}, temperature=0.1)
    print(again.finish_reason, LangMessages.from_jsonable(done.messages.to_jsonable()))


class Shop:
    @tool
    def price(self, sku: str) -> float:
        """The price of an item."""
        return 1.5 if sku else 0.0


def methods_stay_methods(shop: Shop) -> None:
    assert_type(shop.price("A1"), float)
    print(shop.price.name, Shop.price.name)


def factories_take_every_keyword() -> list[Lang]:
    # The transport settings and each provider's own keywords, all typed for editors.
    return [
        Lang.openai("gpt-4o", api_key="k", organization="org", timeout=5.0, max_retries=1),
        Lang.openai_compatible(preset="groq", model="m", api_key="k", max_connections=8),
        Lang.openai("o3", api="responses", api_key="k", project="p"),
        Lang.openai_compatible(preset="vllm", model="m", api="responses", timeout=5.0),
        Lang.anthropic(api_key="k", betas=["b"], retry_base_delay=0.1, retry_max_delay=1.0),
        Lang.gemini(api_key="k", api_version="v1", schema_dialect="gemini-json", timeout=None),
        Lang.ollama("qwen3", keep_alive="10m", tool_calls_in_content=False, http_client=None),
    ]
