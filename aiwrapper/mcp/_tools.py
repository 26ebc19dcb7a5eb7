"""An MCP server's tools as ``Tool`` objects, and their results as what the model reads.

This module owns the translation both ways: a listed tool becomes a ``Tool`` (a portable name,
the server's input schema checked like a dict definition's, the server's options) whose calls
go to the server under the tool's own name; a ``CallToolResult`` becomes a ``ToolContent``
(text blocks joined; ``structuredContent`` only when there is no text, so the same data is never
sent twice; images as image parts; other blocks described), or ``MCPToolError`` for ``isError``.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import json
import re
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass
from typing import Any

import mcp.types as types

from .._conversation._media import DOCUMENT_TYPES, Document, Image
from .._conversation._messages import MediaPart, TextPart
from .._errors import ConfigError, ToolDefinitionError
from .._tools import Tool, ToolContent
from .._tools.schemanodes import check_refs, compile_schema
from ._errors import MCPToolError

__all__ = ["MCPTool", "ToolOptions", "make_tools", "to_content"]

Caller = Callable[[str, dict[str, Any]], Awaitable[types.CallToolResult]]
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64  # the strictest provider's limit on a function name, 64 characters


@dataclass(frozen=True, slots=True)
class ToolOptions:
    """A server's options for its tools (see ``MCPServer``)."""

    prefix: str | None = None
    include: Collection[str] | None = None
    exclude: Collection[str] = ()
    timeout: float | None = None
    requires_approval: bool | Collection[str] = False
    sequential: bool | Collection[str] = False

    def wants(self, name: str) -> bool:
        """Whether the server's tool ``name`` passes ``include`` and ``exclude``."""
        return (self.include is None or name in self.include) and name not in self.exclude

    def flag(self, setting: bool | Collection[str], name: str) -> bool:
        """A per-tool setting: ``True`` for every tool, or the set of names it applies to."""
        return setting if isinstance(setting, bool) else name in setting


class MCPTool(Tool):
    """A tool of an MCP server: declared under ``name``, called on the server as ``remote_name``.

    Attributes:
        remote_name: The tool's name on the server.
        origin: Which server it comes from (used in error messages).
    """

    remote_name: str
    origin: str


def make_tools(
    listed: list[types.Tool], options: ToolOptions, caller: Caller, origin: str
) -> list[Tool]:
    """The server's tools that pass the filters, as ``Tool`` objects calling through ``caller``.

    Raises:
        ToolDefinitionError: A tool whose input schema is not a usable JSON Schema object.
    """
    return [_make_tool(t, options, caller, origin) for t in listed if options.wants(t.name)]


def _make_tool(listed: types.Tool, options: ToolOptions, caller: Caller, origin: str) -> Tool:
    name = exposed_name(listed.name, options.prefix)
    schema = _input_schema(listed, origin)
    remote = listed.name

    async def call(**arguments: Any) -> ToolContent:
        return to_content(await caller(remote, arguments))

    made = MCPTool(
        name=name,
        description=listed.description or listed.title or "",
        parameters=schema,
        validator=compile_schema(schema),
        func=call,
        timeout=options.timeout,
        sequential=options.flag(options.sequential, remote),
        requires_approval=options.flag(options.requires_approval, remote),
    )
    made.remote_name, made.origin = remote, f"{remote!r} of MCP server {origin}"
    return made


def exposed_name(name: str, prefix: str | None) -> str:
    """The declared name: prefixed, made of letters, digits, ``_`` and ``-``, at most 64."""
    full = f"{prefix}_{name}" if prefix else name
    safe = _UNSAFE.sub("_", full)
    if not re.match(r"[A-Za-z_]", safe):
        safe = f"_{safe}"
    if safe == full and len(safe) <= _MAX_NAME:
        return safe
    # Changed or too long: a short hash of the original keeps two cleaned names apart.
    digest = hashlib.sha1(full.encode()).hexdigest()[:8]
    return f"{safe[: _MAX_NAME - 9]}_{digest}"


def _input_schema(listed: types.Tool, origin: str) -> dict[str, Any]:
    schema = copy.deepcopy(dict(listed.input_schema or {}))
    schema.pop("$schema", None)  # a dialect marker, not part of the arguments' shape
    if schema.get("type", "object") != "object":
        raise ToolDefinitionError(
            f"tool {listed.name!r} of MCP server {origin}: its input schema is not an object"
        )
    schema.setdefault("type", "object")
    schema.setdefault("properties", {})
    check_refs(schema, schema)
    return schema


def to_content(result: types.CallToolResult) -> ToolContent:
    """A call's result as the model reads it; ``isError`` raises ``MCPToolError``.

    Text, images, and embedded resources holding an image, a PDF or text become parts in the
    server's order; what no provider takes (audio, links) is described in words.
    """
    parts: list[TextPart | MediaPart] = []
    for block in result.content:
        if isinstance(block, types.TextContent):
            parts.append(TextPart(block.text))
        else:
            parts.append(_media_part(block) or TextPart(_describe(block)))
    if not parts and result.structured_content is not None:
        parts.append(TextPart(json.dumps(result.structured_content, ensure_ascii=False)))
    content = ToolContent(tuple(parts), result)
    if result.is_error:
        raise MCPToolError(content.text or "the tool failed without a message", result)
    return content


def _media_part(block: Any) -> MediaPart | None:
    """An image block, or a resource holding an image or a document, as a part."""
    try:
        if isinstance(block, types.ImageContent):
            return MediaPart(Image.from_bytes(base64.b64decode(block.data), block.mime_type))
        resource = getattr(block, "resource", None)
        if isinstance(block, types.EmbeddedResource) and isinstance(
            resource, types.BlobResourceContents
        ):
            raw = base64.b64decode(resource.blob)
            mime = resource.mime_type
            media = Document if mime in DOCUMENT_TYPES or mime is None else Image
            name = str(resource.uri).rsplit("/", 1)[-1] or None
            return MediaPart(media.from_bytes(raw, mime, name=name))
    except (ConfigError, binascii.Error, ValueError):
        return None  # a type no provider takes, or bytes that are not what they claim
    return None


def _describe(block: Any) -> str:
    """A block the providers cannot take, in words (audio, resources and links)."""
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return resource.text
        return f"[resource {resource.uri} ({resource.mime_type or 'binary'}), not shown]"
    if isinstance(block, types.ResourceLink):
        return f"[resource link: {block.name} <{block.uri}>]"
    if isinstance(block, types.AudioContent):
        return f"[{block.mime_type} audio, not shown]"
    return f"[{getattr(block, 'type', 'unknown')} content, not shown]"
