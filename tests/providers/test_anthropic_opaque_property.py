"""A property of the Anthropic stream: an unknown block never costs the turn's text or calls.

Whatever its type, and however its (valid JSON) input is cut into ``input_json_delta``
fragments, empty ones included, the block comes out whole with that input and the text and
calls around it are exactly those of the same turn without it.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from aiwrapper._conversation._messages import LangMessage, OpaquePart

from .test_anthropic_opaque import TOOL_USE, assemble, block, decode, sse

KNOWN = {"text", "thinking", "tool_use"}
NAMED = [
    "server_tool_use",
    "web_search_tool_result",
    "web_fetch_tool_result",
    "code_execution_tool_result",
    "mcp_tool_use",
    "mcp_tool_result",
    "container_upload",
    "advisor_tool_result",
    "redacted_thinking",
]
BLOCK_TYPES = st.one_of(st.sampled_from(NAMED), st.text(min_size=1, max_size=12)).filter(
    lambda kind: kind not in KNOWN
)
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)


def turn(middle: list[dict[str, Any]]) -> LangMessage:
    """Text, the given block events, more text and a tool call, as one streamed turn."""
    body = sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 5}}},
        *block(0, {"type": "text", "text": ""}, {"type": "text_delta", "text": "Before."}),
        *middle,
        *block(2, {"type": "text", "text": "Af"}, {"type": "text_delta", "text": "ter."}),
        *block(3, TOOL_USE, {"type": "input_json_delta", "partial_json": '{"city": "Oslo"}'}),
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
        {"type": "message_stop"},
    )
    return assemble(decode(body))


WITHOUT = turn([])


def fragments_of(text: str, data: st.DataObject) -> list[str]:
    """``text`` cut at any points, empty pieces included."""
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
    return [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]


@settings(max_examples=80, deadline=None, database=None)
@given(kind=BLOCK_TYPES, value=JSON, in_start=st.booleans(), data=st.data())
def test_any_unknown_block_with_any_split_input_leaves_text_and_calls_alone(
    kind: str, value: Any, in_start: bool, data: st.DataObject
) -> None:
    # The input streams in fragments after "input": {}, or sits whole in the start event
    # with nothing (or only empty fragments) after it.
    indent = data.draw(st.sampled_from([None, 1]))
    text = "" if in_start else json.dumps(value, indent=indent)
    start = {"type": kind, "id": "srvtoolu_1", "input": value if in_start else {}}
    deltas = [{"type": "input_json_delta", "partial_json": f} for f in fragments_of(text, data)]
    got = turn(block(1, start, *deltas))
    assert got.content == WITHOUT.content == "Before.After."
    assert [(c.id, c.name, c.arguments) for c in got.tool_calls] == [
        (c.id, c.name, c.arguments) for c in WITHOUT.tool_calls
    ]
    (part,) = [p for p in got.parts if isinstance(p, OpaquePart)]
    assert part.problem is None
    assert part.state.data["block"] == {"type": kind, "id": "srvtoolu_1", "input": value}
