"""Arguments read from a prompt, for the offline model: the obvious values, not an LLM.

This module owns :func:`arguments_from_prompt`. It reads the values a question states plainly
(numbers, quoted text, capitalised names, and enum values named outright or by a common word
such as "yen" for ``JPY``) and hands them to a tool's parameters by type, in order. A question
that lists several values for the tool's one parameter of that kind ("Tokyo and Paris") gives
one set of arguments per value. Whatever the prompt does not say is left to
:func:`~aiwrapper._tools.sample.sample_value` (required parameters) or to the function's
defaults (optional ones); arguments that still fail validation fall back to a full sample.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._errors import ToolArgumentsError
from .sample import sample_arguments, sample_value

if TYPE_CHECKING:
    from .decorator import Tool

__all__ = ["arguments_from_prompt"]

_NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w])")
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)")
_NAME = re.compile(r"\b[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+)$")
# Common words for a few enum values: a demo model answering "100 dollars in yen" should
# convert to JPY. Anything else must be named as the enum spells it.
_ALIASES = {
    "dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR", "yen": "JPY",
    "pound": "GBP", "pounds": "GBP", "celsius": "celsius", "fahrenheit": "fahrenheit",
}  # fmt: skip


@dataclass(slots=True)
class _Values:
    """What a prompt states, in order of appearance."""

    numbers: list[float] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)


def _read(prompt: str) -> _Values:
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(prompt)]
    unquoted = _QUOTED.sub(" ", prompt)
    names = [m.group() for m in _NAME.finditer(unquoted) if m.group() != "I"]
    inside = [
        m.group()
        for m in _NAME.finditer(unquoted)
        if not _SENTENCE_START.search(unquoted[: m.start()])
    ]
    numbers = [float(m.group().replace(",", "")) for m in _NUMBER.finditer(unquoted)]
    words = re.findall(r"[\w-]+", prompt.lower())
    # A sentence's first word is capitalised anyway: a name only when nothing else is.
    return _Values(numbers, quoted + inside if quoted or inside else names, words)


def _kind(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if isinstance(schema.get("enum"), list):
        return "enum"
    if kind in ("integer", "number"):
        return "number"
    return "name" if kind == "string" and "format" not in schema else None


def _enum_choice(schema: dict[str, Any], values: _Values) -> Any:
    """The enum value the prompt names last ("100 dollars in yen": the target, JPY)."""
    options = {str(v).lower(): v for v in schema["enum"]}
    named = [
        options[key]
        for word in values.words
        if (key := _ALIASES.get(word, word).lower()) in options
    ]
    return named[-1] if named else None


def _number_for(schema: dict[str, Any], number: float) -> int | float | None:
    if schema.get("type") == "integer" or "integer" in schema.get("type", ()):
        return int(number) if number.is_integer() else None
    return int(number) if number.is_integer() else number


def arguments_from_prompt(tool: Tool, prompt: str) -> list[dict[str, Any]]:
    """The arguments of each call the prompt asks of ``tool``: one set per listed value.

    Args:
        tool: The tool to call.
        prompt: The user's question.

    Returns:
        One or more argument objects, each valid for ``tool``.
    """
    values = _read(prompt)
    schema = tool.parameters
    props: dict[str, Any] = schema.get("properties") or {}
    required = set(schema.get("required", []))
    kinds = {name: _kind(sub) if isinstance(sub, dict) else None for name, sub in props.items()}
    arguments = _fill(props, kinds, values, required, schema)
    repeated = _repeated(props, kinds, values, required)
    calls = [arguments]
    if repeated is not None:
        name, choices = repeated
        calls = [{**arguments, name: choice} for choice in choices]
    return [_checked(tool, call) for call in calls]


def _fill(
    props: dict[str, Any],
    kinds: dict[str, str | None],
    values: _Values,
    required: set[str],
    root: dict[str, Any],
) -> dict[str, Any]:
    """Required parameters take the prompt's values in order (or a sample); optional ones
    only an enum value the prompt names, leaving the function's default otherwise."""
    numbers = list(values.numbers)
    names = list(values.names)
    arguments: dict[str, Any] = {}
    for name, schema in props.items():
        kind, value = kinds[name], None
        if kind == "enum":
            value = _enum_choice(schema, values)
        elif kind == "number" and name in required:
            value = _take_number(schema, numbers)
        elif kind == "name" and name in required and names:
            value = names.pop(0)
        if value is None and name in required:
            value = sample_value(schema, root, 1)
        if value is not None or name in required:
            arguments[name] = value
    return arguments


def _take_number(schema: dict[str, Any], numbers: list[float]) -> int | float | None:
    for index, number in enumerate(numbers):
        value = _number_for(schema, number)
        if value is not None:
            del numbers[index]
            return value
    return None


def _repeated(
    props: dict[str, Any], kinds: dict[str, str | None], values: _Values, required: set[str]
) -> tuple[str, list[Any]] | None:
    """The tool's one required parameter of a kind the prompt lists several values of."""

    def only(kind: str) -> str | None:
        params = [name for name in props if kinds[name] == kind and name in required]
        return params[0] if len(params) == 1 else None

    name_param, number_param = only("name"), only("number")
    if name_param is not None and len(values.names) > 1:
        return name_param, list(values.names)
    if number_param is not None:
        numbers = [_number_for(props[number_param], n) for n in values.numbers]
        fitting = [n for n in numbers if n is not None]
        if len(fitting) > 1:
            return number_param, fitting
    return None


def _checked(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    try:
        tool.validate(arguments)
    except ToolArgumentsError:  # a bound, a pattern, a format the prompt's value misses
        return sample_arguments(tool)
    return arguments
