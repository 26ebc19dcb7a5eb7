"""The Lang facade: option merging, factories and keys, the sync facade, messages."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import closing

import anyio
import pytest

from aiwrapper import ConfigError, Lang, LangMessages, LangOptions, tool

CALL_WAIT = {"function_calls": [{"name": "wait_forever", "arguments": {}}]}


class Waiter:
    """A tool that waits until cancelled; ``started`` and ``cancelled`` say how far it got."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()

        @tool
        async def wait_forever() -> str:
            """Waits."""
            self.started.set()
            try:
                await anyio.sleep(20)
            except anyio.get_cancelled_exc_class():
                self.cancelled.set()
                raise
            return "never"

        self.tool = wait_forever


@pytest.fixture
def ctrl_c() -> Iterator[Callable[[threading.Event], None]]:
    """Press Ctrl-C (SIGINT to this process) once an event is set.

    A process started in the background can inherit SIGINT as ignored, and Python then keeps
    it ignored; Python's own handler is installed for the test so the signal is seen either
    way, and the previous disposition restored after.
    """
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    pressers: list[threading.Thread] = []

    def press_when(started: threading.Event) -> None:
        def press() -> None:
            if started.wait(10):
                os.kill(os.getpid(), signal.SIGINT)

        pressers.append(threading.Thread(target=press))
        pressers[-1].start()

    yield press_when
    for presser in pressers:
        presser.join()
    signal.signal(signal.SIGINT, previous)


@tool
def double(n: int) -> int:
    """Double a number."""
    return n * 2


def script() -> list[object]:
    return [{"function_calls": [{"name": "double", "arguments": {"n": 4}, "id": "c0"}]}, "8"]


def test_ask_sync_in_a_plain_script() -> None:
    result = Lang.scripted(script()).ask_sync("double 4", functions=[double])
    assert result.answer == "8"
    assert str(result) == "8"
    assert result.function_calls[0].result == 8


def test_ask_sync_inside_a_running_event_loop() -> None:
    lang = Lang.scripted(script())

    async def inside_a_notebook_cell() -> str:
        return lang.ask_sync("double 4", functions=[double]).answer

    assert asyncio.run(inside_a_notebook_cell()) == "8"


def test_ask_sync_reuses_one_background_loop() -> None:
    lang = Lang.scripted(["a", "b"])
    lang.ask_sync("1")
    first = lang._sync._loop
    lang.ask_sync("2")
    assert lang._sync._loop is first
    lang.close()
    assert lang._sync.started is False


def test_chat_sync_continues_a_conversation() -> None:
    lang = Lang.scripted(["first", "second"])
    result = lang.ask_sync("one")
    more = lang.chat_sync(result.messages.add_user("two"))
    assert more.answer == "second"
    assert [m.content for m in lang.requests[1].messages] == ["one", "first", "two"]
    assert more.prompt == "two"


@pytest.mark.anyio
async def test_options_merge_lang_defaults_then_call_options_then_overrides() -> None:
    lang = Lang.scripted(["x"], options=LangOptions(temperature=0.1, max_tokens=5, top_p=0.5))
    await lang.ask("hi", {"max_tokens": 50, "top_p": None}, temperature=0.9)
    options = lang.requests[0].options
    assert (options.temperature, options.max_tokens, options.top_p) == (0.9, 50, 0.5)
    assert (options.parallel, options.max_iterations, options.stream) == (True, 10, True)


@pytest.mark.anyio
async def test_an_unknown_option_suggests_the_closest_name() -> None:
    with pytest.raises(TypeError, match="did you mean 'temperature'"):
        await Lang.scripted(["x"]).ask("hi", temprature=0.5)
    with pytest.raises(TypeError, match="did you mean 'functions'"):
        await Lang.scripted(["x"]).ask("hi", {"function": []})


@pytest.mark.anyio
async def test_chat_accepts_openai_shaped_dicts() -> None:
    lang = Lang.scripted(["ok"])
    await lang.chat(
        [
            {"role": "system", "content": "Be kind."},
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "x1",
                        "type": "function",
                        "function": {"name": "double", "arguments": '{"n": 2}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "x1", "content": "4"},
        ]
    )
    sent = lang.requests[0].messages
    assert [m.role for m in sent] == ["system", "user", "assistant", "tool"]
    assert sent[2].tool_calls[0].arguments == {"n": 2}
    assert sent[3].tool_call_id == "x1"


def test_lang_messages_round_trip_to_openai_dicts() -> None:
    messages = LangMessages([{"role": "user", "content": "hi"}]).add_assistant("hello")
    assert messages.to_dicts() == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]


@pytest.mark.parametrize(
    ("factory", "variable"),
    [
        (lambda: Lang.openai(), "OPENAI_API_KEY"),
        (lambda: Lang.anthropic(), "ANTHROPIC_API_KEY"),
        (lambda: Lang.gemini(), "GEMINI_API_KEY"),
        (lambda: Lang.openai_compatible(preset="groq", model="m"), "GROQ_API_KEY"),
    ],
)
def test_a_missing_key_is_a_config_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, factory: object, variable: str
) -> None:
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "GROQ_API_KEY",
    ):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ConfigError, match=variable):
        factory()  # type: ignore[operator]


def test_from_env_without_keys_is_the_offline_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "GEMINI_API_KEY",
        "GOOGLE_API_KEY",
        "AIWRAPPER_PROVIDER",
    ):
        monkeypatch.delenv(name, raising=False)
    assert Lang.from_env().provider == "offline"


def test_from_env_picks_the_provider_whose_key_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AIWRAPPER_PROVIDER"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("AIWRAPPER_MODEL", "claude-test")
    lang = Lang.from_env()
    assert (lang.provider, lang.model.model) == ("anthropic", "claude-test")


@pytest.mark.anyio
async def test_offline_model_calls_every_tool_once_then_answers() -> None:
    @tool
    def greet(name: str) -> str:
        """Greet someone."""
        return f"hello {name}"

    result = await Lang.offline().ask("hi", functions=[double, greet])
    assert [c.name for c in result.function_calls] == ["double", "greet"]
    assert all(c.status == "done" for c in result.function_calls)
    assert "- double: " in result.answer
    assert "- greet: hello" in result.answer
    assert result.iterations == 2


@pytest.mark.anyio
async def test_offline_model_without_tools_echoes() -> None:
    result = await Lang.offline().ask("ping")
    assert result.answer == "(offline model, no API key set) You said: ping"


def test_ctrl_c_in_ask_sync_cancels_the_running_tool(
    ctrl_c: Callable[[threading.Event], None],
) -> None:
    waiter = Waiter()
    started, cancelled, wait_forever = waiter.started, waiter.cancelled, waiter.tool

    ctrl_c(started)
    lang = Lang.scripted([CALL_WAIT, "x"])
    with pytest.raises(KeyboardInterrupt):
        lang.ask_sync("go", functions=[wait_forever])
    assert cancelled.wait(5)
    lang.close()


def test_ctrl_c_while_reading_stream_sync_cancels_the_running_tool(
    ctrl_c: Callable[[threading.Event], None],
) -> None:
    waiter = Waiter()
    started, cancelled, wait_forever = waiter.started, waiter.cancelled, waiter.tool

    ctrl_c(started)
    lang = Lang.scripted([CALL_WAIT, "x"])
    # closing(): the signal may land in this loop's body rather than inside the iterator, and
    # then only closing the iterator (not garbage collection, whenever it comes) ends the run.
    with (
        pytest.raises(KeyboardInterrupt),
        closing(lang.stream_sync("go", functions=[wait_forever])) as events,
    ):
        for _ in events:
            pass
    assert cancelled.wait(5)
    lang.close()


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_ctrl_c_handled_by_another_thread_still_cancels_ask_sync(
    ctrl_c: Callable[[threading.Event], None],
) -> None:
    # The OS may hand SIGINT to any thread that does not block it; blocking it here makes it
    # land elsewhere every time, and the waiting caller must still see it and cancel.
    waiter = Waiter()
    started, cancelled, wait_forever = waiter.started, waiter.cancelled, waiter.tool

    lang = Lang.scripted(["warm", CALL_WAIT, "x"])
    lang.ask_sync("warm up")  # the loop's thread is started before SIGINT is blocked here
    ctrl_c(started)
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        with pytest.raises(KeyboardInterrupt):
            lang.ask_sync("go", functions=[wait_forever])
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
    assert cancelled.wait(5)
    lang.close()


@pytest.mark.parametrize("method", ["ask_sync", "stream_sync"])
def test_ctrl_c_just_after_the_run_is_handed_over_still_cancels_it(
    method: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C landing after the loop took the run but before the caller learnt of its task."""
    waiter = Waiter()
    started, cancelled, wait_forever = waiter.started, waiter.cancelled, waiter.tool

    lang = Lang.scripted([CALL_WAIT, "x"])
    lang._sync.run(anyio.sleep(0))  # the background loop is up
    loop = lang._sync._loop
    assert loop is not None
    hand_over = loop.call_soon_threadsafe

    def interrupted_once_handed_over(callback: Callable[[], None]) -> object:
        monkeypatch.undo()  # only this hand-over is interrupted
        hand_over(callback)
        assert started.wait(5)  # the run is under way on the loop
        raise KeyboardInterrupt

    def run_to_the_end() -> None:
        if method == "ask_sync":
            lang.ask_sync("go", functions=[wait_forever])
        else:
            list(lang.stream_sync("go", functions=[wait_forever]))

    monkeypatch.setattr(loop, "call_soon_threadsafe", interrupted_once_handed_over)
    with pytest.raises(KeyboardInterrupt):
        run_to_the_end()
    assert cancelled.wait(5)
    lang.close()


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        ({"role": "robot", "content": "hi"}, "role"),
        ({"role": "user", "content": 5}, "content"),
        (
            {
                "role": "assistant",
                "tool_calls": [{"id": "x", "function": {"name": "f", "arguments": "{"}}],
            },
            "not JSON",
        ),
    ],
)
def test_malformed_message_dicts_are_config_errors(
    message: dict[str, object], fragment: str
) -> None:
    with pytest.raises(ConfigError, match=fragment):
        LangMessages([message])


def test_openai_factory_keeps_the_openai_profile_for_unknown_hosts() -> None:
    assert Lang.openai(api_key="k", base_url="https://proxy.example/v1").provider == "openai"
    assert Lang.openai(api_key="k", base_url="https://api.deepseek.com").provider == "deepseek"


def test_presets_are_case_insensitive_and_ollama_follows_ollama_host(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OLLAMA_HOST", "gpu-box:9999")
    lang = Lang.openai_compatible(preset="Ollama", model="qwen3")
    assert lang.model.provider.url == "http://gpu-box:9999/v1/chat/completions"  # type: ignore[attr-defined]


def test_ctrl_c_in_ask_sync_returns_only_after_the_run_unwound(
    ctrl_c: Callable[[threading.Event], None],
) -> None:
    started = threading.Event()
    unwound = threading.Event()

    @tool
    async def wait_forever() -> str:
        """Waits."""
        started.set()
        try:
            await anyio.sleep(20)
        finally:
            with anyio.CancelScope(shield=True):
                await anyio.sleep(0.2)  # slow cleanup, e.g. closing a connection
            unwound.set()
        return "never"

    ctrl_c(started)
    lang = Lang.scripted([CALL_WAIT, "x"])
    with pytest.raises(KeyboardInterrupt):
        lang.ask_sync("go", functions=[wait_forever])
    assert unwound.is_set()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    lang.close()


def test_ask_sync_from_many_threads_at_once_shares_one_loop() -> None:
    import threading

    inside = 0
    peak = 0
    loops: set[int] = set()  # the threads the tools ran on

    @tool
    async def hold(n: int) -> int:
        """Hold."""
        nonlocal inside, peak
        loops.add(threading.get_ident())
        inside += 1
        peak = max(peak, inside)
        await anyio.sleep(0.05)
        inside -= 1
        return n

    def script(messages: LangMessages, options: object) -> object:
        if messages[-1].role == "user":
            n = int(messages[-1].content)
            return {"function_calls": [{"name": "hold", "arguments": {"n": n}}]}
        return f"got {messages[-1].content}"

    lang = Lang.scripted(script)
    answers: dict[int, str] = {}

    def worker(n: int) -> None:
        answers[n] = lang.ask_sync(str(n), functions=[hold]).answer

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert answers == {n: f"got {n}" for n in range(8)}
    assert peak > 1  # the runs overlapped on the one background loop
    thread = lang._sync._thread
    assert thread is not None
    assert loops == {thread.ident}  # every run on the one background loop
    lang.close()
    assert not thread.is_alive()


def test_close_cancels_a_run_blocked_in_another_thread() -> None:
    import concurrent.futures
    import threading

    waiter = Waiter()
    started, cancelled, wait_forever = waiter.started, waiter.cancelled, waiter.tool
    outcome: list[BaseException] = []

    lang = Lang.scripted([CALL_WAIT, "x"])

    def worker() -> None:
        try:
            lang.ask_sync("go", functions=[wait_forever])
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=worker)
    thread.start()
    assert started.wait(5)
    lang.close()
    thread.join(5)
    assert cancelled.is_set()
    assert [type(e) for e in outcome] == [concurrent.futures.CancelledError]


def test_close_twice_and_use_after_close() -> None:
    lang = Lang.scripted(["a", "b"])
    assert lang.ask_sync("1").answer == "a"
    lang.close()
    lang.close()
    assert lang.ask_sync("2").answer == "b"  # a fresh background loop
    assert lang._sync.started is True
    lang.close()
    assert lang._sync.started is False


@pytest.mark.anyio
async def test_aclose_twice_async_with_and_use_after_close() -> None:
    lang = Lang.scripted(["a", "b", "c"])
    async with lang as same:
        assert same is lang
        assert (await lang.ask("1")).answer == "a"
    await lang.aclose()
    assert (await lang.ask("2")).answer == "b"
    await lang.aclose()


@pytest.mark.anyio
async def test_aclose_stops_the_sync_facades_loop_too() -> None:
    lang = Lang.scripted(["a"])
    await anyio_to_thread(lambda: lang.ask_sync("1"))
    assert lang._sync.started is True
    await lang.aclose()
    assert lang._sync.started is False


async def anyio_to_thread(function: object) -> object:
    import anyio.to_thread

    return await anyio.to_thread.run_sync(function)  # type: ignore[arg-type]


def test_a_sync_call_inside_a_callback_is_refused() -> None:
    lang = Lang.scripted(["a", "b"])
    errors: list[str] = []

    def on_result(result: object) -> None:
        try:
            lang.ask_sync("nested")
        except RuntimeError as exc:
            errors.append(str(exc))

    lang.ask_sync("1", on_result=on_result)
    assert errors
    assert errors[0] == "a *_sync method was called from inside an aiwrapper callback"
    lang.close()


def test_a_plain_function_is_wrapped_once_per_lang() -> None:
    def triple(n: int) -> int:
        """Triple a number."""
        return n * 3

    turns = [{"function_calls": [{"name": "triple", "arguments": {"n": 2}}]}, "6"] * 2
    lang = Lang.scripted(turns)
    first = lang.ask_sync("a", functions=[triple])
    second = lang.ask_sync("b", functions=[triple])
    assert (first.function_calls[0].result, second.function_calls[0].result) == (6, 6)
    assert list(lang._wrapped.keys()) == [triple]
    assert lang.requests[0].tools == lang.requests[2].tools
    lang.close()
