"""The contract: a ``ProviderRequest`` carries its tool choice and tool names normalized."""

from __future__ import annotations

import pytest

from aiwrapper import ConfigError, tool
from aiwrapper._conversation._messages import LangMessage
from aiwrapper._run._contract import ProviderRequest, ToolChoice, tool_choice
from aiwrapper._run._options import LangOptions

from .importgraph import package_graph, reachable


@tool
def get_weather(city: str) -> str:
    """Weather in a city."""
    return city


@tool
def get_time(city: str) -> str:
    """Time in a city."""
    return city


def _request(function_call: object = None) -> ProviderRequest:
    return ProviderRequest(
        model="m",
        messages=[LangMessage.text("user", "hi")],
        tools=[get_weather, get_time],
        options=LangOptions(function_call=function_call),  # type: ignore[arg-type]
        stream=True,
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (None, None),
        ("auto", ToolChoice("auto")),
        ("none", ToolChoice("none")),
        ("required", ToolChoice("required")),
        ("get_time", ToolChoice("named", "get_time")),
        ({"name": "get_time"}, ToolChoice("named", "get_time")),
        ({"type": "function", "function": {"name": "get_time"}}, ToolChoice("named", "get_time")),
    ],
)
def test_every_form_of_function_call_has_one_normal_form(
    value: object, expected: ToolChoice | None
) -> None:
    assert tool_choice(value) == expected  # type: ignore[arg-type]
    assert _request(value).tool_choice == expected


def test_a_dict_naming_no_function_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="function_call dict needs a 'name'"):
        tool_choice({"type": "function"})


@pytest.mark.parametrize("value", [None, "auto", "required", "get_time"])
def test_the_request_names_every_tool_the_model_may_call(value: object) -> None:
    assert _request(value).tool_names == ("get_weather", "get_time")


def test_a_request_with_tool_choice_none_names_no_callable_tool() -> None:
    request = _request("none")
    assert request.tool_names == ()
    assert [t.name for t in request.tools] == ["get_weather", "get_time"]  # still declared


def test_the_contract_reaches_no_provider_module() -> None:
    graph = package_graph()
    providers = {m for m in reachable(graph, "aiwrapper._run._contract") if ".providers" in m}
    assert providers == set()


def test_the_loop_imports_no_provider_module() -> None:
    imported = package_graph()["aiwrapper._run._loop"]
    assert "aiwrapper._run._contract" in imported
    assert [m for m in imported if m.startswith("aiwrapper.providers")] == []
