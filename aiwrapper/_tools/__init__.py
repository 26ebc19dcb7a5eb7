"""Tools: ``@tool``, the schema engine, argument validation and result serialization.

This subpackage owns everything about one tool: reading a Python signature into a canonical
JSON Schema, rendering it per provider, checking a model's arguments, invoking the function
and writing its result for the model. Running tool calls inside a conversation is left to the
loop.
"""

from typing import TYPE_CHECKING

from .context import Context, Param
from .decorator import Tool, tool
from .definitions import to_tool, to_tools
from .dialects import dialect_names
from .results import ToolContent, media_content, serialize_result
from .sample import sample_arguments

__all__ = [
    "DIALECTS",
    "Context",
    "Param",
    "Tool",
    "ToolContent",
    "media_content",
    "sample_arguments",
    "serialize_result",
    "to_tool",
    "to_tools",
    "tool",
]

if TYPE_CHECKING:
    DIALECTS: tuple[str, ...]
    """Every schema dialect name the provider packages offer (for :meth:`Tool.schema_for`)."""
else:

    def __getattr__(name: str) -> tuple[str, ...]:
        # Found when first read: listing the dialects imports every provider package, which
        # ``import aiwrapper`` does not.
        if name == "DIALECTS":
            return dialect_names()
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
