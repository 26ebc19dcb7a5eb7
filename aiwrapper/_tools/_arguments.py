"""Checking a model's arguments for one call against a tool's compiled parameters.

The entry point of validation: it reads the JSON text a model sent, hands the object to the
tool's compiled node (:mod:`aiwrapper._tools.nodes`) and turns what the pass collected
(:mod:`aiwrapper._tools.validate`) into the keyword arguments or one ``ToolArgumentsError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import ToolArgumentsError
from .._wire._jsontext import loads_standard
from .exact import loads_exact
from .nodes import Node
from .validate import INVALID, Coercion, State, describe_value

__all__ = ["validate_arguments"]


def validate_arguments(
    root: Node, arguments: Mapping[str, Any] | str, *, tool_name: str, exact: bool = False
) -> tuple[dict[str, Any], list[Coercion]]:
    """Check a model's arguments against a tool's compiled parameters.

    Args:
        root: The compiled object node of the tool's parameters.
        arguments: A mapping, or the JSON text a model produced (empty text means no arguments).
        tool_name: Named in the error.
        exact: Read JSON text's numbers keeping their digits (a ``Decimal`` parameter).

    Returns:
        The keyword arguments (declared Python types built) and the coercions applied.

    Raises:
        ToolArgumentsError: Listing every bad field by JSON pointer.
    """
    sent = ""
    if isinstance(arguments, (str, bytes)):
        try:
            sent = arguments.decode() if isinstance(arguments, bytes) else arguments
            loads = loads_exact if exact else loads_standard
            arguments = loads(sent) if sent.strip() else {}
        except ValueError as exc:  # UnicodeDecodeError, JSONDecodeError, NaN, deep nesting
            message = f"arguments are not valid JSON ({exc}); send a JSON object"
            raise ToolArgumentsError(tool_name, [_whole(message, sent)]) from exc
    if root.takes_as_is(arguments):
        return dict(arguments), []
    if not isinstance(arguments, Mapping):
        message = f"expected a JSON object of arguments, got {describe_value(arguments)}"
        raise ToolArgumentsError(tool_name, [_whole(message, sent)])
    st = State()
    try:
        result = root.convert(arguments, "", st)
    except RecursionError as exc:  # the nodes recurse with the value: absurd nesting
        message = "arguments nested too deeply; send a flatter JSON object"
        raise ToolArgumentsError(tool_name, [_whole(message, sent)]) from exc
    if st.errors or result is INVALID:
        raise ToolArgumentsError(tool_name, st.errors)
    return result, st.coercions


def _whole(message: str, sent: str) -> dict[str, str]:
    """An error about the arguments as a whole, quoting the text the model sent."""
    if sent:
        quoted = sent if len(sent) <= _QUOTED else f"{sent[:_QUOTED]}... ({len(sent)} characters)"
        message = f"{message}. You sent: {quoted}"
    return {"path": "", "message": message}


_QUOTED = 1_000  # characters of malformed arguments quoted back to the model
