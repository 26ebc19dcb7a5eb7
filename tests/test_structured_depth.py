"""Absurdly deep answers and types: the tool arguments' depth guard, never a RecursionError.

A model's answer of ``"[" * 3000``, or a recursive dataclass nested 800 levels, once escaped
the run as a bare ``RecursionError``; they are answers that do not fit, as any other.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

import pytest

from aiwrapper import Lang, OutputValidationError, ToolArgumentsError, ToolDefinitionError, tool
from aiwrapper._run._output import output_spec

pytestmark = pytest.mark.anyio


@dataclass
class Node:
    """A node of a chain."""

    name: str
    child: Node | None = None


def chain(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"name": "leaf", "child": None}
    for _ in range(levels):
        value = {"name": "n", "child": value}
    return value


DEEP_ANSWERS = ["[" * 3000, '{"a":' * 3000, json.dumps(chain(800))]


@pytest.mark.parametrize("answer", DEEP_ANSWERS, ids=["brackets", "braces", "chain"])
async def test_a_deep_answer_is_an_output_validation_error_carrying_the_result(
    answer: str,
) -> None:
    lang = Lang.scripted([answer, answer])
    # Python 3.13's parser reads an unterminated 3,000-deep array to its end before any
    # recursion guard trips (earlier ones stop at the guard): either way, never RecursionError.
    with pytest.raises(OutputValidationError, match=r"nested too deeply|not valid JSON") as caught:
        await lang.ask("Build a chain", output_type=Node)
    result = caught.value.result
    assert result is not None
    assert (result.iterations, result.answer, result.output) == (2, answer, None)
    assert result.messages[2].content.startswith("Your answer does not match")
    assert len(lang.requests) == 2


def test_a_deep_answer_through_the_fallback_tool_is_an_argument_error() -> None:
    spec = output_spec(Node)
    assert spec is not None
    with pytest.raises(ToolArgumentsError, match="nested too deeply"):
        spec.parse(chain(800))


def test_deep_tool_arguments_are_an_argument_error_naming_the_tool() -> None:
    @tool
    def walk(node: Node) -> str:
        """Walk a chain."""
        return node.name

    with pytest.raises(ToolArgumentsError, match=r"Invalid arguments for 'walk'.*nested too"):
        walk.validate(json.dumps({"node": chain(800)}))
    with pytest.raises(ToolArgumentsError, match=r"Invalid arguments for 'walk'.*nested too"):
        walk.validate({"node": chain(800)})


def test_a_deep_string_where_a_list_is_expected_stays_a_string() -> None:
    @tool
    def total(numbers: list[int]) -> int:
        """Add numbers."""
        return sum(numbers)

    # Not JSON that fits: kept as a string, then taken as the list's one item.
    with pytest.raises(ToolArgumentsError, match='/numbers/0: expected an integer, got string "'):
        total.validate({"numbers": "[" * 3000})


def test_a_type_nested_800_deep_is_a_definition_error_naming_it() -> None:
    deep: Any = int
    for level in range(800):
        deep = dataclasses.make_dataclass(f"Level{level}", [("inner", deep)])
    with pytest.raises(ToolDefinitionError, match="output_type: Level799 nests too deeply"):
        output_spec(deep)
