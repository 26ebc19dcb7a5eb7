"""@tool and Tool: options, decoration-time errors, methods, invocation and context."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from aiwrapper.errors import ToolArgumentsError, ToolDefinitionError
from aiwrapper.tools import Context, Tool, tool

from . import future_tools


def test_bare_and_called_forms_and_options() -> None:
    def add(a: int, b: int = 0) -> int:
        """Add."""
        return a + b

    bare = tool(add)
    assert isinstance(bare, Tool)
    assert (bare.strict, bare.timeout, bare.sequential, bare.requires_approval) == (
        None,
        None,
        False,
        False,
    )
    configured = tool(
        name="plus",
        description="Sum.",
        strict=False,
        timeout=2.5,
        sequential=True,
        requires_approval=True,
    )(add)
    assert configured.name == "plus"
    assert configured.description == "Sum."
    assert (configured.strict, configured.timeout, configured.sequential) == (False, 2.5, True)
    assert configured.requires_approval is True
    assert configured.has_implementation is True
    assert configured(2, 3) == 5
    assert configured.__name__ == "add"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("def f(*args: int) -> None: ...", r"f: parameter 'args': \*args is not supported"),
        ("def f(**kw: int) -> None: ...", r"f: parameter 'kw': \*\*kwargs is not supported"),
        ("def f(x) -> None: ...", "f: parameter 'x' has no type annotation"),
        ("def f(x: int, /) -> None: ...", "positional-only"),
        ("class C: pass\ndef f(x: C) -> None: ...", "f: parameter 'x' has unsupported type C"),
        ("def f(x: dict[int, str]) -> None: ...", "mapping keys must be str"),
        ("def f(x: bytes) -> None: ...", "unsupported type bytes"),
    ],
)
def test_unsupported_signatures_fail_at_decoration_time(source: str, message: str) -> None:
    namespace: dict[str, Any] = {}
    exec(source, namespace)
    with pytest.raises(ToolDefinitionError, match=message):
        tool(namespace["f"])


def test_unresolvable_name_is_a_clear_error() -> None:
    namespace: dict[str, Any] = {}
    exec("from __future__ import annotations\ndef f(x: Missing) -> None: ...", namespace)
    with pytest.raises(ToolDefinitionError, match="cannot resolve the annotation name 'Missing'"):
        tool(namespace["f"])


def test_lambda_needs_a_name() -> None:
    with pytest.raises(ToolDefinitionError, match="not portable"):
        tool(lambda: 1)
    assert tool(name="ident")(lambda: 1).name == "ident"


def test_future_annotations_module() -> None:
    walk = future_tools.walk
    assert walk.parameters["properties"]["start"] == {
        "$ref": "#/$defs/Node",
        "description": "First node.",
    }
    assert walk.parameters["$defs"]["Node"]["properties"]["next"] == {
        "anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}],
        "default": None,
    }
    assert walk.context_param == "ctx"
    built = walk.validate({"start": {"label": "a", "next": {"label": "b"}}})
    assert built["start"] == future_tools.Node("a", future_tools.Node("b"))


def test_nested_function_with_local_class_under_future_annotations() -> None:
    use_local = future_tools.make_nested_tool()
    assert use_local.parameters["$defs"]["Local"]["properties"] == {"n": {"type": "integer"}}
    assert use_local.validate({"item": {"n": 3}})["item"].n == 3


def test_nested_function_in_a_test_body() -> None:
    class Local:
        pass

    @tool
    def inner(count: int, label: str = "x") -> str:
        return label * count

    assert inner.parameters["required"] == ["count"]
    assert inner(2) == "xx"


class Calculator:
    def __init__(self, factor: int) -> None:
        self.factor = factor

    @tool
    def scale(self, value: int) -> int:
        """Multiply by the factor."""
        return value * self.factor

    @tool
    @classmethod
    def kind(cls, verbose: bool = False) -> str:
        return cls.__name__

    @tool
    @staticmethod
    def double(value: int) -> int:
        return value * 2


def test_method_tool_excludes_self_and_binds() -> None:
    calc = Calculator(3)
    assert Calculator.scale.parameters["properties"] == {"value": {"type": "integer"}}
    bound = calc.scale
    assert isinstance(bound, Tool)
    assert bound(2) == 6
    assert bound.name == "scale"
    assert Calculator.kind.parameters["properties"] == {
        "verbose": {"type": "boolean", "default": False}
    }
    assert calc.kind() == "Calculator"
    assert Calculator.double(4) == 8


def test_tool_of_a_bound_method() -> None:
    made = tool(Calculator(5).scale.func)
    assert list(made.parameters["properties"]) == ["value"]
    assert made(1) == 5


@pytest.mark.anyio
async def test_invoke_bound_method() -> None:
    assert await Calculator(4).scale.invoke({"value": "2"}) == 8


@pytest.mark.anyio
async def test_sync_tool_runs_in_a_worker_thread() -> None:
    seen: list[int] = []

    @tool
    def where(n: int) -> int:
        seen.append(threading.get_ident())
        return n + 1

    assert await where.invoke('{"n": 1}') == 2
    assert len(seen) == 1
    assert seen[0] != threading.get_ident()


@pytest.mark.anyio
async def test_async_tool_is_awaited_on_the_loop() -> None:
    @tool
    async def fetch(key: str) -> dict[str, str]:
        return {"key": key, "thread": str(threading.get_ident())}

    result = await fetch.invoke({"key": "k"})
    assert result == {"key": "k", "thread": str(threading.get_ident())}


@pytest.mark.anyio
async def test_context_is_injected() -> None:
    @tool
    async def whoami(ctx: Context[dict[str, str]], greeting: str = "hi") -> str:
        return f"{greeting} {ctx.deps['user']}"

    assert await whoami.invoke({}, context=Context(deps={"user": "ada"})) == "hi ada"


@pytest.mark.anyio
async def test_missing_context_injects_an_empty_one() -> None:
    @tool
    def peek(ctx: Context) -> tuple[Any, Any, Any]:
        return (ctx.deps, ctx.call, ctx.result)

    assert await peek.invoke({}) == (None, None, None)


@pytest.mark.anyio
async def test_invoke_validates_and_propagates_function_errors() -> None:
    @tool
    def boom(n: int) -> None:
        raise KeyError(n)

    with pytest.raises(ToolArgumentsError):
        await boom.invoke({"n": "x"})
    with pytest.raises(KeyError):
        await boom.invoke({"n": 1})


@pytest.mark.anyio
async def test_dict_definition_cannot_be_invoked() -> None:
    from aiwrapper.tools import to_tool

    spec = to_tool({"name": "remote", "parameters": {"q": {"type": "string"}}})
    with pytest.raises(ToolDefinitionError, match="no implementation"):
        await spec.invoke({"q": "x"})
    with pytest.raises(TypeError):
        spec()
