"""How a run gets its structured answer: native mode or a final tool, checks and repair rounds.

``OutputPlan`` is the loop's side of ``output_type`` (the schema and the parsing are
``aiwrapper._run._output``'s). It decides once per run how the answer is asked for:

* natively, where the provider has a structured-output mode for the model (the provider
  package renders ``options.output_type`` in its own request field);
* otherwise through the ``final_result`` tool, declared beside the user's tools and required
  where the provider can force a call (by name once no other tool may be called). Its call is
  the answer: it never appears in ``result.function_calls``, and in ``messages`` it becomes
  the assistant's text (the JSON), so a conversation passed back to ``chat`` holds no trace
  of it.

After the final turn, ``check`` validates the answer into ``result.output``; an answer that
does not fit gets a repair round (a user message listing the errors by JSON pointer), up to
``output_retries``, then ``OutputValidationError``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from .._conversation._messages import LangMessage, TextPart, ToolCallPart
from .._conversation._result import FunctionCall, LangResult
from .._errors import ConfigError, OutputValidationError, ToolArgumentsError
from .._tools import Tool
from ._capabilities import native_output
from ._contract import OutputSupport
from ._options import LangOptions
from ._output import OUTPUT_TOOL, OutputSpec, output_spec

__all__ = ["OutputPlan"]


class OutputPlan:
    """One run's way to its structured answer.

    Args:
        spec: The compiled ``output_type``.
        native: Ask through the provider's structured-output mode (else the final tool).
        retries: Repair rounds left.
        force: Require a tool call in the fallback (the provider can, and thinking is off).
    """

    def __init__(self, spec: OutputSpec, *, native: bool, retries: int, force: bool) -> None:
        self.spec = spec
        self.native = native
        self.retries = retries
        self.force = force

    @classmethod
    def for_run(
        cls,
        provider: str,
        model: str,
        options: LangOptions,
        tools: Sequence[Tool],
        has_tools: bool,
        support: OutputSupport,
    ) -> OutputPlan | None:
        """The plan for a run, or None when it asks for plain text.

        ``has_tools`` also counts tool servers, whose tools are listed only once the run starts;
        ``support`` is what the provider's wire offers.
        """
        spec = output_spec(options.output_type)
        if spec is None:
            return None
        if any(t.name == OUTPUT_TOOL for t in tools):
            raise ConfigError(f"the function name {OUTPUT_TOOL!r} is reserved with output_type")
        native = native_output(
            provider, model, spec.schema, has_tools=has_tools, gate=support.native_schemas
        )
        force = support.forced_call and not options.thinking
        return cls(spec, native=native, retries=options.output_retries or 0, force=force)

    def request(
        self, tools: Sequence[Tool], options: LangOptions
    ) -> tuple[Sequence[Tool], LangOptions]:
        """The tools and options of one request."""
        if self.native:
            return tools, options
        choice = options.function_call
        if self.force and (not tools or choice == "none"):
            # Only the answer is left to call (no tools, or max_tool_calls spent): name it,
            # where "required" would still let a model answer in text on some wires.
            choice = {"name": OUTPUT_TOOL}
        elif self.force and choice in (None, "auto", "required"):
            choice = "required"
        return [*tools, self.spec.tool], dataclasses.replace(
            options, output_type=None, function_call=choice
        )

    def hides(self, call: FunctionCall) -> bool:
        """Whether ``call`` is the fallback's answer, which the user never sees as a call."""
        return not self.native and call.name == OUTPUT_TOOL

    def take_answer(self, result: LangResult) -> list[FunctionCall]:
        """Turn the fallback's call in the latest turn into its text; return the calls left.

        When the model called user tools in the same turn, the early answer is dropped: the
        tools run and the model is asked again.
        """
        message = result.messages[-1]
        parts = message.parts
        answers = [p for p in parts if isinstance(p, ToolCallPart) and self.hides(p.call)]
        if not answers:
            return message.tool_calls
        message.parts = [p for p in parts if not any(p is answer for answer in answers)]
        left = message.tool_calls
        if not left:
            message.parts.append(TextPart(answers[0].call.arguments_json()))
            result.answer, result.finish_reason = message.content, "stop"
        return left

    def check(self, result: LangResult) -> LangMessage | None:
        """Validate the answer into ``result.output``; the repair message when it does not fit.

        Raises:
            OutputValidationError: It does not fit and no repair round is left.
        """
        try:
            result.output = self.spec.parse(result.answer)
        except ToolArgumentsError as exc:
            if self.retries <= 0:
                raise OutputValidationError(exc.errors, result) from exc
            self.retries -= 1
            return LangMessage.text("user", self._repair_text(exc.errors))
        return None

    def _repair_text(self, errors: list[dict[str, str]]) -> str:
        lines = "\n".join(f"- {e['path'] or '/'}: {e['message']}" for e in errors)
        how = (
            "Answer again with only the corrected JSON."
            if self.native
            else f"Call {OUTPUT_TOOL} again with corrected arguments."
        )
        return f"Your answer does not match the required output schema:\n{lines}\n{how}"
