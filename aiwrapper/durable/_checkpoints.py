"""The JSON forms a durable run stores: a model's turn, a call's outcome, a run's result.

Each model request's checkpoint is the assistant turn in the conversation document's form
(``LangMessages.to_jsonable``: parts in order, opaque provider state, calls) with its usage and
finish reason; each tool call's is its outcome as the model saw it, with what became of the
call (status, JSON form of its result, error). A run's result travels back to the caller the
same way, and so does an error that ended the run (its class, message and plain fields). Only
plain JSON data goes in, so a checkpoint reads back in any process and any later version.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from .. import _errors as errors
from .._conversation._assembler import Assembler
from .._conversation._document import messages_to_jsonable
from .._conversation._document_values import read_result, write_result
from .._conversation._logprobs import logprobs_from_jsonable, logprobs_to_jsonable
from .._conversation._messages import LangMessage, LangMessages, MediaPart, TextPart
from .._conversation._result import FunctionCall, LangResult, RequestUsage, Usage
from .._conversation._serialize import to_jsonable
from .._run._steps import ToolOutcome

__all__ = [
    "error_from_jsonable",
    "error_to_jsonable",
    "outcome_from_jsonable",
    "outcome_to_jsonable",
    "result_from_jsonable",
    "result_to_jsonable",
    "turn_from_jsonable",
    "turn_to_jsonable",
]

JSONObject = dict[str, Any]


def turn_to_jsonable(turn: Assembler) -> JSONObject:
    """A finished turn: its message, usage, finish reason and the model that answered."""
    return {
        "message": messages_to_jsonable([turn.message]),
        "usage": _usage_to_jsonable(turn.usage),
        "finish_reason": turn.finish_reason,
        "truncated": turn.truncated,
        "model": turn.model,
        "logprobs": logprobs_to_jsonable(turn.logprobs),
    }


def turn_from_jsonable(data: JSONObject, provider: str) -> Assembler:
    """The turn ``turn_to_jsonable`` wrote, as the finished ``Assembler`` the loop reads."""
    message = LangMessages.from_jsonable(data["message"])[0]
    return Assembler(
        provider,
        message=message,
        usage=_usage_from_jsonable(data["usage"]),
        finish_reason=data["finish_reason"],
        started=list(message.tool_calls),
        truncated=bool(data["truncated"]),
        model=data["model"],
        logprobs=logprobs_from_jsonable(data.get("logprobs", ())),
    )


def outcome_to_jsonable(call: FunctionCall, outcome: ToolOutcome) -> JSONObject:
    """A call's outcome, and the status, result, error and arguments it left on the call."""
    data: JSONObject = {
        "content": outcome.content,
        "is_error": outcome.is_error,
        "error_type": outcome.error_type,
        "deferred": outcome.deferred,
        "status": call.status,
        "result": write_result(call.result, "result"),  # as the conversation document does
        "error": call.error,
        "arguments": to_jsonable(call.arguments),
    }
    if outcome.parts is not None:  # images and documents: the message form keeps them whole
        message = LangMessage.tool_result(call, outcome.content, parts=outcome.parts)
        data["parts"] = messages_to_jsonable([message])
    return data


def outcome_from_jsonable(call: FunctionCall, data: JSONObject) -> ToolOutcome:
    """The outcome ``outcome_to_jsonable`` wrote, marked replayed; ``call`` is restored."""
    result = data["result"]
    call.status, call.error = data["status"], data["error"]
    call.result = None if result is None else read_result(result, "result")
    call.arguments = data["arguments"]
    parts = None
    if "parts" in data:
        message = LangMessages.from_jsonable(data["parts"])[0]
        parts = tuple(p for p in message.parts if isinstance(p, (TextPart, MediaPart)))
    return ToolOutcome(
        data["content"],
        data["is_error"],
        data["error_type"],
        parts,
        deferred=data["deferred"],
        replayed=True,
    )


def result_to_jsonable(result: LangResult[Any]) -> JSONObject:
    """What a run gives its caller, as plain JSON data (``result_from_jsonable`` reads it)."""
    return {
        "prompt": result.prompt,
        "messages": messages_to_jsonable(result.messages),
        "calls": [call.id for call in result.function_calls],
        "pending": [call.id for call in result.pending],
        "answer": result.answer,
        "thinking": result.thinking,
        "finished": result.finished,
        "finish_reason": result.finish_reason,
        "iterations": result.iterations,
        "model": result.model,
        "truncated": result.truncated,
        "usage": [_usage_to_jsonable(r) | {"cost": r.cost} for r in result.usage.requests],
        "logprobs": logprobs_to_jsonable(result.logprobs),
    }


def result_from_jsonable(data: JSONObject) -> LangResult[Any]:
    """The ``LangResult`` ``result_to_jsonable`` wrote; ``output`` is left to the caller."""
    messages = LangMessages.from_jsonable(data["messages"])
    calls = {c.id: c for m in messages if m.role == "assistant" for c in m.tool_calls}
    result: LangResult[Any] = LangResult(
        data["prompt"],
        messages,
        function_calls=[calls[i] for i in data["calls"] if i in calls],
        finished=data["finished"],
        finish_reason=data["finish_reason"],
        usage=Usage([_usage_from_jsonable(r) for r in data["usage"]]),
        iterations=data["iterations"],
        model=data["model"],
        truncated=data["truncated"],
        pending=[calls[i] for i in data["pending"] if i in calls],
    )
    result.answer, result.thinking = data["answer"], data["thinking"]
    result.logprobs = logprobs_from_jsonable(data.get("logprobs", ()))
    return result


def error_to_jsonable(exc: errors.AIWrapperError, result: JSONObject | None) -> JSONObject:
    """An error that ended a run: its class, message, plain fields and the partial result."""
    fields = {k: v for k, v in vars(exc).items() if k != "result" and _is_json(v)}
    message = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    return {"type": type(exc).__name__, "message": message, "fields": fields, "result": result}


def error_from_jsonable(data: JSONObject) -> errors.AIWrapperError:
    """The error ``error_to_jsonable`` wrote, of the same class, with ``result`` rebuilt."""
    kind = getattr(errors, str(data["type"]), None)
    if not (isinstance(kind, type) and issubclass(kind, errors.AIWrapperError)):
        kind = errors.AIWrapperError
    exc = kind.__new__(kind)
    Exception.__init__(exc, data["message"])
    vars(exc).update(data["fields"])
    if data["result"] is not None:
        exc.result = result_from_jsonable(data["result"])
    return exc


def _usage_to_jsonable(usage: RequestUsage) -> JSONObject:
    counts = asdict(usage)
    del counts["cost"]  # priced again from the model's facts when read back
    return counts


def _usage_from_jsonable(data: JSONObject) -> RequestUsage:
    usage = RequestUsage(**{k: int(v) for k, v in data.items() if k != "cost"})
    usage.cost = data.get("cost")
    return usage


def _is_json(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return True
