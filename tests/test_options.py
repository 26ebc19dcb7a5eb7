"""Options: merging layers, and values refused early with a clear ConfigError."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper import ConfigError, Lang, LangOptions
from aiwrapper._run._options import merge_options


def test_layers_merge_in_order_and_none_never_overrides() -> None:
    merged = merge_options(
        LangOptions(temperature=0.1, max_tokens=5, stream=False),
        {"max_tokens": 50, "temperature": None},
        temperature=0.7,
        stream=None,
    )
    assert (merged.temperature, merged.max_tokens, merged.stream) == (0.7, 50, False)


def test_false_and_zero_do_override_the_defaults() -> None:
    merged = merge_options(LangOptions(parallel=False, auto_execute=False), temperature=0)
    assert (merged.parallel, merged.auto_execute, merged.temperature) == (False, False, 0)


def test_unset_fields_take_the_defaults() -> None:
    merged = merge_options()
    assert (merged.parallel, merged.max_iterations, merged.tool_errors) == (True, 10, "return")
    assert (merged.stream, merged.auto_execute, merged.timeout) == (True, True, None)


def test_options_of_the_wrong_type_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="options must be a LangOptions or a dict, not list"):
        merge_options([("temperature", 1)])  # type: ignore[call-overload]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout": -1}, "timeout must be a positive number of seconds, not -1"),
        ({"timeout": 0}, "timeout must be a positive number of seconds, not 0"),
        ({"timeout": "5"}, "timeout must be a positive number of seconds, not '5'"),
        ({"tool_timeout": -0.5}, "tool_timeout must be a positive number of seconds"),
        ({"max_iterations": 0}, "max_iterations must be an int of at least 1, not 0"),
        ({"max_iterations": 2.5}, "max_iterations must be an int of at least 1, not 2.5"),
        ({"max_concurrency": 0}, "max_concurrency must be an int of at least 1"),
        ({"max_tokens": -3}, "max_tokens must be an int of at least 1, not -3"),
        ({"temperature": -0.1}, "temperature must be a number of at least 0"),
        ({"top_p": 1.5}, "top_p must be a number from 0 to 1, not 1.5"),
        ({"tool_errors": "ignore"}, "tool_errors must be 'return' or 'raise', not 'ignore'"),
        ({"function_call": 5}, "function_call must be 'auto', 'none', 'required', a function"),
        ({"function_call": ""}, "function_call must be"),
        ({"function_call": {"nom": "f"}}, "function_call must be"),
        ({"thinking": "max"}, "thinking='max' is not valid"),
        ({"thinking": 1.5}, "thinking=1.5 is not valid"),
        ({"thinking": -2}, "thinking=-2 is not valid"),
        ({"stop": 5}, "stop must be a string or a list of strings, not 5"),
        ({"stop": ["a", 1]}, "stop must be a string or a list of strings"),
        ({"max_tool_calls": 0}, "max_tool_calls must be an int of at least 1, not 0"),
        ({"output_retries": -1}, "output_retries must be an int of at least 0, not -1"),
        ({"early_start": "yes"}, "early_start must be True or False, not 'yes'"),
        ({"limits": 5}, "limits must be a SizeLimits, not 5"),
        ({"native_tools": "web"}, "native_tools must be a list of dicts"),
        (LangOptions(timeout=-1), "timeout must be a positive number of seconds, not -1"),
    ],
)
def test_bad_values_are_config_errors_naming_the_option(
    options: dict[str, Any] | LangOptions, message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        merge_options(options)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize(
    "options",
    [
        {"thinking": True},
        {"thinking": False},
        {"thinking": 0},
        {"thinking": 2048},
        {"thinking": -1},  # Gemini's dynamic budget
        {"thinking": "HIGH"},
        {"thinking": "minimal"},
        {"function_call": "required"},
        {"function_call": "get_weather"},
        {"function_call": {"name": "get_weather"}},
        {"function_call": {"type": "function", "function": {"name": "get_weather"}}},
        {"temperature": 0, "top_p": 1, "max_tokens": 1, "timeout": 0.5, "stop": ["x"]},
    ],
)
def test_good_values_are_accepted(options: dict[str, Any]) -> None:
    merged = merge_options(options)
    for name, value in options.items():
        assert getattr(merged, name) == value


def test_a_bad_default_fails_when_the_lang_is_made() -> None:
    with pytest.raises(ConfigError, match="timeout must be a positive number"):
        Lang.scripted(["x"], options={"timeout": -1})
    with pytest.raises(TypeError, match="did you mean 'temperature'"):
        Lang.scripted(["x"], options={"temprature": 1})


@pytest.mark.anyio
async def test_a_bad_override_fails_before_any_request() -> None:
    lang = Lang.scripted(["x"])
    with pytest.raises(ConfigError, match="tool_timeout"):
        await lang.ask("hi", tool_timeout=-1)
    assert lang.requests == []


def test_the_typed_overrides_mirror_lang_options_field_for_field() -> None:
    from dataclasses import fields

    from aiwrapper._run._overrides import CallOverrides, LangOptionsDict

    dataclass_fields = {f.name: str(f.type) for f in fields(LangOptions)}
    typed = {
        name: getattr(hint, "__forward_arg__", hint)
        for name, hint in LangOptionsDict.__annotations__.items()
    }
    assert typed == dataclass_fields
    assert set(CallOverrides.__annotations__) == set(dataclass_fields) - {"output_type"}


def test_one_tool_instead_of_a_list_says_what_to_write() -> None:
    from aiwrapper import tool

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    lang = Lang.scripted(["5"])
    with pytest.raises(ConfigError, match=r"write functions=\[add\], not functions=add"):
        lang.ask_sync("2 + 3?", functions=add)  # type: ignore[call-overload]
    with pytest.raises(ConfigError, match=r"functions takes a list of tools"):
        lang.ask_sync("2 + 3?", functions={"name": "add"})  # type: ignore[call-overload]
    assert lang.ask_sync("2 + 3?", functions=(add,)).answer == "5"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"timeout": float("inf")}, "timeout must be a positive number of seconds, not inf"),
        ({"timeout": float("nan")}, "timeout must be a positive number of seconds, not nan"),
        ({"tool_timeout": float("inf")}, "tool_timeout must be a positive number of seconds"),
        ({"timeout": True}, "timeout must be a positive number of seconds, not True"),
        ({"temperature": float("inf")}, "temperature must be a number of at least 0, not inf"),
        ({"top_p": float("nan")}, "top_p must be a number from 0 to 1, not nan"),
    ],
)
def test_nan_and_infinities_are_refused_where_a_number_belongs(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        merge_options(options)
    assert str(info.value).startswith(message)


def test_a_misspelt_lang_options_field_suggests_the_closest_name() -> None:
    with pytest.raises(TypeError, match=r"unknown option 'functons'; did you mean 'functions'\?"):
        LangOptions(functons=[])  # type: ignore[call-arg]
    with pytest.raises(TypeError, match=r"unknown option 'xyzzy'$"):
        LangOptions(xyzzy=1)  # type: ignore[call-arg]


def test_lang_options_still_copies_and_pickles() -> None:
    import copy
    import dataclasses
    import pickle

    options = LangOptions(temperature=0.5, functions=[])
    assert dataclasses.replace(options, max_tokens=3).temperature == 0.5
    assert copy.copy(options).temperature == 0.5
    assert pickle.loads(pickle.dumps(options)) == options


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"on_result": 5}, "on_result must be a function (sync or async), not 5"),
        ({"on_event": "print"}, "on_event must be a function (sync or async), not 'print'"),
        ({"approve": True}, "approve must be a function (sync or async), not True"),
        ({"function_handler": 5}, "function_handler must be a function (sync or async)"),
        ({"stream": "yes"}, "stream must be True or False, not 'yes'"),
        ({"parallel": "no"}, "parallel must be True or False, not 'no'"),
        ({"auto_execute": 5}, "auto_execute must be True or False, not 5"),
        ({"parallel_tool_calls": "x"}, "parallel_tool_calls must be True or False, not 'x'"),
        ({"system_prompt": 5}, "system_prompt must be a string, not 5"),
        ({"model": 5}, "model must be a non-empty string, not 5"),
        ({"model": ""}, "model must be a non-empty string, not ''"),
        ({"extra_body": 5}, "extra_body must be a dict, not 5"),
        ({"extra_headers": {"x": 5}}, "extra_headers must be a dict of strings, not {'x': 5}"),
        ({"temperature": 10**400}, "temperature must be a number of at least 0, not 1000"),
        ({"timeout": 10**400}, "timeout must be a positive number of seconds, not 1000"),
    ],
)
def test_options_of_the_wrong_type_are_config_errors_naming_them(
    options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError) as info:
        merge_options(options)
    assert str(info.value).startswith(message)


def test_cache_is_auto_by_default_and_takes_extended_or_false() -> None:
    assert merge_options().cache == "auto"
    assert merge_options(cache="extended").cache == "extended"
    assert merge_options({"cache": "extended"}, cache=False).cache is False


@pytest.mark.parametrize("value", [True, "on", "1h", 0, {"ttl": "1h"}])
def test_a_wrong_cache_value_is_a_config_error_naming_the_choices(value: object) -> None:
    with pytest.raises(ConfigError, match="cache must be 'auto', 'extended' or False"):
        merge_options(cache=value)


def test_an_int_too_large_for_a_float_is_refused_wherever_a_number_is_set() -> None:
    from aiwrapper import Lang, ToolDefinitionError
    from aiwrapper._tools import to_tool
    from aiwrapper.models import ModelCost, register_model

    huge = 10**400
    with pytest.raises(ConfigError, match="timeout"):
        Lang.openai(api_key="k", timeout=huge)
    schema = {"type": "object", "properties": {"n": {"type": "integer", "minimum": huge}}}
    with pytest.raises(ToolDefinitionError, match="minimum"):
        to_tool({"name": "lookup", "description": "d", "parameters": schema})
    with pytest.raises(ConfigError, match=r"cost\.input"):
        register_model("openai", "huge-model", cost=ModelCost(input=huge))
