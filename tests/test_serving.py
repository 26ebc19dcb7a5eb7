"""The serving contract's shared reader of a client's ``messages`` list, for every front-end."""

from __future__ import annotations

from typing import Any

import pytest

from aiwrapper.providers._serving import GatewayError, bad_request, read_messages


def _objects_only(message: Any, where: str) -> dict[str, Any]:
    if not isinstance(message, dict):
        raise bad_request("a message must be an object", where)
    return message


def test_each_message_is_read_as_chat_reads_message_dicts() -> None:
    raw = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    read = read_messages(raw, _objects_only)
    assert [(m.role, m.content) for m in read] == [("user", "Hi"), ("assistant", "Hello")]


@pytest.mark.parametrize("raw", [None, [], "Hi", {"role": "user"}])
def test_anything_but_a_non_empty_list_is_a_400_naming_messages(raw: Any) -> None:
    with pytest.raises(GatewayError) as caught:
        read_messages(raw, _objects_only)
    assert (caught.value.status, caught.value.param) == (400, "messages")
    assert caught.value.message == "'messages' must be a non-empty list"


def test_the_front_end_refuses_an_entry_in_its_own_words() -> None:
    with pytest.raises(GatewayError) as caught:
        read_messages([{"role": "user", "content": "Hi"}, "Hi"], _objects_only)
    assert (caught.value.param, caught.value.message) == (
        "messages[1]",
        "a message must be an object",
    )


def test_what_the_reader_refuses_is_a_400_naming_the_entry() -> None:
    raw = [{"role": "user", "content": "Hi"}, {"role": "nobody", "content": "?"}]
    with pytest.raises(GatewayError) as caught:
        read_messages(raw, _objects_only)
    assert (caught.value.status, caught.value.kind) == (400, "invalid_request")
    assert caught.value.param == "messages[1]"
    assert "nobody" in caught.value.message
