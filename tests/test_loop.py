"""The tool loop, on the scripted model: order, concurrency, failures, limits, approval."""

from __future__ import annotations

import gc
import json
from typing import Any

import anyio
import pytest

from aiwrapper import (
    ConfigError,
    Context,
    FunctionCall,
    Lang,
    LangResult,
    MaxIterationsError,
    RunTimeoutError,
    tool,
)

pytestmark = pytest.mark.anyio


def calls(*specs: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "function_calls": [
            {"name": name, "arguments": args, "id": f"c{i}"} for i, (name, args) in enumerate(specs)
        ]
    }


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def tool_messages(result: LangResult) -> list[tuple[str | None, str, bool]]:
    return [(m.tool_call_id, m.content, m.is_error) for m in result.messages if m.role == "tool"]


async def test_a_round_of_calls_then_an_answer() -> None:
    lang = Lang.scripted([calls(("add", {"a": 1, "b": 2}), ("add", {"a": 3, "b": 4})), "3 and 7"])
    result = await lang.ask("sum", functions=[add])
    assert result.answer == "3 and 7"
    assert result.finished is True
    assert result.finish_reason == "stop"
    assert result.iterations == 2
    assert [c.result for c in result.function_calls] == [3, 7]
    assert [c.status for c in result.function_calls] == ["done", "done"]
    assert tool_messages(result) == [("c0", "3", False), ("c1", "7", False)]
    assert [m.role for m in result.messages] == ["user", "assistant", "tool", "tool", "assistant"]
    second = lang.requests[1]
    assert [m.role for m in second.messages] == ["user", "assistant", "tool", "tool"]
    assert second.tools[0]["name"] == "add"


async def test_a_finished_run_is_freed_at_once_not_left_to_the_garbage_collector() -> None:
    lang = Lang.scripted([calls(("add", {"a": 1, "b": 2})), "3"])
    gc.collect()
    gc.freeze()  # what lived before the run is not scanned again: the collection sees the run's
    gc.set_debug(gc.DEBUG_SAVEALL)  # what a collection finds is kept in gc.garbage
    try:
        await lang.ask("sum", functions=[add])
        gc.collect()
        cyclic = {type(o).__name__ for o in gc.garbage}
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.unfreeze()
    assert not cyclic & {"Run", "CallExecutor", "LangResult", "Watchers", "Assembler"}


async def test_text_before_calls_is_not_the_answer() -> None:
    turn = {"text": "Let me add.", **calls(("add", {"a": 1, "b": 1}))}
    result = await Lang.scripted([turn, "2"]).ask("x", functions=[add])
    assert result.answer == "2"
    assert result.messages[1].content == "Let me add."


async def test_results_are_appended_in_call_order_whatever_finishes_first() -> None:
    release_slow = anyio.Event()
    finished: list[str] = []

    @tool
    async def slow() -> str:
        """Slow."""
        await release_slow.wait()
        finished.append("slow")
        return "slow done"

    @tool
    async def fast() -> str:
        """Fast."""
        finished.append("fast")
        release_slow.set()
        return "fast done"

    lang = Lang.scripted([calls(("slow", {}), ("fast", {})), "ok"])
    result = await lang.ask("go", functions=[slow, fast])
    assert finished == ["fast", "slow"]
    assert tool_messages(result) == [("c0", "slow done", False), ("c1", "fast done", False)]


async def test_parallel_false_runs_calls_one_after_another_in_call_order() -> None:
    log: list[str] = []

    @tool
    async def step(n: int) -> int:
        """Step."""
        log.append(f"start {n}")
        await anyio.sleep(0)
        log.append(f"end {n}")
        return n

    script = [calls(("step", {"n": 1}), ("step", {"n": 2}), ("step", {"n": 3})), "done"]
    await Lang.scripted(script).ask("go", functions=[step], parallel=False)
    assert log == ["start 1", "end 1", "start 2", "end 2", "start 3", "end 3"]


async def test_parallel_runs_calls_concurrently() -> None:
    log: list[str] = []

    @tool
    async def step(n: int) -> int:
        """Step."""
        log.append(f"start {n}")
        await anyio.sleep(0.01)
        log.append(f"end {n}")
        return n

    script = [calls(("step", {"n": 1}), ("step", {"n": 2})), "done"]
    await Lang.scripted(script).ask("go", functions=[step])
    assert sorted(log[:2]) == ["start 1", "start 2"]


async def test_max_concurrency_caps_calls_running_at_once() -> None:
    running = 0
    peak = 0

    @tool
    async def step(n: int) -> int:
        """Step."""
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await anyio.sleep(0.01)
        running -= 1
        return n

    script = [calls(*[("step", {"n": i}) for i in range(5)]), "done"]
    await Lang.scripted(script).ask("go", functions=[step], max_concurrency=2)
    assert peak == 2


async def test_a_sequential_tool_runs_alone_in_its_place() -> None:
    log: list[str] = []

    @tool
    async def par(n: int) -> int:
        """Parallel."""
        log.append(f"start {n}")
        await anyio.sleep(0.01)
        log.append(f"end {n}")
        return n

    @tool(sequential=True)
    async def alone() -> str:
        """Alone."""
        log.append("alone")
        return "x"

    script = [calls(("par", {"n": 1}), ("alone", {}), ("par", {"n": 2})), "done"]
    await Lang.scripted(script).ask("go", functions=[par, alone])
    assert log == ["start 1", "end 1", "alone", "start 2", "end 2"]


async def test_tool_exception_becomes_an_error_result() -> None:
    @tool
    def boom() -> str:
        """Fails."""
        raise ValueError("no luck")

    result = await Lang.scripted([calls(("boom", {})), "sorry"]).ask("go", functions=[boom])
    assert tool_messages(result) == [("c0", "ValueError: no luck", True)]
    call = result.function_calls[0]
    assert (call.status, call.error) == ("error", "ValueError: no luck")
    assert result.messages[2].error_type == "ValueError"


async def test_tool_errors_raise_reraises_the_tools_own_exception() -> None:
    @tool
    def boom() -> str:
        """Fails."""
        raise KeyError("k")

    lang = Lang.scripted([calls(("boom", {}), ("add", {"a": 1, "b": 1})), "x"])
    with pytest.raises(KeyError):
        await lang.ask("go", functions=[boom, add], tool_errors="raise")


async def test_unknown_function_lists_the_valid_names() -> None:
    result = await Lang.scripted([calls(("nope", {})), "ok"]).ask("go", functions=[add])
    assert tool_messages(result) == [("c0", "Unknown function 'nope'. Valid functions: add.", True)]


async def test_invalid_json_arguments_never_call_the_function() -> None:
    called = []

    @tool
    def f(x: int) -> int:
        """F."""
        called.append(x)
        return x

    turn = {"function_calls": [{"name": "f", "arguments": '{"x": 1', "id": "c0"}]}
    result = await Lang.scripted([turn, "ok"]).ask("go", functions=[f])
    assert called == []
    assert result.function_calls[0].status == "error"
    assert tool_messages(result)[0][2] is True
    assert "f" in tool_messages(result)[0][1]


async def test_invalid_arguments_name_the_bad_field() -> None:
    result = await Lang.scripted([calls(("add", {"a": "x", "b": 1})), "ok"]).ask(
        "go", functions=[add]
    )
    content = tool_messages(result)[0][1]
    assert "/a" in content
    assert result.messages[2].error_type == "ToolArgumentsError"


async def test_tool_timeout_becomes_an_error_result() -> None:
    @tool
    async def sleepy() -> str:
        """Sleeps."""
        await anyio.sleep(10)
        return "late"

    result = await Lang.scripted([calls(("sleepy", {})), "ok"]).ask(
        "go", functions=[sleepy], tool_timeout=0.01
    )
    assert tool_messages(result) == [("c0", "'sleepy' timed out after 0.01 s.", True)]


async def test_a_tools_own_timeout_wins_over_tool_timeout() -> None:
    @tool(timeout=0.01)
    async def sleepy() -> str:
        """Sleeps."""
        await anyio.sleep(10)
        return "late"

    result = await Lang.scripted([calls(("sleepy", {})), "ok"]).ask(
        "go", functions=[sleepy], tool_timeout=100
    )
    assert tool_messages(result)[0][1] == "'sleepy' timed out after 0.01 s."


async def test_approve_denies_with_a_reason_and_the_function_is_not_called() -> None:
    ran: list[int] = []

    @tool(requires_approval=True)
    def delete(n: int) -> str:
        """Delete."""
        ran.append(n)
        return "deleted"

    def approve(call: FunctionCall) -> bool | str:
        return True if call.arguments["n"] == 1 else "too many"

    script = [calls(("delete", {"n": 1}), ("delete", {"n": 2}), ("add", {"a": 1, "b": 1})), "k"]
    result = await Lang.scripted(script).ask("go", functions=[delete, add], approve=approve)
    assert ran == [1]
    assert tool_messages(result) == [
        ("c0", "deleted", False),
        ("c1", "Call to 'delete' was not run: too many.", True),
        ("c2", "2", False),
    ]
    assert result.function_calls[1].status == "denied"


async def test_approve_without_flags_is_asked_for_every_call() -> None:
    asked: list[str] = []

    async def approve(call: FunctionCall) -> bool:
        asked.append(call.id)
        return False

    result = await Lang.scripted([calls(("add", {"a": 1, "b": 1})), "k"]).ask(
        "go", functions=[add], approve=approve
    )
    assert asked == ["c0"]
    assert tool_messages(result) == [("c0", "Call to 'add' was not run: the user denied it.", True)]


async def test_requires_approval_without_approve_is_a_config_error_before_any_request() -> None:
    @tool(requires_approval=True)
    def danger() -> str:
        """Danger."""
        return "x"

    lang = Lang.scripted(["never"])
    with pytest.raises(ConfigError, match="danger"):
        await lang.ask("go", functions=[danger])
    assert lang.requests == []


async def test_function_handler_runs_dict_definitions() -> None:
    definition = {
        "name": "lookup",
        "description": "Look up a word.",
        "parameters": {"word": {"type": "string", "description": "The word", "required": True}},
    }
    seen: list[dict[str, Any]] = []

    def handler(call: FunctionCall) -> dict[str, str]:
        seen.append(call.arguments)
        return {"meaning": "a greeting"}

    result = await Lang.scripted([calls(("lookup", {"word": "hi"})), "ok"]).ask(
        "go", functions=[definition], function_handler=handler
    )
    assert seen == [{"word": "hi"}]
    assert tool_messages(result) == [("c0", '{"meaning":"a greeting"}', False)]


async def test_dict_definition_without_handler_is_a_config_error() -> None:
    definition = {"name": "lookup", "description": "d", "parameters": {}}
    with pytest.raises(ConfigError, match="function_handler"):
        await Lang.scripted(["x"]).ask("go", functions=[definition])


async def test_max_iterations_raises_with_the_partial_result() -> None:
    script = [calls(("add", {"a": i, "b": 0})) for i in range(5)]
    with pytest.raises(MaxIterationsError) as info:
        await Lang.scripted(script).ask("go", functions=[add], max_iterations=2)
    assert info.value.result.iterations == 2
    assert [c.result for c in info.value.result.function_calls] == [0, 1]


async def test_run_timeout_raises_with_the_partial_result() -> None:
    @tool
    async def sleepy() -> str:
        """Sleeps."""
        await anyio.sleep(10)
        return "late"

    with pytest.raises(RunTimeoutError) as info:
        await Lang.scripted([calls(("sleepy", {})), "x"]).ask(
            "go", functions=[sleepy], timeout=0.05
        )
    assert info.value.result.iterations == 1
    assert info.value.result.function_calls[0].name == "sleepy"


async def test_cancelling_the_run_stops_the_tools() -> None:
    started = anyio.Event()
    cancelled: list[bool] = []

    @tool
    async def sleepy() -> str:
        """Sleeps."""
        started.set()
        try:
            await anyio.sleep(10)
        except anyio.get_cancelled_exc_class():
            cancelled.append(True)
            raise
        return "late"

    lang = Lang.scripted([calls(("sleepy", {})), "x"])
    async with anyio.create_task_group() as tg:
        tg.start_soon(lambda: lang.ask("go", functions=[sleepy]))
        await started.wait()
        tg.cancel_scope.cancel()
    assert cancelled == [True]


async def test_identical_calls_three_times_in_a_row_are_answered_without_running() -> None:
    ran: list[int] = []

    @tool
    def f(x: int) -> int:
        """F."""
        ran.append(x)
        return x * 10

    script = [calls(("f", {"x": 1})), calls(("f", {"x": 1})), calls(("f", {"x": 1})), "done"]
    result = await Lang.scripted(script).ask("go", functions=[f])
    assert ran == [1, 1]
    last = tool_messages(result)[-1]
    assert last[2] is True
    assert "already called 'f'" in last[1]
    assert "The result was: 10" in last[1]


async def test_a_fourth_identical_call_quotes_the_result_not_the_answer_to_the_third() -> None:
    @tool
    def f(x: int) -> int:
        """F."""
        return x * 10

    script = [*[calls(("f", {"x": 1}))] * 4, "done"]
    result = await Lang.scripted(script).ask("go", functions=[f])
    fourth = tool_messages(result)[-1][1]
    assert fourth.endswith("use the result you have. The result was: 10")
    assert fourth.count("already called") == 1


async def test_manual_mode_returns_calls_unexecuted_and_chat_continues() -> None:
    lang = Lang.scripted([calls(("add", {"a": 2, "b": 2})), "four"])
    result = await lang.ask("go", functions=[add], auto_execute=False)
    assert result.finish_reason == "tool_calls"
    assert result.finished is True
    call = result.function_calls[0]
    assert (call.name, call.arguments, call.result) == ("add", {"a": 2, "b": 2}, None)
    messages = result.messages.add_tool_result(call, 4)
    final = await lang.chat(messages, functions=[add])
    assert final.answer == "four"
    assert [(m.role, m.content) for m in lang.requests[1].messages][-1] == ("tool", "4")


async def test_usage_sums_every_request() -> None:
    lang = Lang.scripted([{"text": "a" * 40, **calls(("add", {"a": 1, "b": 1}))}, "b" * 80])
    result = await lang.ask("go", functions=[add])
    assert [r.output_tokens for r in result.usage.requests] == [10, 20]
    assert result.usage.output_tokens == 30


async def test_on_result_sees_the_growing_result() -> None:
    seen: list[tuple[str, int, str]] = []

    async def on_result(result: LangResult) -> None:
        statuses = ",".join(c.status for c in result.function_calls)
        seen.append((result.answer, len(result.function_calls), statuses))

    script = [calls(("add", {"a": 1, "b": 2})), "The answer is three."]
    result = await Lang.scripted(script).ask("go", functions=[add], on_result=on_result)
    assert ("", 1, "streaming") in seen
    assert ("", 1, "running") in seen
    assert ("", 1, "done") in seen
    assert ("The answ", 1, "done") in seen
    assert seen[-1] == ("The answer is three.", 1, "done")
    assert result.finished is True


async def test_partial_arguments_are_parsed_while_streaming() -> None:
    snapshots: list[dict[str, Any]] = []

    def on_result(result: LangResult) -> None:
        if result.function_calls and result.function_calls[0].status == "streaming":
            snapshots.append(dict(result.function_calls[0].arguments))

    long_text = "x" * 30
    script = [calls(("echo", {"text": long_text})), "ok"]

    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    await Lang.scripted(script).ask("go", functions=[echo], on_result=on_result)
    assert {"text": "xxx"} in snapshots or any(
        s.get("text", "").startswith("x") and len(s["text"]) < 30 for s in snapshots
    )


async def test_context_carries_deps_call_and_result() -> None:
    seen: list[tuple[str, str, int]] = []

    @tool
    def whoami(ctx: Context[dict[str, str]], greeting: str) -> str:
        """Who am I."""
        seen.append((ctx.deps["user"], ctx.call.id, len(ctx.result.messages)))
        return f"{greeting}, {ctx.deps['user']}"

    script = [calls(("whoami", {"greeting": "hi"})), "ok"]
    result = await Lang.scripted(script).ask("go", functions=[whoami], deps={"user": "ada"})
    assert seen == [("ada", "c0", 2)]
    assert tool_messages(result) == [("c0", "hi, ada", False)]
    assert "ctx" not in json.dumps(whoami.parameters)


async def test_forced_function_call_applies_to_the_first_round_only() -> None:
    lang = Lang.scripted([calls(("add", {"a": 1, "b": 1})), "2"])
    await lang.ask("go", functions=[add], function_call="add")
    assert lang.requests[0].options.function_call == "add"
    assert lang.requests[1].options.function_call is None


async def test_system_prompt_leads_the_conversation() -> None:
    lang = Lang.scripted(["hello"])
    result = await lang.ask("hi", system_prompt="Be brief.")
    assert [(m.role, m.content) for m in lang.requests[0].messages] == [
        ("system", "Be brief."),
        ("user", "hi"),
    ]
    assert result.messages[0].role == "system"


async def test_the_script_running_out_is_a_config_error() -> None:
    lang = Lang.scripted(["one"])
    await lang.ask("a")
    with pytest.raises(ConfigError, match="all were used"):
        await lang.ask("b")


async def test_stream_false_gives_the_same_result() -> None:
    script = [calls(("add", {"a": 1, "b": 2})), "three"]
    result = await Lang.scripted(script).ask("go", functions=[add], stream=False)
    assert result.answer == "three"
    assert result.function_calls[0].result == 3


async def test_tool_errors_raise_propagates_invalid_arguments() -> None:
    from aiwrapper import ToolArgumentsError

    lang = Lang.scripted([calls(("add", {"a": "x", "b": 1})), "x"])
    with pytest.raises(ToolArgumentsError, match="/a"):
        await lang.ask("go", functions=[add], tool_errors="raise")


async def test_tool_errors_raise_propagates_a_tool_timeout() -> None:
    @tool(timeout=0.01)
    async def sleepy() -> str:
        """Sleeps."""
        await anyio.sleep(10)
        return "late"

    lang = Lang.scripted([calls(("sleepy", {})), "x"])
    with pytest.raises(TimeoutError, match=r"timed out after 0\.01 s"):
        await lang.ask("go", functions=[sleepy], tool_errors="raise")


async def test_a_handler_sees_coerced_arguments_of_dict_definitions() -> None:
    definition = {
        "name": "repeat",
        "description": "Repeat.",
        "parameters": {"times": {"type": "integer", "required": True}},
    }
    seen: list[Any] = []
    lang = Lang.scripted([calls(("repeat", {"times": "3"})), "ok"])
    await lang.ask(
        "go", functions=[definition], function_handler=lambda c: seen.append(c.arguments)
    )
    assert seen == [{"times": 3}]


async def test_chat_with_unanswered_calls_is_a_config_error_before_any_request() -> None:
    lang = Lang.scripted([calls(("add", {"a": 2, "b": 2})), "four"])
    result = await lang.ask("go", functions=[add], auto_execute=False)
    with pytest.raises(ConfigError, match=r"\['c0'\] that have no result"):
        await lang.chat(result.messages.add_user("well?"), functions=[add])
    assert len(lang.requests) == 1


async def test_arguments_cut_off_at_the_token_limit_are_explained_to_the_model() -> None:
    from aiwrapper._conversation._events import (
        FinishEvent,
        TextDelta,
        ToolCallDelta,
        ToolCallEnd,
        ToolCallStart,
    )

    turns = [
        [
            ToolCallStart(0, "c0", "add"),
            ToolCallDelta(0, '{"a": 1, "b'),
            ToolCallEnd(0),
            FinishEvent("length"),
        ],
        [TextDelta("ok"), FinishEvent("stop")],
    ]

    class CutOff:
        name, model = "cutoff", "m"

        async def send(self, request: Any, sink: Any) -> None:
            await sink(turns.pop(0))

        async def aclose(self) -> None:
            pass

    result = await Lang(CutOff()).ask("go", functions=[add])
    content = tool_messages(result)[0][1]
    assert content.startswith("Invalid arguments for 'add': /: arguments are not valid JSON")
    assert content.endswith(
        'send a JSON object. You sent: {"a": 1, "b. Your output reached the token limit while'
        " writing this call, so its arguments were cut off; make the call again with shorter"
        " arguments."
    )


async def test_a_paused_turn_is_resent_as_is_until_the_model_finishes() -> None:
    from aiwrapper._conversation._events import FinishEvent, TextDelta

    turns = [
        [TextDelta("Searching"), FinishEvent("pause")],
        [TextDelta("Found it."), FinishEvent("stop")],
    ]
    seen: list[list[str]] = []

    class Pausing:
        name, model = "pausing", "m"

        async def send(self, request: Any, sink: Any) -> None:
            seen.append([m.role for m in request.messages])
            await sink(turns.pop(0))

        async def aclose(self) -> None:
            pass

    result = await Lang(Pausing()).ask("go")
    assert result.answer == "Found it."
    assert result.iterations == 2
    assert seen == [["user"], ["user", "assistant"]]


# --- callbacks, ids, choices and limits (review hardening) --------------------------------


async def test_on_result_gets_the_same_object_after_every_change_in_order() -> None:
    events: list[tuple[str, str, str]] = []
    objects: set[int] = set()

    async def on_result(result: LangResult) -> None:  # async callbacks are awaited
        objects.add(id(result))
        calls_ = ",".join(f"{c.status}:{c.arguments}" for c in result.function_calls)
        events.append((result.thinking, result.answer, calls_))

    script = [
        {"thinking": "hmm", **calls(("add", {"a": 1, "b": 2}))},
        {"text": "three"},
    ]
    result = await Lang.scripted(script).ask("go", functions=[add], on_result=on_result)
    assert objects == {id(result)}
    assert events == [
        ("hmm", "", ""),  # thinking delta
        ("hmm", "", "streaming:{}"),  # call start
        ("hmm", "", "streaming:{'a': 1}"),  # fragment '{"a": 1,'
        ("hmm", "", "streaming:{'a': 1, 'b': 2}"),  # fragment ' "b": 2}'
        ("hmm", "", "pending:{'a': 1, 'b': 2}"),  # call end
        ("hmm", "", "running:{'a': 1, 'b': 2}"),  # call start running
        ("hmm", "", "done:{'a': 1, 'b': 2}"),  # call result
        ("hmm", "", "done:{'a': 1, 'b': 2}"),  # results appended to messages
        ("", "three", "done:{'a': 1, 'b': 2}"),  # text delta of the next turn
        ("", "three", "done:{'a': 1, 'b': 2}"),  # finished
    ]
    assert result.finished is True


@pytest.mark.parametrize("when", ["streaming", "running", "done"])
@pytest.mark.parametrize("parallel", [True, False])
async def test_an_exception_in_on_result_propagates_unwrapped(when: str, parallel: bool) -> None:
    ran: list[int] = []

    @tool
    def f(n: int) -> int:
        """F."""
        ran.append(n)
        return n

    def on_result(result: LangResult) -> None:
        if any(c.status == when for c in result.function_calls):
            raise RuntimeError(f"callback failed at {when}")

    lang = Lang.scripted([calls(("f", {"n": 1}), ("f", {"n": 2})), "never"])
    with pytest.raises(RuntimeError, match=f"callback failed at {when}"):
        await lang.ask("go", functions=[f], on_result=on_result, parallel=parallel)
    assert len(lang.requests) == 1  # never sent back to the model as a tool error


async def test_an_exception_in_approve_propagates_and_the_call_does_not_run() -> None:
    ran: list[int] = []

    @tool
    def f(n: int) -> int:
        """F."""
        ran.append(n)
        return n

    def approve(call: FunctionCall) -> bool:
        raise LookupError("policy service down")

    lang = Lang.scripted([calls(("f", {"n": 1})), "never"])
    with pytest.raises(LookupError, match="policy service down"):
        await lang.ask("go", functions=[f], approve=approve)
    assert ran == []


async def test_duplicated_call_ids_from_a_server_are_each_answered_once() -> None:
    turn = {
        "function_calls": [
            {"name": "add", "arguments": {"a": 1, "b": 1}, "id": "dup"},
            {"name": "add", "arguments": {"a": 2, "b": 2}, "id": "dup"},
        ]
    }
    lang = Lang.scripted([turn, "ok"])
    result = await lang.ask("go", functions=[add])
    first, second = result.function_calls
    assert first.id == "dup"
    assert second.id != "dup"
    assert tool_messages(result) == [("dup", "2", False), (second.id, "4", False)]
    sent = lang.requests[1].messages
    assert [c.id for c in sent[1].tool_calls] == [m.tool_call_id for m in sent[2:]]


async def test_a_call_with_an_empty_name_gets_an_error_result() -> None:
    turn = {"function_calls": [{"name": "", "arguments": {}, "id": "c0"}]}
    result = await Lang.scripted([turn, "ok"]).ask("go", functions=[add])
    assert tool_messages(result) == [("c0", "Unknown function ''. Valid functions: add.", True)]
    assert (result.function_calls[0].status, result.answer) == ("error", "ok")


async def test_unknown_function_with_no_functions_at_all() -> None:
    result = await Lang.scripted([calls(("ghost", {})), "ok"]).ask("go")
    assert tool_messages(result) == [
        ("c0", "Unknown function 'ghost'. Valid functions: (none).", True)
    ]


@pytest.mark.parametrize(
    ("choice", "functions", "message"),
    [
        ("sub", [add], r"function_call names 'sub', which is not one of the functions \['add'\]"),
        ({"name": "sub"}, [add], "names 'sub'"),
        ("required", [], r"function_call='required' needs functions=\[...\]"),
        ("add", [], "needs functions"),
    ],
)
async def test_a_forced_function_call_must_name_a_given_function(
    choice: Any, functions: list[Any], message: str
) -> None:
    lang = Lang.scripted(["x"])
    with pytest.raises(ConfigError, match=message):
        await lang.ask("go", functions=functions, function_call=choice)
    assert lang.requests == []


async def test_function_call_none_and_auto_need_no_functions() -> None:
    lang = Lang.scripted(["a", "b"])
    assert (await lang.ask("go", function_call="none")).answer == "a"
    assert (await lang.ask("go", function_call="auto")).answer == "b"


async def test_tool_timeout_bounds_a_sync_function_handler() -> None:
    import threading

    release = threading.Event()
    definition = {"name": "slow", "description": "Slow.", "parameters": {}}

    def handler(call: FunctionCall) -> str:
        release.wait(10)
        return "late"

    with anyio.fail_after(5):
        result = await Lang.scripted([calls(("slow", {})), "ok"]).ask(
            "go", functions=[definition], function_handler=handler, tool_timeout=0.05
        )
    release.set()
    assert tool_messages(result) == [("c0", "'slow' timed out after 0.05 s.", True)]
    assert result.function_calls[0].status == "error"


async def test_tool_errors_raise_in_parallel_raises_the_first_failure_unwrapped() -> None:
    @tool
    async def bad(n: int) -> int:
        """Fails."""
        await anyio.sleep(0 if n == 1 else 10)  # the second fails only if never cancelled
        raise ValueError(f"bad {n}")

    lang = Lang.scripted([calls(("bad", {"n": 1}), ("bad", {"n": 3})), "x"])
    with pytest.raises(ValueError, match="bad 1"):
        await lang.ask("go", functions=[bad], tool_errors="raise")


async def test_every_failure_is_recorded_on_its_call() -> None:
    @tool
    def boom() -> str:
        """Fails."""
        raise ValueError("no")

    @tool(requires_approval=True)
    def guarded() -> str:
        """Guarded."""
        return "x"

    # Only the sleeper has a short timeout: a worker thread may take longer than that to start
    # ``boom`` on a busy machine.
    @tool(timeout=0.02)
    async def sleepy() -> str:
        """Sleeps."""
        await anyio.sleep(10)
        return "late"

    turn = {
        "function_calls": [
            {"name": "boom", "arguments": {}, "id": "c0"},
            {"name": "nope", "arguments": {}, "id": "c1"},
            {"name": "add", "arguments": '{"a": 1', "id": "c2"},
            {"name": "add", "arguments": {"a": "x", "b": 1}, "id": "c3"},
            {"name": "guarded", "arguments": {}, "id": "c4"},
            {"name": "sleepy", "arguments": {}, "id": "c5"},
        ]
    }
    result = await Lang.scripted([turn, "ok"]).ask(
        "go",
        functions=[boom, add, guarded, sleepy],
        approve=lambda call: "not today",
        tool_timeout=30,
    )
    statuses = [(c.id, c.status) for c in result.function_calls]
    assert statuses == [
        ("c0", "error"),
        ("c1", "error"),
        ("c2", "error"),
        ("c3", "error"),
        ("c4", "denied"),
        ("c5", "error"),
    ]
    assert [m.tool_call_id for m in result.messages if m.role == "tool"] == [
        "c0", "c1", "c2", "c3", "c4", "c5"
    ]  # fmt: skip
    errors = {c.id: c.error for c in result.function_calls}
    assert errors["c0"] == "ValueError: no"
    assert errors["c4"] == "Call to 'guarded' was not run: not today."
    assert errors["c5"] == "'sleepy' timed out after 0.02 s."
    assert all(m.is_error for m in result.messages if m.role == "tool")


async def test_run_timeout_while_streaming_keeps_the_partial_answer() -> None:
    async def on_result(result: LangResult) -> None:
        await anyio.sleep(0.02)

    lang = Lang.scripted(["abcdefgh" * 20])
    with pytest.raises(RunTimeoutError, match=r"did not finish within 0\.05 s") as info:
        await lang.ask("go", timeout=0.05, on_result=on_result)
    partial = info.value.result
    assert partial.answer
    assert "abcdefgh".startswith(partial.answer[:8])
    assert (partial.finished, partial.iterations) == (False, 0)


async def test_max_iterations_result_holds_every_answered_call() -> None:
    script = [calls(("add", {"a": i, "b": 0})) for i in range(3)]
    with pytest.raises(MaxIterationsError, match=r"after 1 model requests \(max_iterations=1\)"):
        await Lang.scripted(script).ask("go", functions=[add], max_iterations=1)
    lang = Lang.scripted(script)
    with pytest.raises(MaxIterationsError) as info:
        await lang.ask("go", functions=[add], max_iterations=3)
    partial = info.value.result
    assert (partial.finished, partial.iterations, len(lang.requests)) == (False, 3, 3)
    assert [m.tool_call_id for m in partial.messages if m.role == "tool"] == ["c0"] * 3
    assert len(partial.usage.requests) == 3


async def test_usage_totals_sum_every_field_over_the_run() -> None:
    from aiwrapper._conversation._events import (
        FinishEvent,
        TextDelta,
        ToolCallEnd,
        ToolCallStart,
        UsageEvent,
    )

    turns = [
        [
            ToolCallStart(0, "c0", "add"),
            ToolCallEnd(0, {"a": 1, "b": 1}),
            UsageEvent(10, 2, cached_input_tokens=4, cache_write_tokens=3, reasoning_tokens=1),
        ],
        [TextDelta("ok"), UsageEvent(20, 5, reasoning_tokens=2), FinishEvent("stop")],
    ]

    class Counting:
        name, model = "counting", "m"

        async def send(self, request: Any, sink: Any) -> None:
            await sink(turns.pop(0))

        async def aclose(self) -> None:
            pass

    usage = (await Lang(Counting()).ask("go", functions=[add])).usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (30, 7, 37)
    assert (usage.cached_input_tokens, usage.cache_write_tokens, usage.reasoning_tokens) == (
        4,
        3,
        3,
    )
    assert [r.total_tokens for r in usage.requests] == [12, 25]


async def test_a_sync_tool_that_overruns_its_timeout_is_abandoned() -> None:
    import threading

    release = threading.Event()

    @tool
    def slow() -> str:
        """Blocks until released."""
        release.wait(5)
        return "late"

    try:
        result = await Lang.scripted([calls(("slow", {})), "ok"]).ask(
            "go", functions=[slow], tool_timeout=0.05
        )
    finally:
        release.set()
    assert tool_messages(result) == [("c0", "'slow' timed out after 0.05 s.", True)]
    assert result.function_calls[0].status == "error"
