"""Tools: ``@tool``, the schema engine, argument validation and result serialization.

This subpackage owns everything about one tool: reading a Python signature into a canonical
JSON Schema, rendering it per provider, checking a model's arguments, invoking the function
and writing its result for the model. Running tool calls inside a conversation is left to the
loop.
"""

from .context import Context, Param
from .decorator import Tool, tool
from .definitions import to_tool, to_tools
from .dialects import DIALECTS
from .results import ToolContent, serialize_result
from .sample import sample_arguments

__all__ = [
    "DIALECTS",
    "Context",
    "Param",
    "Tool",
    "ToolContent",
    "sample_arguments",
    "serialize_result",
    "to_tool",
    "to_tools",
    "tool",
]
