"""A call passing what the last call passed reuses its merged options and tools; any change
that could matter, in place or not, is merged afresh."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper import ConfigError, Lang, LangOptions, tool
from aiwrapper._run._callsetup import setup_key

pytestmark = pytest.mark.anyio


@tool
def first(x: int) -> int:
    """First."""
    return x


@tool
def second(x: int) -> int:
    """Second."""
    return x


def _names(lang: Lang, request: int) -> list[str]:
    return [t["name"] for t in lang.requests[request].tools]


async def test_the_same_call_again_reuses_its_setup() -> None:
    lang = Lang.scripted(["a", "b"])
    functions = [first]
    await lang.ask("hi", functions=functions, stream=False)
    setup = lang._last_setup
    await lang.ask("hi", functions=[first], stream=False)  # another list, the same functions
    assert setup is not None
    assert lang._last_setup is setup
    assert lang.requests[1].options.stream is False
    assert _names(lang, 1) == ["first"]


async def test_a_function_added_to_the_same_list_is_offered_next_time() -> None:
    lang = Lang.scripted(["a", "b"])
    functions: list[Any] = [first]
    await lang.ask("hi", functions=functions)
    functions.append(second)
    await lang.ask("hi", functions=functions)
    assert (_names(lang, 0), _names(lang, 1)) == (["first"], ["first", "second"])


async def test_lang_options_changed_in_place_apply_to_the_next_call() -> None:
    options: dict[str, Any] = {"temperature": 0.1}
    lang = Lang.scripted(["a", "b", "c"], options=options)
    await lang.ask("hi")
    options["temperature"] = 0.7
    await lang.ask("hi")
    lang.options = LangOptions(max_tokens=9)
    await lang.ask("hi")
    sent = [(r.options.temperature, r.options.max_tokens) for r in lang.requests]
    assert sent == [(0.1, None), (0.7, None), (None, 9)]


async def test_a_checked_list_edited_in_place_is_checked_again() -> None:
    stop: list[Any] = ["END"]
    lang = Lang.scripted(["a", "b"])
    await lang.ask("hi", stop=stop)
    stop.append(7)
    with pytest.raises(ConfigError, match="stop must be a string or a list of strings"):
        await lang.ask("hi", stop=stop)


@pytest.mark.parametrize(
    ("base", "layer", "overrides"),
    [
        (None, None, {"stop": ["x"]}),  # a checked container: never reused
        ({"native_tools": [{"type": "web_search"}]}, None, {}),
        (None, "not options", {}),  # merge_options refuses it
    ],
)
def test_a_setup_that_could_change_unseen_has_no_key(
    base: Any, layer: Any, overrides: dict[str, Any]
) -> None:
    assert setup_key(base, layer, overrides) is None


def test_a_setup_fits_a_key_of_the_same_objects_compared_by_identity() -> None:
    class Deps:
        def __eq__(self, other: object) -> bool:
            raise AssertionError("compared with ==")

        __hash__ = object.__hash__

    deps = Deps()
    key = setup_key(None, LangOptions(deps=deps), {"functions": [first]})
    assert key is not None
    assert [k for k in key if k is deps or k is first or isinstance(k, str)] == [
        "deps",
        deps,
        "functions",
        first,
    ]
    lang = Lang.scripted([])
    setup = lang._setup_of(LangOptions(deps=deps), {"functions": [first]})
    assert setup.fits(setup_key(None, {"deps": deps}, {"functions": (first,)}))
    assert not setup.fits(setup_key(None, LangOptions(deps=Deps()), {"functions": [first]}))
    assert not setup.fits(setup_key(None, LangOptions(deps=deps), {"functions": [second]}))
    assert not setup.fits(setup_key(None, LangOptions(deps=deps), {"functions": []}))
    assert not setup.fits(setup_key(None, LangOptions(deps=deps), {}))


async def test_a_call_with_a_new_callback_reuses_the_tools_of_the_same_functions() -> None:
    definition = {"name": "lookup", "description": "Look up.", "parameters": {"q": {"type": "str"}}}
    lang = Lang.scripted(["a", "b", "c"])
    seen: list[str] = []
    call: dict[str, Any] = {"auto_execute": False}
    await lang.ask(
        "hi", functions=[definition, first], on_result=lambda r: seen.append("1"), **call
    )
    wrapped = lang._last_wrapped
    await lang.ask(
        "hi", functions=(definition, first), on_result=lambda r: seen.append("2"), **call
    )
    assert wrapped is not None
    assert lang._last_wrapped is wrapped  # the dict was not made a tool again
    assert [t.name for t in wrapped.tools] == ["lookup", "first"]
    await lang.ask(
        "hi", functions=[first, definition], on_result=lambda r: seen.append("3"), **call
    )
    assert lang._last_wrapped is not wrapped  # another order: made afresh
    assert _names(lang, 2) == ["first", "lookup"]
    assert sorted(set(seen)) == ["1", "2", "3"]  # each call's own callback was called


async def test_another_definition_with_equal_content_is_made_a_tool_afresh() -> None:
    make = lambda: {"name": "lookup", "parameters": {"q": {"type": "str"}}}  # noqa: E731
    lang = Lang.scripted(["a", "b"])
    await lang.ask("hi", functions=[make()], on_result=lambda r: None, auto_execute=False)
    wrapped = lang._last_wrapped
    await lang.ask("hi", functions=[make()], on_result=lambda r: None, auto_execute=False)
    assert wrapped is not None
    assert lang._last_wrapped is not wrapped  # compared by identity, never by ==
