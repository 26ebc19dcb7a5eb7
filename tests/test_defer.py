"""Approval that waits: ``approve`` answers ``DEFER``, the run stops with ``result.pending``,
and ``Lang.resume`` continues it with a decision for each pending call."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper import (
    DEFER,
    CallFinished,
    ConfigError,
    FunctionCall,
    Lang,
    LangMessages,
    RunEvent,
    RunFinished,
    TurnStarted,
    tool,
)

pytestmark = pytest.mark.anyio
ran: list[str] = []


@tool
def look_up(order: int) -> str:
    """Look up an order.

    Args:
        order: The order number.
    """
    ran.append(f"look_up {order}")
    return f"order {order}: 2 items"


@tool(requires_approval=True)
def refund(order: int, amount: float) -> str:
    """Refund an order.

    Args:
        order: The order number.
        amount: Euros.
    """
    ran.append(f"refund {order} {amount}")
    return f"refunded {amount} on {order}"


@pytest.fixture(autouse=True)
def _forget_runs() -> None:
    ran.clear()


def calls(*specs: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {"function_calls": [{"id": i, "name": n, "arguments": a} for i, n, a in specs]}


TURN = calls(
    ("c1", "look_up", {"order": 7}),
    ("c2", "refund", {"order": 7, "amount": 20}),
    ("c3", "refund", {"order": 8, "amount": 5}),
    ("c4", "refund", {"order": 9, "amount": 1}),
)


def waiting(call: FunctionCall) -> Any:
    return DEFER


async def deferred(lang: Lang, turn: dict[str, Any] = TURN, **options: Any) -> Any:
    options.setdefault("approve", waiting)
    return await lang.ask("Refund order 7", functions=[look_up, refund], **options)


async def test_the_other_calls_run_and_the_run_stops_with_the_deferred_ones_pending() -> None:
    asked: list[str] = []

    def approve(call: FunctionCall) -> Any:
        asked.append(call.id)
        return {"c2": DEFER, "c3": "over the limit", "c4": DEFER}[call.id]

    lang = Lang.scripted([TURN, "never asked"])
    result = await deferred(lang, approve=approve)
    assert (result.finished, result.finish_reason) == (True, "deferred")
    assert [(c.id, c.status) for c in result.pending] == [("c2", "pending"), ("c4", "pending")]
    assert ran == ["look_up 7"]
    assert sorted(asked) == ["c2", "c3", "c4"]  # look_up needs no approval
    assert [(m.role, m.tool_call_id, m.content) for m in result.messages] == [
        ("user", None, "Refund order 7"),
        ("assistant", None, ""),
        ("tool", "c1", "order 7: 2 items"),
        ("tool", "c3", "Call to 'refund' was not run: over the limit."),
    ]
    assert [(c.id, c.status) for c in result.function_calls] == [
        ("c1", "done"),
        ("c2", "pending"),
        ("c3", "denied"),
        ("c4", "pending"),
    ]
    assert len(lang.requests) == 1  # the model was not asked again
    assert result.iterations == 1


async def test_resume_runs_the_approved_denies_the_others_and_goes_on() -> None:
    lang = Lang.scripted([TURN, "Refunded order 7 only."])
    asked: list[str] = []

    def approve(call: FunctionCall) -> Any:
        asked.append(call.id)
        return DEFER

    first = await deferred(lang, approve=approve)
    assert [c.id for c in first.pending] == ["c2", "c3", "c4"]
    asked.clear()
    decisions = {"c2": True, "c3": False, "c4": "the customer withdrew it"}
    result = await lang.resume(
        first.messages, decisions, functions=[look_up, refund], approve=approve
    )
    assert asked == []  # the decisions stand in for approve
    assert result.answer == "Refunded order 7 only."
    assert (result.finish_reason, result.pending, result.iterations) == ("stop", [], 1)
    assert ran == ["look_up 7", "refund 7 20.0"]
    assert [(c.id, c.status, c.error) for c in result.function_calls] == [
        ("c2", "done", None),
        ("c3", "denied", "Call to 'refund' was not run: the user denied it."),
        ("c4", "denied", "Call to 'refund' was not run: the customer withdrew it."),
    ]
    # The model sees every result of the turn, in the order of its calls.
    sent = lang.requests[1].messages
    assert [(m.role, m.tool_call_id, m.content, m.is_error) for m in sent[2:]] == [
        ("tool", "c1", "order 7: 2 items", False),
        ("tool", "c2", "refunded 20.0 on 7", False),
        ("tool", "c3", "Call to 'refund' was not run: the user denied it.", True),
        ("tool", "c4", "Call to 'refund' was not run: the customer withdrew it.", True),
    ]
    assert [m.tool_call_id for m in result.messages[2:6]] == ["c1", "c2", "c3", "c4"]
    assert first.messages[2:] == first.messages[2:4]  # the stopped run's list is left as it was


async def test_resume_reads_the_json_text_and_the_plain_form() -> None:
    lang = Lang.scripted([TURN, "done", "done again"])
    first = await deferred(lang, approve=lambda c: DEFER if c.id == "c2" else True)
    decisions = {"c2": True}
    text = first.messages.to_json()
    again = await lang.resume(text, decisions, functions=[look_up, refund], approve=waiting)
    assert again.answer == "done"
    plain = first.messages.to_jsonable()
    other = await lang.resume(plain, decisions, functions=[look_up, refund], approve=waiting)
    assert other.answer == "done again"
    assert sorted(ran) == [
        "look_up 7",
        "refund 7 20.0",
        "refund 7 20.0",
        "refund 8 5.0",
        "refund 9 1.0",
    ]


async def test_a_run_may_wait_again_after_resume_and_be_resumed_twice() -> None:
    second = calls(("c5", "refund", {"order": 7, "amount": 30}))
    lang = Lang.scripted([TURN, second, "All refunded."])
    options: dict[str, Any] = {"functions": [look_up, refund], "approve": waiting}
    first = await deferred(lang)
    decisions = {c.id: True for c in first.pending}
    middle = await lang.resume(
        LangMessages.from_json(first.messages.to_json()), decisions, **options
    )
    assert middle.finish_reason == "deferred"
    assert [c.id for c in middle.pending] == ["c5"]
    last = await lang.resume(middle.messages.to_json(), {"c5": "too much"}, **options)
    assert last.answer == "All refunded."
    assert [m.tool_call_id for m in last.messages if m.role == "tool"] == [
        "c1", "c2", "c3", "c4", "c5"
    ]  # fmt: skip
    assert last.messages[-2].content == "Call to 'refund' was not run: too much."


async def test_chat_on_a_conversation_with_pending_calls_names_resume() -> None:
    lang = Lang.scripted([TURN, "never"])
    first = await deferred(lang)
    with pytest.raises(ConfigError, match=r"lang\.resume\(messages, decisions="):
        await lang.chat(first.messages, functions=[look_up, refund], approve=waiting)
    with pytest.raises(ConfigError, match=r"lang\.resume"):
        async with lang.stream(first.messages, functions=[look_up, refund], approve=waiting):
            pass
    assert len(lang.requests) == 1


@pytest.mark.parametrize(
    ("decisions", "message"),
    [
        ({"c2": True, "c3": True}, r"no decision for the pending calls \['c4'\]"),
        ({"c2": True, "c3": True, "c4": True, "c9": True}, r"decisions name no pending call: 'c9'"),
        ({"c1": True, "c2": True, "c3": True, "c4": True}, "decisions name no pending call: 'c1'"),
        ({2: True, "c2": True, "c3": True, "c4": True}, "decisions name no pending call: 2"),
        ({"c2": 1, "c3": True, "c4": True}, "the decision for call 'c2' must be True"),
        ({"c2": None, "c3": True, "c4": True}, "must be True .run it., False or a reason"),
        ({"c2": "", "c3": True, "c4": True}, "the decision for call 'c2' must be"),
        ({"c2": "  ", "c3": True, "c4": True}, "the decision for call 'c2' must be"),
        ({"c2": DEFER, "c3": True, "c4": True}, "not aiwrapper.DEFER"),
        ({"c2": [True], "c3": True, "c4": True}, r"not \[True\]"),
        ([("c2", True)], "decisions must be a dict of call id to True, False or a reason, not"),
        ("c2", "decisions must be a dict"),
        (None, "decisions must be a dict"),
    ],
)
async def test_decisions_that_do_not_fit_are_refused_before_anything_runs(
    decisions: Any, message: str
) -> None:
    lang = Lang.scripted([TURN, "never"])
    first = await deferred(lang)
    ran.clear()
    with pytest.raises(ConfigError, match=message):
        await lang.resume(first.messages, decisions, functions=[look_up, refund], approve=waiting)
    assert ran == []
    assert len(lang.requests) == 1


async def test_resume_with_nothing_pending_is_refused() -> None:
    lang = Lang.scripted(["Hello."])
    done = await lang.ask("Hi")
    with pytest.raises(ConfigError, match="nothing to resume: the conversation has no calls"):
        await lang.resume(done.messages, {})
    with pytest.raises(ConfigError, match="nothing to resume"):
        await lang.resume([], {"c1": True})


async def test_resume_after_a_message_added_to_the_stopped_run_is_refused() -> None:
    lang = Lang.scripted([TURN, "never"])
    first = await deferred(lang)
    decisions = {"c2": True, "c3": True, "c4": True}
    with pytest.raises(ConfigError, match="a message other than a tool result follows the turn"):
        await lang.resume(first.messages.with_user("Well?"), decisions, approve=waiting)


async def test_resume_of_something_that_is_no_conversation_is_a_config_error() -> None:
    lang = Lang.scripted(["never"])
    with pytest.raises(ConfigError, match="not a conversation document"):
        await lang.resume('{"messages": []}', {})
    with pytest.raises(ConfigError, match="expected a prompt string or a conversation"):
        await lang.resume(42, {})  # type: ignore[arg-type]


async def test_watchers_see_the_stop_and_the_resumed_run() -> None:
    lang = Lang.scripted([TURN, "Done."])
    events: list[RunEvent] = []
    results: list[str | None] = []
    watch: dict[str, Any] = {
        "on_event": events.append,
        "on_result": lambda r: results.append(r.finish_reason),
    }
    first = await deferred(lang, approve=lambda c: DEFER if c.id == "c2" else True, **watch)
    finished = [e.call.id for e in events if isinstance(e, CallFinished)]
    assert sorted(finished) == ["c1", "c3", "c4"]  # not the call that waits
    assert isinstance(events[-1], RunFinished)
    assert events[-1].result.finish_reason == "deferred"
    assert results[-1] == "deferred"
    events.clear()
    result = await lang.resume(
        first.messages, {"c2": True}, functions=[look_up, refund], approve=waiting, **watch
    )
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "CallFinished"
    assert events[0].call.id == "c2"  # type: ignore[attr-defined]
    assert isinstance(events[1], TurnStarted)
    assert "TextDelta" in kinds
    assert kinds[-1] == "RunFinished"
    assert results[-1] == "stop"
    assert result.answer == "Done."


async def test_manual_mode_and_plain_approval_are_unchanged() -> None:
    lang = Lang.scripted([TURN, "ok"])
    manual = await lang.ask(
        "Refund", functions=[look_up, refund], approve=waiting, auto_execute=False
    )
    assert (manual.finish_reason, manual.pending) == ("tool_calls", [])
    plain = await Lang.scripted([TURN, "ok"]).ask(
        "Refund", functions=[look_up, refund], approve=lambda c: c.id != "c3"
    )
    assert (plain.finish_reason, plain.pending) == ("stop", [])
    assert [c.status for c in plain.function_calls] == ["done", "done", "denied", "done"]


def test_resume_sync_continues_from_json_text() -> None:
    lang = Lang.scripted([TURN, "Done."])
    first = lang.ask_sync("Refund", functions=[look_up, refund], approve=waiting)
    decisions = {c.id: True for c in first.pending}
    result = lang.resume_sync(
        first.messages.to_json(), decisions, functions=[look_up, refund], approve=waiting
    )
    assert result.answer == "Done."
    assert ran[0] == "look_up 7"
    assert sorted(ran[1:]) == ["refund 7 20.0", "refund 8 5.0", "refund 9 1.0"]
    lang.close()


def test_defer_is_one_value_shown_by_its_public_name() -> None:
    assert repr(DEFER) == str(DEFER) == "aiwrapper.DEFER"
    assert DEFER is not True
    assert not isinstance(DEFER, str)
