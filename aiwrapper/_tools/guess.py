"""Arguments read from a prompt, for the offline model: the obvious values, not an LLM.

This module owns :func:`arguments_from_prompt`. It reads the values a question states plainly
(numbers, quoted text, names, and enum values named outright or by a common word such as "yen"
for ``JPY``) and hands them to a tool's parameters by type, in order (a list of numbers takes
every number the prompt states). A name is a capitalised
word inside a sentence; failing that, the word a preposition introduces ("to bob"); failing
that, a sentence's capitalised first word, unless it is a common word ("Send", "What"). A
parameter called ``query`` or ``question`` gets the whole question (or what it quotes). A question
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
# The word a preposition introduces ("to bob", "for the landlord") names someone or something.
_AFTER_PREPOSITION = re.compile(
    r"\b(?:to|for|from|in|at|named|called)\s+(?:(?:the|a|an|my|your|our|his|her|their)\s+)?"
    r"([A-Za-z][\w'-]*)",
    re.IGNORECASE,
)
# Words that open a request or stand for the speaker, never a name a tool wants: "Send 100 to
# bob" sends to bob, not to "Send"; "Weather?" asks about no city.
_NOT_NAMES = frozenset({
    "a", "an", "and", "or", "but", "the", "so", "then", "also", "now", "please", "hi", "hello",
    "hey", "thanks", "ok", "okay", "yes", "no", "what", "what's", "whats", "how", "how's", "who",
    "whom", "whose", "which", "when", "where", "why", "is", "are", "was", "were", "be", "do",
    "does", "did", "can", "could", "would", "will", "should", "shall", "may", "might", "must", "i",
    "i'm", "i'd", "i'll", "i've", "me", "my", "we", "us", "our", "you", "your", "it", "its",
    "this", "that", "these", "those", "there", "here", "he", "she", "they", "them", "his", "her",
    "their", "let", "let's", "today", "tomorrow", "yesterday", "tonight", "weather", "forecast",
    "tell", "show", "give", "get", "find", "send", "pay", "transfer", "convert", "book", "check",
    "look", "search", "list", "make", "create", "add", "set", "call", "compute", "calculate",
    "roll", "pick", "translate", "summarize", "summarise", "explain", "remind", "schedule",
    "order", "buy", "sell", "move", "copy", "delete", "remove", "open", "close", "start", "stop",
    "run", "use"
})  # fmt: skip
# A parameter with one of these names wants the request itself (or what it quotes).
_WHOLE_PROMPT = frozenset({"query", "q", "question", "prompt", "search", "search_query"})
# Common words for a few enum values: a demo model answering "100 dollars in yen" should
# convert to JPY. Anything else must be named as the enum spells it.
_ALIASES = {
    "dollar": "USD", "dollars": "USD", "euro": "EUR", "euros": "EUR", "yen": "JPY",
    "pound": "GBP", "pounds": "GBP", "celsius": "celsius", "fahrenheit": "fahrenheit",
}  # fmt: skip


@dataclass(slots=True)
class _Values:
    """What a prompt states, in order of appearance."""

    prompt: str
    quoted: list[str] = field(default_factory=list)
    numbers: list[float] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    words: list[str] = field(default_factory=list)


def _read(prompt: str, enum_words: set[str]) -> _Values:
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(prompt)]
    unquoted = _QUOTED.sub(" ", prompt)
    numbers = [float(m.group().replace(",", "")) for m in _NUMBER.finditer(unquoted)]
    words = re.findall(r"[\w-]+", prompt.lower())
    inside, guessed = _names(unquoted, enum_words)
    names = quoted + inside if quoted or inside else guessed
    return _Values(prompt, quoted, numbers, names, words)


def _names(text: str, enum_words: set[str]) -> tuple[list[str], list[str]]:
    """The names ``text`` states: capitalised words inside a sentence (after the request's
    opening words: "Transfer Bob 5"); and, for when there are none and nothing is quoted, the
    word after a preposition ("to bob"), else a sentence's capitalised first word ("Tokyo
    weather?")."""
    inside: list[str] = []
    first: list[str] = []
    for match in _NAME.finditer(text):
        words = match.group().split()
        at_start = bool(_SENTENCE_START.search(text[: match.start()]))
        opening = 0
        while opening < len(words) and words[opening].lower() in _NOT_NAMES:
            opening += 1
        if opening < len(words):
            name = " ".join(words[opening:])
            (first if at_start and not opening else inside).append(name)
    skip = _NOT_NAMES | enum_words | _ALIASES.keys()
    introduced = [w for w in _AFTER_PREPOSITION.findall(text) if w.lower() not in skip]
    return inside, introduced or first


def _kind(schema: dict[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if isinstance(schema.get("enum"), list):
        return "enum"
    if kind in ("integer", "number"):
        return "number"
    items = schema.get("items")
    if kind == "array" and isinstance(items, dict) and items.get("type") in ("integer", "number"):
        return "numbers"
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
    schema = tool.parameters
    props: dict[str, Any] = schema.get("properties") or {}
    values = _read(prompt, _enum_words(props))
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
        elif kind == "numbers" and name in required:
            value = [n for n in (_number_for(schema["items"], n) for n in numbers) if n is not None]
            numbers.clear()  # "sales of 3, 5 and 8": the list takes them all
            value = value or None
        elif kind == "name" and name in required and name.lower() in _WHOLE_PROMPT:
            value = values.quoted[0] if values.quoted else values.prompt.strip()
        elif kind == "name" and name in required and names:
            value = names.pop(0)
        if value is None and name in required:
            value = sample_value(schema, root, 1)
        if value is not None or name in required:
            arguments[name] = value
    return arguments


def _enum_words(props: dict[str, Any]) -> set[str]:
    """The lowercased enum values of the parameters: words the prompt uses to pick them."""
    return {
        str(value).lower()
        for sub in props.values()
        if isinstance(sub, dict) and isinstance(sub.get("enum"), list)
        for value in sub["enum"]
    }


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
