"""What a run produces: ``Usage`` and the growing ``LangResult`` (and its ``FunctionCall``s).

Pure data. The loop fills these in; ``on_result`` callbacks and the user read them. Nothing here
talks to the network or knows a provider's wire format. A result renders itself as Markdown
for a notebook cell; the live display is ``aiwrapper.notebook``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Protocol

from typing_extensions import TypeVar

from ._call import CallStatus, FunctionCall, call_markdown
from ._logprobs import TokenLogprob
from ._messages import LangMessages, TextPart

__all__ = ["CallStatus", "FunctionCall", "LangResult", "RequestUsage", "Usage", "result_markdown"]


@dataclass(slots=True)
class RequestUsage:
    """Token counts of one request, and its cost in USD (``None`` when a price is unknown)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens


@dataclass(slots=True)
class Usage:
    """Token counts summed over every request of a run, with one entry per request."""

    requests: list[RequestUsage] = field(default_factory=list)

    @property
    def input_tokens(self) -> int:
        """Input tokens of all requests, cached ones included."""
        return sum(r.input_tokens for r in self.requests)

    @property
    def output_tokens(self) -> int:
        """Output tokens of all requests, reasoning included."""
        return sum(r.output_tokens for r in self.requests)

    @property
    def cached_input_tokens(self) -> int:
        """Input tokens read from the provider's cache."""
        return sum(r.cached_input_tokens for r in self.requests)

    @property
    def cache_write_tokens(self) -> int:
        """Input tokens written to the provider's cache."""
        return sum(r.cache_write_tokens for r in self.requests)

    @property
    def reasoning_tokens(self) -> int:
        """Output tokens spent on reasoning, where the provider reports them."""
        return sum(r.reasoning_tokens for r in self.requests)

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens of all requests."""
        return self.input_tokens + self.output_tokens

    @property
    def cost(self) -> float | None:
        """USD for all requests (``aiwrapper.models`` prices), None when any price is unknown."""
        costs = [r.cost for r in self.requests]
        if not costs or any(c is None for c in costs):
            return None
        return sum(c for c in costs if c is not None)

    def __repr__(self) -> str:
        return (
            f"Usage(input_tokens={self.input_tokens}, output_tokens={self.output_tokens}, "
            f"total_tokens={self.total_tokens}, requests={len(self.requests)})"
        )


class _TurnText(Protocol):
    """The turn being streamed, which builds its text when it is read.

    ``shown`` is the text part whose text is all of ``answer`` when the turn knows it is, for
    the answer to be read without a call (after every delta, by an ``on_result`` callback).
    """

    shown: TextPart | None
    logprobs: list[TokenLogprob]

    @property
    def answer(self) -> str: ...

    @property
    def thinking(self) -> str: ...


# The type of ``output``: the ``output_type`` asked for (``Any`` when the call does not say).
OutputT = TypeVar("OutputT", default=Any)


@dataclass(slots=True, eq=False)
class LangResult(Generic[OutputT]):
    """The outcome of ``ask``/``chat``; ``on_result`` receives this same object as it grows.

    Attributes:
        prompt: The user's prompt (the last user text for ``chat``).
        answer: The text of the latest assistant turn (while streaming, the turn being streamed).
        thinking: The visible reasoning of the latest assistant turn.
        messages: The whole conversation, ready to pass back to ``chat``.
        function_calls: Every call of the run, in the order the model made them.
        finished: True once the run is over.
        finish_reason: ``stop``, ``tool_calls`` (manual mode), ``deferred`` (``approve``
            answered ``DEFER``: see ``pending``), ``length``, ``content_filter``...
        usage: Token counts summed over the run's requests.
        iterations: How many model requests the run made.
        model: The model the provider says answered the latest request (the model asked
            for when the provider does not say).
        truncated: The latest turn was cut off at the output token limit; with calls in it,
            ``finish_reason`` is ``tool_calls`` and the calls' errors tell the model so.
        output: The final answer as the ``output_type`` asked for, validated (``None`` until
            the run ends; the answer text when no ``output_type`` was given).
        pending: The calls ``approve`` deferred (status ``pending``), when the run stopped
            for them: ``Lang.resume`` continues it with a decision for each.
        logprobs: The log probabilities of the latest assistant turn's answer tokens, in
            order, when the run asked for them (``logprobs=True``); empty otherwise.
    """

    prompt: str
    messages: LangMessages
    function_calls: list[FunctionCall] = field(default_factory=list)
    finished: bool = False
    finish_reason: str | None = None
    usage: Usage = field(default_factory=Usage)
    iterations: int = 0
    model: str | None = None
    truncated: bool = False
    pending: list[FunctionCall] = field(default_factory=list)
    output: OutputT = field(default=None, init=False)  # type: ignore[assignment]
    _answer: str = field(default="", init=False, repr=False)
    _thinking: str = field(default="", init=False, repr=False)
    _logprobs: list[TokenLogprob] = field(default_factory=list, init=False, repr=False)
    # While a turn streams, ``answer`` and ``thinking`` are read from it: built when read,
    # never on every delta, so a long streamed answer costs O(n) in total.
    _streaming: _TurnText | None = field(default=None, init=False, repr=False)

    @property
    def answer(self) -> str:
        """The text of the latest assistant turn (while streaming, the turn being streamed)."""
        streaming = self._streaming
        if streaming is None:
            return self._answer
        shown = streaming.shown
        return streaming.answer if shown is None else shown.text

    @answer.setter
    def answer(self, value: str) -> None:
        self._answer = value

    @property
    def thinking(self) -> str:
        """The visible reasoning of the latest assistant turn."""
        streaming = self._streaming
        return self._thinking if streaming is None else streaming.thinking

    @thinking.setter
    def thinking(self, value: str) -> None:
        self._thinking = value

    @property
    def logprobs(self) -> list[TokenLogprob]:
        """The latest assistant turn's answer tokens with their log probabilities."""
        streaming = self._streaming
        return self._logprobs if streaming is None else streaming.logprobs

    @logprobs.setter
    def logprobs(self, value: list[TokenLogprob]) -> None:
        self._logprobs = value

    def _stream_turn(self, turn: _TurnText | None) -> None:
        """Show ``turn`` as it streams; ``None`` keeps what it ended with."""
        streaming = self._streaming
        if turn is None and streaming is not None:
            self._answer, self._thinking = streaming.answer, streaming.thinking
            self._logprobs = streaming.logprobs
        self._streaming = turn

    def __str__(self) -> str:
        return self.answer

    def _repr_markdown_(self) -> str:
        """What a notebook shows for a bare result: calls, thinking (collapsed), answer, usage."""
        return result_markdown(self)

    def __repr__(self) -> str:
        return (
            f"LangResult(answer={self.answer!r}, finished={self.finished}, "
            f"finish_reason={self.finish_reason!r}, calls={len(self.function_calls)}, "
            f"iterations={self.iterations})"
        )


def result_markdown(result: LangResult) -> str:
    """A result as Markdown: its calls with outcomes, thinking collapsed, answer, usage."""
    parts = [f"- {call_markdown(c)}" for c in result.function_calls]
    if result.thinking:
        parts.append(f"<details><summary>Thinking</summary>\n\n{result.thinking}\n\n</details>")
    parts.append(result.answer or "*(no answer yet)*")
    usage = result.usage
    parts.append(
        f"*{usage.input_tokens} input + {usage.output_tokens} output tokens, "
        f"{result.iterations} requests, {len(result.function_calls)} tool calls*"
    )
    return "\n\n".join(parts)
