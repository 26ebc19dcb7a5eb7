"""A cassette file that is damaged (cut off, hand-edited, mangled by a merge) fails with a
``ConfigError`` naming the file and what is wrong in it, never a raw ``JSONDecodeError``,
``KeyError`` or ``TypeError``, and before any request is replayed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from aiwrapper import ConfigError
from aiwrapper.testing import cassette

REQUEST = {"method": "POST", "url": "http://wire.test/v1", "headers": {}, "body": {"a": 1}}
RESPONSE = {"status": 200, "headers": {"content-type": "application/json"}, "body": "{}"}
GOOD = {"exchanges": [{"request": REQUEST, "response": RESPONSE}]}


def _with(where: str, value: Any) -> str:
    """The good cassette with one field (``request.url``) replaced, or removed for ``...``."""
    data = json.loads(json.dumps(GOOD))
    side, key = where.split(".")
    if value is ...:
        del data["exchanges"][0][side][key]
    else:
        data["exchanges"][0][side][key] = value
    return json.dumps(data)


CORRUPT: list[tuple[str, str | bytes, str]] = [
    ("empty", "", r"not valid JSON"),
    ("truncated", json.dumps(GOOD)[:40], r"not valid JSON .*line 1"),
    ("not utf-8", b'{"exchanges": ["\xff"]}', r"not UTF-8 text"),
    ("nested too deep", "[" * 100_000, r"nested too deeply"),
    ("a list at the top", "[]", r"must be an object with 'exchanges', not a list"),
    ("null at the top", "null", r"must be an object with 'exchanges', not null"),
    ("no exchanges", '{"requests": []}', r"must be an object with 'exchanges'"),
    ("exchanges not a list", '{"exchanges": {}}', r"exchanges must be a list, not an object"),
    ("an exchange not an object", '{"exchanges": [5]}', r"exchanges\[0\] must be an object"),
    ("no response", json.dumps({"exchanges": [{"request": REQUEST}]}), r"\[0\] has no 'response'"),
    ("no request", json.dumps({"exchanges": [{"response": RESPONSE}]}), r"\[0\] has no 'request'"),
    ("no url", _with("request.url", ...), r"exchanges\[0\]\.request has no 'url'"),
    ("no body", _with("request.body", ...), r"exchanges\[0\]\.request has no 'body'"),
    ("method a number", _with("request.method", 5), r"request\.method must be a string, not 5"),
    ("status a string", _with("response.status", "200"), r"response\.status must be an HTTP"),
    ("status a bool", _with("response.status", True), r"response\.status must be an HTTP"),
    ("status out of range", _with("response.status", 10**400), r"response\.status must be an HTTP"),
    ("headers a list", _with("response.headers", []), r"response\.headers must be an object"),
    ("header a number", _with("response.headers", {"a": 5}), r"response\.headers\['a'\] must"),
    ("body a number", _with("response.body", 5), r"response\.body must be a string, not 5"),
    ("body a lone surrogate", _with("response.body", "\ud800"), r"response\.body is not UTF-8"),
]


@pytest.mark.parametrize(("text", "problem"), [c[1:] for c in CORRUPT], ids=[c[0] for c in CORRUPT])
def test_a_corrupted_cassette_is_a_config_error_naming_the_file_and_the_fault(
    tmp_path: Path, text: str | bytes, problem: str
) -> None:
    path = tmp_path / "broken.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    expected = r"broken\.json: not a readable cassette: .*" + problem
    with pytest.raises(ConfigError, match=expected):
        cassette(path)


def test_a_missing_cassette_is_a_config_error_that_says_to_record_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"absent\.json: no such cassette; record it first"):
        cassette(tmp_path / "absent.json")


@pytest.mark.anyio
async def test_the_unbroken_cassette_of_these_tests_replays_even_a_non_ascii_header(
    tmp_path: Path,
) -> None:
    # The corruptions above each break one thing in this file; unbroken, it loads and answers.
    # A header httpx decoded from latin-1 or UTF-8 when recording is replayed, not refused.
    path = tmp_path / "good.json"
    good = json.loads(json.dumps(GOOD))
    good["exchanges"][0]["response"]["headers"]["x-where"] = "Zürich"
    path.write_text(json.dumps(good), encoding="utf-8")
    async with cassette(path) as client:
        response = await client.post("http://wire.test/v1", json={"a": 1})
    assert (response.status_code, response.json()) == (200, {})
    assert response.headers["x-where"] == "Zürich"
