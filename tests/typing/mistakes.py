"""Mistakes mypy and pyright must report (tests/test_typing.py checks each marked line)."""

from __future__ import annotations

from aiwrapper import Lang, tool


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def mistakes(lang: Lang) -> None:
    lang.ask_sync("hi", temprature=0.2)  # error: misspelt option
    lang.ask_sync("hi", temperature="hot")  # error: wrong option type
    lang.chat_sync([], max_tokens="many", output_type=int)  # error: wrong type, typed overload
    lang.stream_sync("hi", temprature=0.2)  # error: misspelt option
    lang.ask_sync("2 + 3?", functions=add)  # error: one tool, not a list
    add("two", 3)  # error: a tool is checked as its function
    print(add(2, 3).upper())  # error: it returns an int
    Lang.openai(api_key="k", timout=5)  # error: misspelt transport setting
    Lang.anthropic(api_key="k", max_retries="twice")  # error: wrong setting type
    Lang.ollama(keep_alive=["10m"])  # error: wrong provider setting type
    Lang.openai("o3", api_key="k", api="response")  # error: not one of the APIs
    lang.resume_sync("{}", {"call_1": 1.5})  # error: a decision is True, False or a reason
    lang.resume_sync("{}", {"call_1": True}, temprature=0.2)  # error: misspelt option
