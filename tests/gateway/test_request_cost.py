"""What serving a small request costs less for, shown to change nothing it does.

The disconnect watcher (a bare task on asyncio, a task group elsewhere) still cancels the
work when the client goes away and ends once the work is over; request headers are looked up
by name once gathered; the options handed to ``Lang`` are the same, their headers one shared
mapping per set, so a ``Lang`` reuses its merged options across requests.
"""

from __future__ import annotations

import json
from types import MappingProxyType
from typing import Any

import anyio
import httpx
import pytest

from aiwrapper import Lang, LangOptions
from aiwrapper._errors import ConfigError
from aiwrapper.gateway import Gateway
from aiwrapper.gateway._asgi import Exchange, unless_disconnected
from aiwrapper.gateway._calloptions import run_options
from aiwrapper.gateway._hops import HOP_HEADER

pytestmark = pytest.mark.anyio

HOPS = {HOP_HEADER: "abc"}


class Client:
    """An ASGI ``receive`` that waits until told the client left, noting how it ended."""

    def __init__(self) -> None:
        self.left = anyio.Event()
        self.waiting = anyio.Event()
        self.ended: list[str] = []

    async def receive(self) -> dict[str, Any]:
        self.waiting.set()
        try:
            await self.left.wait()
        except BaseException:
            self.ended.append("cancelled")
            raise
        self.ended.append("disconnect")
        return {"type": "http.disconnect"}


async def test_work_that_ends_ends_the_watcher() -> None:
    client = Client()
    done: list[str] = []

    async def work() -> None:
        await client.waiting.wait()  # the watcher is waiting for the client meanwhile
        done.append("answered")

    await unless_disconnected(client.receive, work)
    for _ in range(3):  # the watcher ends at its next step
        await anyio.sleep(0)
    assert done == ["answered"]
    assert client.ended == ["cancelled"]


async def test_a_client_that_leaves_cancels_the_work() -> None:
    client = Client()
    reached: list[str] = []

    async def work() -> None:
        await client.waiting.wait()
        client.left.set()
        try:
            await anyio.sleep_forever()
        finally:
            reached.append("cancelled")

    with anyio.fail_after(5):
        await unless_disconnected(client.receive, work)  # returns: the cancel is its own
    assert reached == ["cancelled"]
    assert client.ended == ["disconnect"]


async def test_a_failing_receive_cancels_the_work_and_is_raised() -> None:
    reached: list[str] = []

    async def receive() -> dict[str, Any]:
        raise OSError("server broke")

    async def work() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            reached.append("cancelled")

    caught: list[BaseException] = []
    with anyio.fail_after(5):
        try:
            await unless_disconnected(receive, work)
        except BaseException as error:
            caught += getattr(error, "exceptions", [error])
    assert [str(error) for error in caught] == ["server broke"]
    assert reached == ["cancelled"]


def test_headers_are_found_by_name_the_first_of_each() -> None:
    headers = [(b"Host", b"a"), (b"x-api-key", b"one"), (b"X-API-Key", b"two"), (b"x", b"\xe9")]
    exchange = Exchange({"headers": headers}, None, None)  # type: ignore[arg-type]
    assert exchange.raw_header(b"host") == b"a"
    assert exchange.raw_header(b"x-api-key") == b"one"
    assert exchange.header(b"x") == "\xe9"
    assert exchange.raw_header(b"missing") is None
    assert Exchange({}, None, None).raw_header(b"host") is None  # type: ignore[arg-type]


def test_run_options_are_what_the_request_asked_plus_the_translators() -> None:
    route = {"extra_headers": {"x-proxy": "p", HOP_HEADER: "route's"}, "stream": False}
    asked = {"temperature": 0.5, "top_p": None, "extra_headers": {"x-client": "c"}}
    options = run_options(asked, route, HOPS)
    assert options == {
        "temperature": 0.5,
        "extra_headers": {"x-proxy": "p", HOP_HEADER: "abc", "x-client": "c"},
        "auto_execute": False,
        "max_iterations": 1,
    }
    assert isinstance(options["extra_headers"], MappingProxyType)  # read-only: shared


def test_the_same_headers_are_one_shared_mapping() -> None:
    first = run_options({}, LangOptions(extra_headers={"x-proxy": "p"}), HOPS)
    again = run_options({}, LangOptions(extra_headers={"x-proxy": "p"}), dict(HOPS))
    other = run_options({}, LangOptions(extra_headers={"x-proxy": "q"}), HOPS)
    assert first["extra_headers"] is again["extra_headers"]
    assert other["extra_headers"] == {"x-proxy": "q", HOP_HEADER: "abc"}
    assert run_options({}, None, HOPS)["extra_headers"] == HOPS


@pytest.mark.parametrize(
    "route",
    [{"extra_headers": "x-proxy: p"}, LangOptions(extra_headers=["x"])],  # type: ignore[arg-type]
)
def test_route_headers_that_are_no_dict_are_a_config_error(route: Any) -> None:
    with pytest.raises(ConfigError, match="extra_headers must be a dict of strings"):
        run_options({}, route, HOPS)


def test_headers_that_cannot_be_shared_are_passed_as_they_are() -> None:
    options = run_options({"extra_headers": {"x": ["not", "a", "string"]}}, None, HOPS)
    assert options["extra_headers"] == {"x": ["not", "a", "string"], **HOPS}
    with pytest.raises(ConfigError, match="extra_headers must be a dict of strings"):
        Lang.scripted(["x"]).ask_sync("Hi", options)


async def test_a_route_reuses_its_merged_options_across_requests() -> None:
    lang = Lang.scripted(["one", "two", "three"])
    transport = httpx.ASGITransport(app=Gateway({"m": lang}), client=("127.0.0.1", 50000))
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "Hi"}]})
    answers, setups = [], []
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        for _ in range(3):
            reply = await client.post(
                "/v1/chat/completions", content=body, headers={"content-type": "application/json"}
            )
            answers.append(reply.json()["choices"][0]["message"]["content"])
            setups.append(lang._last_setup)
    assert answers == ["one", "two", "three"]
    assert setups[0] is not None
    assert setups[0] is setups[1] is setups[2]
    assert setups[0].options.auto_execute is False
    assert setups[0].options.max_iterations == 1
