"""DurableLang in one process: runs as DBOS workflows, steps in order, replays, errors, checks.

The process's DBOS instance is configured once for this module, on a SQLite file in a temporary
directory, as an application configuring DBOS itself would; the durable models use it. A replay
is made in process by forking a finished run from one of its steps (DBOS's ``fork_workflow``):
the steps before it give back their checkpoints, the others run again, as after a crash.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import anyio.to_thread
import pytest

from aiwrapper import ConfigError, Image, Lang, LangMessages, RateLimitError, tool
from aiwrapper.durable import DurableLang

from .models import TwoTools, new_id, steps_of

dbos = pytest.importorskip("dbos", reason="durable runs need the extra aiwrapper[dbos]")
DBOS = dbos.DBOS
# A 1x1 PNG, as an image a prompt carries.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63f8cfc0f01f0005000201b1a1e8a90000000049454e44ae426082"
)


pytestmark = [pytest.mark.anyio, pytest.mark.usefixtures("dbos_app")]


async def test_a_durable_run_answers_and_checkpoints_each_request_and_call_as_a_step() -> None:
    model = TwoTools()
    run_id = new_id()
    result = await model.durable.ask("Run both.", workflow_id=run_id)
    assert result.answer == "both ran"
    assert result.output == "both ran"
    assert result.iterations == 3
    assert [(c.name, c.status, c.result) for c in result.function_calls] == [
        ("first", "done", "first ran with 1"),
        ("second", "done", "second ran with 2"),
    ]
    assert len(result.usage.requests) == 3
    assert [m.role for m in result.messages] == [
        "user", "assistant", "tool", "assistant", "tool", "assistant",
    ]  # fmt: skip
    assert model.ran == ["first", "second"]
    steps = await anyio.to_thread.run_sync(steps_of, run_id)
    assert steps == [
        (1, "aiwrapper.request"),
        (2, "aiwrapper.tool:first"),
        (3, "aiwrapper.request"),
        (4, "aiwrapper.tool:second"),
        (5, "aiwrapper.request"),
    ]
    assert model.kinds().count("TurnStarted") == 3
    assert model.kinds()[-1] == "RunFinished"


async def test_asking_again_with_a_runs_id_waits_for_it_and_never_runs_it_again() -> None:
    model = TwoTools()
    run_id = new_id()
    first = await model.durable.ask("Run both.", workflow_id=run_id)
    again = await model.durable.ask("Run both.", workflow_id=run_id)
    assert again.answer == first.answer == "both ran"
    assert [c.id for c in again.function_calls] == [c.id for c in first.function_calls]
    assert model.ran == ["first", "second"]
    assert len(model.lang.requests) == 3


def test_a_replay_sends_no_finished_request_runs_no_finished_tool_and_reports_live_steps_only() -> (
    None
):
    model = TwoTools()
    run_id = new_id()
    model.durable.ask_sync("Run both.", workflow_id=run_id)
    model.events.clear()
    # From step 4 on (the second tool), as if the worker had died while it ran.
    replay = DBOS.fork_workflow(run_id, 4).get_result()
    assert replay["answer"] == "both ran"
    assert model.ran == ["first", "second", "second"]
    assert len(model.lang.requests) == 4  # the third request only
    assert model.kinds() == [
        "CallFinished", "TurnStarted", "TextDelta", "TurnFinished", "RunFinished",
    ]  # fmt: skip
    assert model.events[0].call.name == "second"
    assert model.events[1].iteration == 3
    assert len(replay["usage"]) == 3  # the replayed requests' usage counts too


async def test_the_calls_of_a_turn_are_numbered_in_call_order_whatever_order_they_finish_in() -> (
    None
):
    finished: list[str] = []
    slow_may_end = threading.Event()

    @tool
    def slow() -> str:
        """Finish last."""
        slow_may_end.wait(10)
        finished.append("slow")
        return "slow"

    @tool
    def fast() -> str:
        """Finish first."""
        finished.append("fast")
        slow_may_end.set()
        return "fast"

    calls = [{"name": "slow", "arguments": {}}, {"name": "fast", "arguments": {}}]
    lang = Lang.scripted([{"function_calls": calls}, "done"])
    durable = DurableLang(lang, f"order-{uuid.uuid4().hex[:8]}", functions=[slow, fast])
    run_id = new_id()
    result = await durable.ask("Both at once.", workflow_id=run_id)
    assert finished == ["fast", "slow"]
    assert [c.name for c in result.function_calls] == ["slow", "fast"]
    steps = await anyio.to_thread.run_sync(steps_of, run_id)
    assert steps[1:3] == [(2, "aiwrapper.tool:slow"), (3, "aiwrapper.tool:fast")]


async def test_a_failed_run_raises_the_same_error_with_its_partial_result_each_time() -> None:
    def turn(messages: LangMessages, options: Any) -> Any:
        if any(m.role == "tool" for m in messages):
            raise RateLimitError("slow down", provider="scripted", status_code=429, retry_after=2)
        return {"function_calls": [{"name": "first", "arguments": {"n": 1}}]}

    model = TwoTools()
    model.lang = Lang.scripted(turn)
    durable = DurableLang(
        model.lang, f"failing-{uuid.uuid4().hex[:8]}", functions=[model.tool("first")]
    )
    run_id = new_id()
    for _ in range(2):
        with pytest.raises(RateLimitError) as caught:
            await durable.ask("Fail.", workflow_id=run_id)
        error = caught.value
        assert (error.status_code, error.retry_after, error.provider) == (429, 2, "scripted")
        assert str(error) == "scripted 429: slow down"
        assert error.result.iterations == 1
        assert [c.status for c in error.result.function_calls] == ["done"]
    assert model.ran == ["first"]
    assert len(model.lang.requests) == 2


@dataclass
class Weather:
    city: str
    celsius: int


def test_the_blocking_twins_run_durably_and_a_typed_answer_is_read_back_as_its_type() -> None:
    lang = Lang.scripted(['{"city": "Oslo", "celsius": 4}', '{"city": "Rome", "celsius": 20}'])
    durable = DurableLang(lang, f"typed-{uuid.uuid4().hex[:8]}", options={"output_type": Weather})
    result = durable.ask_sync("Weather in Oslo?")
    assert result.output == Weather("Oslo", 4)
    more = durable.chat_sync(result.messages.with_user("And Rome?"))
    assert more.output == Weather("Rome", 20)
    assert [m.role for m in more.messages] == ["user", "assistant", "user", "assistant"]


def deep(depth: int) -> list[Any]:
    nested: list[Any] = []
    for _ in range(depth):
        nested = [nested]
    return nested


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda d: d.ask("hi", temperature=object()), "JSON data"),
        (lambda d: d.ask("hi", temperature=float("nan")), "JSON data"),
        (lambda d: d.ask("hi", extra_body={"deep": deep(100_000)}), "JSON data"),
        (lambda d: d.ask("hi", on_event=print), "'on_event' is code"),
        (lambda d: d.ask("hi", functions=[]), "'functions' is code"),
        (lambda d: d.ask(7), "prompt is a string or a list"),
        (lambda d: d.ask(["hi", 7]), "prompt"),
        (lambda d: d.ask("hi", workflow_id=""), "workflow_id must be"),
        (lambda d: d.ask("hi", workflow_id=7), "workflow_id must be"),
        (lambda d: d.chat("hi"), "chat takes a conversation"),
        (lambda d: d.chat([{"role": "tool", "content": "x", "tool_call_id": "c"}]), "answers no"),
    ],
)
async def test_what_a_durable_run_cannot_store_or_would_refuse_is_refused_before_it_starts(
    call: Any, message: str
) -> None:
    durable = TwoTools().durable
    with pytest.raises(ConfigError, match=message):
        await call(durable)


async def test_an_unknown_option_is_refused_as_lang_refuses_it() -> None:
    with pytest.raises(TypeError, match="temperature"):
        await TwoTools().durable.ask("hi", temprature=0.5)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"lang": object()}, "needs a Lang"),
        ({"name": "two words"}, "durable name is"),
        ({"name": "x" * 101}, "durable name is"),
        ({"database_url": "mysql://db/runs"}, "sqlite:/// or postgresql://"),
        ({"database_url": 5}, "sqlite:/// or postgresql://"),
        ({"concurrency": 2}, "give queue= too"),
        ({"queue": "q", "concurrency": 0}, "positive int"),
        ({"queue": "no spaces"}, "durable queue is"),
    ],
)
def test_a_durable_lang_checks_its_arguments(arguments: dict[str, Any], message: str) -> None:
    given = {"lang": Lang.offline(), "name": "checked", **arguments}
    with pytest.raises(ConfigError, match=message):
        DurableLang(**given)


async def test_a_second_database_beside_the_configured_one_is_a_config_error(
    tmp_path: Path,
) -> None:
    durable = DurableLang(
        Lang.offline(), "elsewhere", database_url=f"sqlite:///{tmp_path / 'other.sqlite'}"
    )
    with pytest.raises(ConfigError, match="one database per process"):
        await durable.ask("hi")


def test_without_dbos_a_durable_lang_is_a_config_error_naming_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "dbos", None)  # as if not installed
    with pytest.raises(ConfigError, match=r"pip install 'aiwrapper\[dbos\]'"):
        DurableLang(Lang.offline(), "absent")


def test_importing_aiwrapper_and_its_durable_package_imports_no_dbos() -> None:
    code = "import sys, aiwrapper, aiwrapper.durable; print('dbos' in sys.modules)"
    root = Path(__file__).parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=True
    )
    assert done.stdout.strip() == "False"


async def test_a_run_replayed_whole_gives_back_its_result_and_does_nothing_again() -> None:
    model = TwoTools()
    run_id = new_id()
    first = await model.durable.ask("Run both.", workflow_id=run_id)
    fork = partial(DBOS.fork_workflow, run_id, 6)  # every step replayed
    replay = await anyio.to_thread.run_sync(lambda: fork().get_result())
    assert replay["answer"] == first.answer
    assert model.ran == ["first", "second"]
    assert len(model.lang.requests) == 3


def test_a_database_dbos_cannot_reach_is_a_config_error_and_a_later_run_may_try_again() -> None:
    code = (
        "from aiwrapper import ConfigError, Lang\n"
        "from aiwrapper.durable import DurableLang\n"
        "url = 'postgresql://nobody@127.0.0.1:1/runs'  # a port nothing listens on\n"
        "durable = DurableLang(Lang.offline(), 'nowhere', database_url=url)\n"
        "for _ in range(2):\n"
        "    try:\n"
        "        durable.ask_sync('hi')\n"
        "    except ConfigError as exc:\n"
        "        print(str(exc).splitlines()[0])\n"
    )
    root = Path(__file__).parents[2]
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=60,
        check=True,
    )  # fmt: skip
    assert (
        done.stdout.splitlines()
        == [
            "DBOS could not start for durable runs: (psycopg.OperationalError) connection failed: "
            'connection to server at "127.0.0.1", port 1 failed: Connection refused'
        ]
        * 2
    )


async def test_a_prompt_with_an_image_is_stored_whole_and_reaches_the_model() -> None:
    model = TwoTools()
    picture = Image.from_bytes(PNG)
    result = await model.durable.ask(["What is this?", picture], workflow_id=new_id())
    assert result.answer == "both ran"
    assert result.prompt == "What is this?"
    sent = model.lang.requests[0].messages[0]
    assert [type(p).__name__ for p in sent.parts] == ["TextPart", "MediaPart"]
    assert sent.parts[1].media.data == PNG  # type: ignore[union-attr]
    kept = result.messages[0].parts[1]
    assert kept.media.data == PNG  # type: ignore[union-attr]
