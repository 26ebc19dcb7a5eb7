"""The aiwrapper side: ``Lang`` factories pointed at the local server, and the tools they call.

``lang_for`` builds the ``Lang`` of one wire format on a borrowed ``httpx.AsyncClient`` (the
same kind of client the baseline uses). ``model_send`` drives the lower level directly,
``HttpModel.send`` with a no-op sink, to show what the loop and assembler add on top.
"""

from __future__ import annotations

from typing import Any

import httpx
import wire

from aiwrapper import Lang, LangMessage, tool
from aiwrapper._run._contract import ProviderRequest
from aiwrapper._run._options import merge_options
from aiwrapper._tools import to_tools

__all__ = ["LOOP_ASYNC_TOOLS", "LOOP_SYNC_TOOLS", "STREAM_TOOLS", "lang_for", "model_send"]

STREAM_TOOLS = [
    {"name": name, "description": "Take data.", "parameters": {"data": {"type": "string"}}}
    for name in wire.TOOL_NAMES
]


def _sync_tool(name: str) -> Any:
    def plus(x: int) -> int:
        """Add one."""
        return x + 1

    return tool(name=name)(plus)


def _async_tool(name: str) -> Any:
    async def plus(x: int) -> int:
        """Add one."""
        return x + 1

    return tool(name=name)(plus)


LOOP_SYNC_TOOLS = [_sync_tool(name) for name in wire.TOOL_NAMES[: wire.LOOP_CALLS]]
LOOP_ASYNC_TOOLS = [_async_tool(name) for name in wire.TOOL_NAMES[: wire.LOOP_CALLS]]


def lang_for(wire_name: str, root: str, client: httpx.AsyncClient | None) -> Lang:
    """The ``Lang`` that speaks ``wire_name`` to ``root``; ``client=None`` owns its client."""
    if wire_name == "openai":
        return Lang.openai("gpt-4o-mini", api_key="k", base_url=root + "/v1", http_client=client)
    if wire_name == "anthropic":
        return Lang.anthropic(api_key="k", base_url=root, http_client=client)
    if wire_name == "gemini":
        return Lang.gemini(api_key="k", base_url=root, http_client=client)
    if wire_name == "ollama":
        return Lang.ollama(base_url=root, http_client=client)
    if wire_name == "openai-responses":
        return Lang.openai(
            "gpt-5", api="responses", api_key="k", base_url=root + "/v1", http_client=client
        )
    raise ValueError(f"unknown wire {wire_name!r}")


async def _ignore(event: object) -> None:
    return None


async def model_send(lang: Lang, functions: list[Any] | None = None) -> None:
    """One streamed round through ``HttpModel.send``, events dropped."""
    options = merge_options(None)
    request = ProviderRequest(
        model=lang.model.model,
        messages=[LangMessage.text("user", "go")],
        tools=to_tools(functions or ()),
        options=options,
        stream=True,
    )
    await lang.model.send(request, _ignore)
