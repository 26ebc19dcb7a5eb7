"""Streams we did not shape: the recorded fixtures grown to N deltas, then written differently.

Each wire's stream is built from the events of one recorded fixture in ``tests/fixtures/``: its
opening and closing events as recorded, and its delta events repeated with new text (or new
argument fragments) until there are N. ``render(name)`` then writes the events in one of the
``VARIANTS``: as recorded (each event's own key order and spacing), with padding fields added
and metadata fields removed, with every object's keys shuffled, with random white space after
``data:`` and between JSON tokens, with keep-alive events and SSE comments interleaved, with
CRLF line ends, or all of these at once. Every variant is drawn from a seeded generator, so
the bytes are the same in every run; the text or the calls to assemble do not depend on it.

A scenario is named ``v-<wire>-<kind>-<variant>-<n>`` (``v-anthropic-tools-shuffled-5000``);
``server.py --variants`` renders one when it is first asked for.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wire import Scenario

__all__ = [
    "CALLS",
    "KINDS",
    "VARIANTS",
    "WIRES",
    "expected_calls",
    "expected_text",
    "render",
    "scenario_name",
]

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
VARIANTS = ("recorded", "padding", "shuffled", "spaced", "keepalive", "crlf", "all")
WIRES = ("openai", "anthropic", "gemini", "ollama", "openai-responses")
KINDS = {  # the wires that stream tool-call arguments in fragments
    "openai": ("text", "tools"),
    "anthropic": ("text", "tools"),
    "gemini": ("text",),
    "ollama": ("text",),
    "openai-responses": ("text", "tools"),
}
CALLS = 4  # the calls of a tools stream; its N fragments are shared out among them
TOOL_NAMES = tuple(f"tool_{i}" for i in range(8))

Path_ = tuple[str | int, ...]


@dataclass(slots=True)
class Event:
    """One event to write: its SSE name, its payload (or raw data text), how it was spaced.

    ``delta`` marks the repeated delta events, which the padding variant pads, and
    ``removable`` lists their metadata fields it may drop (``id``, ``created``,
    ``sequence_number``...).
    """

    name: str | None
    payload: Any
    separators: tuple[str, str] = (",", ":")
    removable: tuple[Path_, ...] = ()
    delta: bool = False
    raw: bool = False  # payload is data text written as is (``[DONE]``)


@dataclass(frozen=True, slots=True)
class Style:
    """How a variant writes the events."""

    padding: bool = False
    shuffle: bool = False
    spaces: bool = False
    keepalive: bool = False
    crlf: bool = False


STYLES = {
    "recorded": Style(),
    "padding": Style(padding=True),
    "shuffled": Style(shuffle=True),
    "spaced": Style(spaces=True),
    "keepalive": Style(keepalive=True),
    "crlf": Style(crlf=True),
    "all": Style(True, True, True, True, True),
}


# --- what a client must assemble -----------------------------------------------------------


def _tokens(n: int) -> Iterator[str]:
    for i in range(n):
        yield " café" if i % 100 == 99 else f" tok{i % 97}"


def expected_text(n: int) -> str:
    """The answer of every text stream of ``n`` deltas."""
    return "".join(_tokens(n))


def _pieces(index: int, count: int) -> list[str]:
    """``count`` fragments of call ``index``'s arguments, a JSON object with quotes inside."""
    middle = [f'p{index}.{j} \\"q\\" ' if j % 50 == 49 else f"p{index}.{j} " for j in range(count)]
    return ['{"data": "', *middle[: max(count - 2, 0)], '"}']


def _shares(n: int) -> list[int]:
    return [n // CALLS + (1 if i < n % CALLS else 0) for i in range(CALLS)]


def expected_calls(n: int) -> list[dict[str, Any]]:
    """The arguments of every tools stream of ``n`` fragments, call by call."""
    return [json.loads("".join(_pieces(i, share))) for i, share in enumerate(_shares(n))]


# --- the recorded fixtures -----------------------------------------------------------------


def _separators(data: str, payload: Any) -> tuple[str, str]:
    for separators in ((",", ":"), (",", ": "), (", ", ": ")):
        if json.dumps(payload, separators=separators, ensure_ascii=False) == data:
            return separators
    return (",", ":")


def _recorded(relative: str) -> list[Event]:
    """The events of a recorded SSE or NDJSON fixture, each with its own spacing."""
    text = (FIXTURES / relative).read_text(encoding="utf-8").replace("\r\n", "\n")
    if relative.endswith(".ndjson"):
        blocks = [(None, line) for line in text.splitlines() if line.strip()]
    else:
        blocks = []
        for block in text.split("\n\n"):
            fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
            if "data" in fields:
                blocks.append((fields.get("event"), fields["data"]))
    events = []
    for name, data in blocks:
        if data == "[DONE]":
            events.append(Event(name, data, raw=True))
            continue
        payload = json.loads(data)
        events.append(Event(name, payload, _separators(data, payload)))
    return events


def _like(template: Event, removable: tuple[Path_, ...] | None = None) -> Event:
    """A fresh copy of ``template`` to fill in (its payload copied through JSON text); a
    delta event when ``removable`` is given."""
    payload = json.loads(json.dumps(template.payload))
    delta = removable is not None
    return Event(template.name, payload, template.separators, removable or (), delta)


# --- the five wires ------------------------------------------------------------------------

_OPENAI_META: tuple[Path_, ...] = (
    ("id",),
    ("object",),
    ("created",),
    ("model",),
    ("system_fingerprint",),
    ("usage",),
    ("obfuscation",),
    ("choices", 0, "index"),
    ("choices", 0, "finish_reason"),
)


def _openai_text(n: int) -> list[Event]:
    recorded = _recorded("openai/text.sse")
    head, deltas, tail = recorded[0], recorded[1:4], recorded[4:]
    out = [head]
    for i, token in enumerate(_tokens(n)):
        event = _like(deltas[i % len(deltas)], _OPENAI_META)
        event.payload["choices"][0]["delta"]["content"] = token
        out.append(event)
    return out + tail


def _openai_tools(n: int) -> list[Event]:
    recorded = _recorded("openai/tool_call_fragments.sse")
    head, start, fragments, tail = recorded[0], recorded[1], recorded[2:5], recorded[5:]
    out = [head]
    for index, share in enumerate(_shares(n)):
        event = _like(start)
        call = event.payload["choices"][0]["delta"]["tool_calls"][0]
        call.update(index=index, id=f"call_{index}")
        call["function"]["name"] = TOOL_NAMES[index]
        out.append(event)
        for j, piece in enumerate(_pieces(index, share)):
            event = _like(fragments[j % len(fragments)], _OPENAI_META)
            call = event.payload["choices"][0]["delta"]["tool_calls"][0]
            call["index"] = index
            call["function"]["arguments"] = piece
            out.append(event)
    return out + tail


def _anthropic_text(n: int) -> list[Event]:
    recorded = _recorded("anthropic/text.sse")
    head, delta, tail = recorded[:3], recorded[3], recorded[5:]
    out = list(head)
    for token in _tokens(n):
        event = _like(delta, ())
        event.payload["delta"]["text"] = token
        out.append(event)
    return out + tail


def _anthropic_tools(n: int) -> list[Event]:
    recorded = _recorded("anthropic/parallel_tool_use.sse")
    head, start, fragment, stop = recorded[:4], recorded[4], recorded[6], recorded[7]
    out = list(head)  # the message, then a text block as recorded
    for call, share in enumerate(_shares(n)):
        index = call + 1  # block 0 is the text
        event = _like(start)
        event.payload["index"] = index
        event.payload["content_block"].update(id=f"toolu_{call}", name=TOOL_NAMES[call])
        out.append(event)
        for piece in _pieces(call, share):
            event = _like(fragment, ())
            event.payload.update(index=index)
            event.payload["delta"]["partial_json"] = piece
            out.append(event)
        event = _like(stop)
        event.payload["index"] = index
        out.append(event)
    return out + recorded[-2:]


_GEMINI_META: tuple[Path_, ...] = (
    ("usageMetadata",),
    ("modelVersion",),
    ("responseId",),
    ("candidates", 0, "index"),
    ("candidates", 0, "content", "role"),
)


def _gemini_text(n: int) -> list[Event]:
    recorded = _recorded("gemini/text.sse")
    first, delta, tail = recorded[0], recorded[1], recorded[2:]
    out = []
    for i, token in enumerate(_tokens(n)):
        # The first chunk names the model as recorded; the others may lose their metadata.
        event = _like(first if i == 0 else delta, () if i == 0 else _GEMINI_META)
        event.payload["candidates"][0]["content"]["parts"][0]["text"] = token
        out.append(event)
    return out + tail


_OLLAMA_META: tuple[Path_, ...] = (("model",), ("created_at",), ("done",), ("message", "role"))


def _ollama_text(n: int) -> list[Event]:
    recorded = _recorded("ollama/text.ndjson")
    delta, last = recorded[0], recorded[-1]
    out = []
    for i, token in enumerate(_tokens(n)):
        event = _like(delta, _OLLAMA_META)
        event.payload["created_at"] = f"2026-01-01T00:00:{i // 1_000_000:02d}.{i % 1_000_000:06d}Z"
        event.payload["message"]["content"] = token
        out.append(event)
    return [*out, last]


_RESPONSES_TEXT_META: tuple[Path_, ...] = (
    ("sequence_number",),
    ("item_id",),
    ("output_index",),
    ("content_index",),
    ("logprobs",),
    ("obfuscation",),
)
_RESPONSES_ARGUMENT_META: tuple[Path_, ...] = (("sequence_number",), ("obfuscation",))


def _responses_text(n: int) -> list[Event]:
    recorded = _recorded("openai_responses/text.sse")
    head, delta, tail = recorded[:6], recorded[6], recorded[8:]
    out = list(head)
    for token in _tokens(n):
        event = _like(delta, _RESPONSES_TEXT_META)
        event.payload["delta"] = token
        out.append(event)
    return out + tail


def _responses_tools(n: int) -> list[Event]:
    recorded = _recorded("openai_responses/reasoning_calls.sse")
    calls_at = next(i for i, e in enumerate(recorded) if _function_call_added(e))
    # As recorded: the item added, two argument deltas, the arguments done, the item done.
    head, added, delta = recorded[:calls_at], recorded[calls_at], recorded[calls_at + 1]
    arguments_done, item_done = recorded[calls_at + 3], recorded[calls_at + 4]
    out = list(head)
    for call, share in enumerate(_shares(n)):
        item_id, pieces = f"fc_{call}", _pieces(call, share)
        event = _like(added)
        event.payload["output_index"] = 2 + call
        event.payload["item"].update(id=item_id, call_id=f"call_{call}", name=TOOL_NAMES[call])
        out.append(event)
        for piece in pieces:
            event = _like(delta, _RESPONSES_ARGUMENT_META)
            event.payload.update(item_id=item_id, output_index=2 + call, delta=piece)
            out.append(event)
        event = _like(arguments_done)
        event.payload.update(item_id=item_id, output_index=2 + call, arguments="".join(pieces))
        out.append(event)
        event = _like(item_done)
        event.payload["output_index"] = 2 + call
        item = event.payload["item"]
        item.update(id=item_id, call_id=f"call_{call}", name=TOOL_NAMES[call])
        item["arguments"] = "".join(pieces)
        out.append(event)
    return [*out, recorded[-1]]


def _function_call_added(event: Event) -> bool:
    payload = event.payload
    return (
        isinstance(payload, dict)
        and payload.get("type") == "response.output_item.added"
        and payload["item"].get("type") == "function_call"
    )


BUILDERS: dict[tuple[str, str], Callable[[int], list[Event]]] = {
    ("openai", "text"): _openai_text,
    ("openai", "tools"): _openai_tools,
    ("anthropic", "text"): _anthropic_text,
    ("anthropic", "tools"): _anthropic_tools,
    ("gemini", "text"): _gemini_text,
    ("ollama", "text"): _ollama_text,
    ("openai-responses", "text"): _responses_text,
    ("openai-responses", "tools"): _responses_tools,
}


# --- writing the events --------------------------------------------------------------------


def _keepalive(wire: str, rng: random.Random, sequence: int) -> str:
    """One keep-alive between two events, as each wire's servers send them."""
    if wire == "ollama":
        return "\n"  # NDJSON has no comments: an empty line
    comment = rng.choice((": keep-alive\n\n", ": OPENROUTER PROCESSING\n\n", ":\n\n"))
    if wire == "anthropic" and rng.random() < 0.5:
        return 'event: ping\ndata: {"type": "ping"}\n\n'
    if wire == "openai-responses" and rng.random() < 0.5:
        return f'event: keepalive\ndata: {{"type":"keepalive","sequence_number":{sequence}}}\n\n'
    return comment


def _shuffled(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: _shuffled(value[key], rng) for key in keys}
    if isinstance(value, list):
        return [_shuffled(item, rng) for item in value]
    return value


def _padded(event: Event, rng: random.Random) -> Any:
    """The payload with some metadata removed and a random padding field added, or not."""
    payload = event.payload
    for path in event.removable:
        if rng.random() < 0.3:
            *parents, last = path
            holder = payload
            for step in parents:
                holder = holder[step]
            holder.pop(last, None)
    if rng.random() < 0.5:
        size = rng.randrange(1, 25)
        payload["obfuscation"] = "".join(rng.choices(string.ascii_letters + string.digits, k=size))
    return payload


def _spaced(value: Any, rng: random.Random) -> str:
    """``value`` as JSON with random white space between its tokens."""

    def gap() -> str:
        return rng.choice(("", "", " ", "  ", "\t"))

    if isinstance(value, dict):
        items = [
            f"{gap()}{json.dumps(k, ensure_ascii=False)}{gap()}:{gap()}{_spaced(v, rng)}{gap()}"
            for k, v in value.items()
        ]
        return "{" + ",".join(items) + "}"
    if isinstance(value, list):
        return "[" + ",".join(f"{gap()}{_spaced(v, rng)}{gap()}" for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _data(event: Event, style: Style, rng: random.Random, sequence: int) -> str:
    if event.raw:
        return event.payload
    payload = event.payload
    if "sequence_number" in payload:
        payload["sequence_number"] = sequence
    if style.padding and event.delta:
        payload = _padded(event, rng)
    if style.shuffle:
        payload = _shuffled(payload, rng)
    if style.spaces:
        return _spaced(payload, rng)
    return json.dumps(payload, separators=event.separators, ensure_ascii=False)


def _write(wire: str, events: list[Event], style: Style, rng: random.Random) -> bytes:
    out: list[str] = []
    for sequence, event in enumerate(events):
        if style.keepalive and rng.random() < 0.2:
            out.append(_keepalive(wire, rng, sequence))
        data = _data(event, style, rng, sequence)
        if wire == "ollama":
            out.append((rng.choice(("", " ", "\t")) if style.spaces else "") + data + "\n")
            continue
        after = rng.choice(("", " ", "  ", "\t ")) if style.spaces else " "
        head = f"event: {event.name}\n" if event.name else ""
        out.append(f"{head}data:{after}{data}\n\n")
    text = "".join(out)
    return (text.replace("\n", "\r\n") if style.crlf else text).encode()


def scenario_name(wire: str, kind: str, variant: str, n: int) -> str:
    """The path segment that selects a variant stream on ``server.py --variants``."""
    return f"v-{wire}-{kind}-{variant}-{n}"


def render(name: str) -> Scenario:
    """The stream a ``scenario_name`` names, with its event count and expected answer."""
    _, rest = name.split("-", 1)
    rest, n_text = rest.rsplit("-", 1)
    rest, variant = rest.rsplit("-", 1)
    wire, kind = rest.rsplit("-", 1)
    n = int(n_text)
    events = BUILDERS[wire, kind](n)
    rng = random.Random(f"{wire}/{kind}/{variant}/{n}")
    body = _write(wire, events, STYLES[variant], rng)
    want = expected_text(n) if kind == "text" else json.dumps(expected_calls(n))
    content_type = "application/x-ndjson" if wire == "ollama" else "text/event-stream"
    return Scenario(body, content_type, len(events), want)
