"""@tool and Tool: options, decoration-time errors, methods, invocation and context."""

from __future__ import annotations

import collections
import functools
import threading
from typing import Annotated, Any

import pytest

from aiwrapper._errors import ToolArgumentsError, ToolDefinitionError
from aiwrapper._tools import Context, Tool, tool

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
    from aiwrapper._tools import to_tool

    spec = to_tool({"name": "remote", "parameters": {"q": {"type": "string"}}})
    with pytest.raises(ToolDefinitionError, match="no implementation"):
        await spec.invoke({"q": "x"})
    with pytest.raises(TypeError):
        spec()


class Greeter:
    """Greets people politely."""

    def __init__(self) -> None:
        self.name = "not the tool name"  # instance attributes must not leak into the Tool
        self.description = "not the tool description"
        self.prefix = "Hello"

    def __call__(self, who: str, times: int = 1) -> str:
        """Greet someone.

        Args:
            who: Person to greet.
        """
        return " ".join([f"{self.prefix} {who}"] * times)


class AsyncCounter:
    async def __call__(self, step: int) -> int:
        return step + 1


def test_callable_instance_is_described_by_its_call_method() -> None:
    made = tool(Greeter())
    assert made.name == "Greeter"
    assert made.description == "Greet someone."
    assert made.parameters == {
        "type": "object",
        "properties": {
            "who": {"type": "string", "description": "Person to greet."},
            "times": {"type": "integer", "default": 1},
        },
        "required": ["who"],
        "additionalProperties": False,
    }
    assert made("Ada") == "Hello Ada"


@pytest.mark.anyio
async def test_callable_instances_are_invoked_sync_and_async() -> None:
    assert await tool(Greeter()).invoke({"who": "Ada", "times": "2"}) == "Hello Ada Hello Ada"
    counter = tool(name="count")(AsyncCounter())
    assert counter.name == "count"
    assert await counter.invoke({"step": 1}) == 2


def lookup(query: str, db: threading.Lock, limit: int = 5, *, unit: str = "c") -> str:
    """Look something up.

    Args:
        query: What to look for.
        limit: How many results.
    """
    return f"{query}:{limit}:{unit}"


@pytest.mark.anyio
async def test_partial_hides_the_arguments_it_fixed() -> None:
    made = tool(functools.partial(lookup, db=threading.Lock(), unit="f"))
    assert made.name == "lookup"
    assert made.description == "Look something up."
    assert made.parameters["properties"] == {
        "query": {"type": "string", "description": "What to look for."},
        "limit": {"type": "integer", "description": "How many results.", "default": 5},
    }
    assert await made.invoke({"query": "q"}) == "q:5:f"
    positional = tool(functools.partial(lookup, "fixed", threading.Lock()))
    assert list(positional.parameters["properties"]) == ["limit", "unit"]
    assert await positional.invoke({"limit": 2}) == "fixed:2:c"


@pytest.mark.anyio
async def test_partial_of_an_async_function_is_awaited() -> None:
    async def add(a: int, b: int) -> int:
        return a + b

    made = tool(name="add_one")(functools.partial(add, b=1))
    assert list(made.parameters["properties"]) == ["a"]
    assert await made.invoke({"a": 1}) == 2


NOTEBOOK_CELL = """
from __future__ import annotations
import dataclasses
from aiwrapper import tool

@dataclasses.dataclass
class Leaf:
    value: int

@dataclasses.dataclass
class Branch:
    leaf: Leaf
    more: list[Branch] = dataclasses.field(default_factory=list)

@tool
def grow(branch: Branch, depth: int = 1) -> int:
    '''Grow a branch.

    Args:
        branch: Where to start.
    '''
    return branch.leaf.value + depth
"""


@pytest.mark.anyio
async def test_function_defined_in_a_notebook_cell() -> None:
    namespace: dict[str, Any] = {"__name__": "__main__"}  # what a Jupyter cell runs in
    exec(NOTEBOOK_CELL, namespace)
    grow = namespace["grow"]
    assert grow.func.__module__ == "__main__"
    assert grow.parameters["properties"]["branch"] == {
        "$ref": "#/$defs/Branch",
        "description": "Where to start.",
    }
    assert grow.parameters["$defs"]["Leaf"]["properties"] == {"value": {"type": "integer"}}
    built = grow.validate({"branch": {"leaf": {"value": 2}, "more": [{"leaf": {"value": 3}}]}})
    assert built["branch"].more[0].leaf.value == 3
    assert await grow.invoke({"branch": {"leaf": {"value": 2}}}) == 3


def logged(func: Any) -> Any:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


class Shop:
    def __init__(self, stock: int) -> None:
        self.stock = stock

    @tool
    @logged
    def restock(self, count: int) -> int:
        self.stock += count
        return self.stock

    @tool
    def take(self: Shop, count: int) -> int:
        """Take items (``self`` is annotated here)."""
        self.stock -= count
        return self.stock

    @tool
    async def peek(self, extra: int = 0) -> int:
        return self.stock + extra

    @tool
    @classmethod
    def label(cls, upper: bool) -> str:
        return cls.__name__.upper() if upper else cls.__name__


@pytest.mark.anyio
async def test_methods_bound_async_and_classmethod_are_invoked() -> None:
    shop = Shop(10)
    assert Shop.take.parameters["properties"] == {"count": {"type": "integer"}}
    assert await shop.take.invoke({"count": "3"}) == 7
    assert Shop.restock.parameters["properties"] == {"count": {"type": "integer"}}
    assert await shop.restock.invoke({"count": 1}) == 8
    assert await shop.peek.invoke({"extra": 1}) == 9
    assert await shop.label.invoke({"upper": "true"}) == "SHOP"
    assert await Shop.label.invoke({"upper": False}) == "Shop"


def test_two_context_parameters_fail_at_decoration() -> None:
    def both(a: Context, b: Context[int] | None) -> None:
        pass

    with pytest.raises(ToolDefinitionError, match="parameters 'a', 'b' all ask for the Context"):
        tool(both)


def test_context_may_be_annotated() -> None:
    def f(q: str, ctx: Annotated[Context[int], "the run"]) -> None:
        pass

    made = tool(f)
    assert made.context_param == "ctx"
    assert list(made.parameters["properties"]) == ["q"]


def test_untyped_namedtuple_field_fails_at_decoration() -> None:
    Pair = collections.namedtuple("Pair", "left right")

    def f(pair: Pair) -> None:
        pass

    with pytest.raises(ToolDefinitionError, match=r"field 'pair -> Pair.left' has no type"):
        tool(f)
