"""JSON written by set-up-once scanners, and the shortcuts built on them, as ``json`` writes it.

``json_writer`` must write what ``json.dumps`` writes with the same options (and refuse what
it refuses); a request body keeps its declarations' JSON; OpenAI's prompt cache key hashes
the same text ``json.dumps`` would; a tool result of plain JSON data skips ``to_jsonable``
and comes out the same.
"""

from __future__ import annotations

import collections
import dataclasses
import enum
import hashlib
import json
import math
from typing import Any

import pytest

from aiwrapper._conversation._serialize import serialize_result, to_jsonable
from aiwrapper._wire._jsontext import (
    Declaration,
    dumps_compact,
    dumps_sorted,
    json_writer,
    write_body,
)
from aiwrapper.providers.openai._cache import conversation_key

VALUES: list[Any] = [
    {},
    [],
    "",
    'é \u2028 \x00 "quoted" \\ 🙂',
    {"b": [1, 2.5, None, True, False], "a": {"z": "é", "y": "\u2028"}},
    {1: "int key", 2.5: "float key", False: "bool key", None: "none key"},
    10**40,
    -0.0,
    [[[[{"deep": [1]}]]]],
    ("tuple", 1),
]

OPTIONS: list[dict[str, Any]] = [
    {"separators": (",", ":"), "ensure_ascii": False},
    {"separators": (",", ":"), "ensure_ascii": False, "sort_keys": True},
    {"separators": (", ", ": "), "ensure_ascii": True, "sort_keys": True, "default": str},
]


class Color(enum.Enum):
    RED = "red"


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("value", VALUES)
def test_a_writer_writes_what_json_dumps_writes(value: Any, options: dict[str, Any]) -> None:
    if options.get("sort_keys") and isinstance(value, dict):
        value = {str(k): v for k, v in value.items()}  # keys of mixed kinds cannot be sorted
    assert json_writer(**options)(value) == json.dumps(value, **options)


def test_a_writer_refuses_what_json_dumps_refuses() -> None:
    circular: dict[str, Any] = {}
    circular["self"] = circular
    with pytest.raises(ValueError, match="Circular reference detected"):
        dumps_compact(circular)
    with pytest.raises(ValueError, match="Out of range float"):
        dumps_compact({"x": math.nan})
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps_compact({"x": object()})
    assert json_writer(allow_nan=True)([math.inf]) == "[Infinity]"
    assert json_writer(default=str)({"c": Color.RED}) == '{"c":"Color.RED"}'
    assert dumps_sorted({"b": 1, "a": 2}) == '{"a":2,"b":1}'


def test_a_body_keeps_its_declarations_json_at_the_top_and_grouped_under_a_key() -> None:
    first = Declaration({"name": "f", "parameters": {"type": "object"}})
    second = Declaration({"name": "g", "description": "é"})
    for body in (
        {"model": "m", "tools": [first, second], "stream": True},
        {"contents": [{"role": "user"}], "tools": [{"functionDeclarations": [first, second]}]},
        {"tools": [{"functionDeclarations": [first], "extra": {"k": 1}}, {"googleSearch": {}}]},
        {"tools": [first, {"type": "web_search"}]},
        {"tools": [{"other": []}, first]},  # no declaration first: written as a whole
    ):
        assert write_body(body) == dumps_compact(body)


def test_a_derived_declaration_is_built_once_and_shared() -> None:
    declaration = Declaration({"function": {"name": "f"}})
    made: list[int] = []

    def flat(shared: Declaration) -> dict[str, Any]:
        made.append(1)
        return {"type": "function", **shared["function"]}

    first = declaration.derived("flat", flat)
    assert declaration.derived("flat", flat) is first
    assert (first, type(first), len(made)) == ({"type": "function", "name": "f"}, Declaration, 1)
    assert first.compact_json() == '{"type":"function","name":"f"}'


def _old_key(body: dict[str, Any], conversation: str) -> str:
    items = body.get(conversation)
    opening: list[Any] = []
    for item in items if isinstance(items, list) else ():
        opening.append(item)
        if isinstance(item, dict) and item.get("role") == "user":
            break
    head = [body.get("model"), body.get("tools"), body.get("instructions"), opening]
    text = json.dumps(head, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "aiw-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


@pytest.mark.parametrize(
    "body",
    [
        {"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        {
            "model": "m",
            "tools": [Declaration({"type": "function", "function": {"name": "f", "b": 1}})],
            "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "é"}],
        },
        {"model": "m", "tools": [{"z": 1, "a": math.nan}], "instructions": "i", "input": []},
        {"model": None, "tools": "odd", "messages": "not a list"},
        {"tools": [Declaration({"x": math.inf})], "messages": [{"a": math.nan}]},
    ],
)
def test_the_prompt_cache_key_hashes_what_json_dumps_writes(body: dict[str, Any]) -> None:
    conversation = "input" if "input" in body else "messages"
    assert conversation_key(body, conversation) == _old_key(body, conversation)


def test_a_key_found_again_by_its_declarations_is_the_key_hashed_afresh() -> None:
    f = Declaration({"type": "function", "name": "f"})
    g = Declaration({"type": "function", "name": "g"})
    user = {"role": "user", "content": "hi"}
    bodies = [
        {"model": "m", "tools": [f, g], "input": [user]},
        {"model": "m", "tools": [f, g], "input": [user, {"role": "assistant", "content": "x"}]},
        {"model": "m", "tools": [g, f], "input": [user]},
        {"model": "m", "tools": [f, Declaration(g)], "input": [user]},  # equal, not the same
        {"model": "m", "tools": [f], "instructions": "be brief", "input": [user]},
        {"model": "m", "tools": [], "input": [user]},
        {"model": "m", "input": [user]},
        {"model": "m2", "tools": [f, g], "input": [{"role": "user", "content": "other"}]},
    ]
    for body in bodies * 2:  # the second time round, each is found
        assert conversation_key(body, "input") == _old_key(body, "input")
    keys = [conversation_key(body, "input") for body in bodies]
    # The longer conversation opens as the first does; an equal declaration writes the same.
    assert keys[0] == keys[1] == keys[3]
    assert len(set(keys)) == 6


@dataclasses.dataclass
class Point:
    x: int


Pair = collections.namedtuple("Pair", "a b")
NESTED: Any = [1]
for _ in range(40):
    NESTED = [NESTED]


@pytest.mark.parametrize(
    "value",
    [
        {"city": "Lisbon", "fact": 1, "ok": True, "none": None, "ratio": 0.5},
        [1, "two", [3.0, {"four": [5]}]],
        {"nan": math.nan, "inf": [math.inf]},
        {"pair": Pair(1, 2)},
        {"color": Color.RED, "point": Point(1)},
        {1: "int key"},
        [{"deep": NESTED}],  # deeper than the shortcut looks: the general path
        {"set": {3, 1, 2}},
    ],
)
def test_a_tool_result_is_written_as_to_jsonable_would_have_it(value: Any) -> None:
    assert serialize_result(value) == json.dumps(
        to_jsonable(value), ensure_ascii=False, separators=(",", ":")
    )
