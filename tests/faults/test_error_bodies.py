"""An error body in no wire's own shape (a proxy's or a web framework's: ``detail`` and
``validation``, ``title`` and ``errors``) still gives its message, on every wire, and the body
stays available as it came."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from aiwrapper import BadRequestError

from . import wires
from .wires import Wire

pytestmark = pytest.mark.anyio

VALIDATION = {
    "detail": "Request failed validation",
    "validation": [{"path": "/contents/0/parts", "message": "must not be empty"}],
}
EXPECTED = (
    'Request failed validation; validation: [{"path":"/contents/0/parts",'
    '"message":"must not be empty"}]'
)


@pytest.mark.parametrize("wire", wires.WIRES)
async def test_a_422_with_detail_and_validation_reports_both(wire: str) -> None:
    with pytest.raises(BadRequestError) as raised:
        await Wire(wire, [httpx.Response(422, json=VALIDATION)]).lang.ask("go")
    assert str(raised.value).endswith(EXPECTED)
    assert raised.value.body == VALIDATION


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"title": "Unprocessable", "errors": {"contents": ["required"]}},
         'Unprocessable; errors: {"contents":["required"]}'),
        ({"validation": "contents is required"}, "validation: contents is required"),
        ({"msg": "bad field"}, "bad field"),
        ({"detail": [{"loc": ["body", "x"], "msg": "field required"}]},
         '[{"loc":["body","x"],"msg":"field required"}]'),
    ],
)  # fmt: skip
@pytest.mark.parametrize("wire", ["gemini", "anthropic", "ollama"])
async def test_a_framework_error_body_gives_its_message(
    wire: str, body: dict[str, Any], expected: str
) -> None:
    with pytest.raises(BadRequestError) as raised:
        await Wire(wire, [httpx.Response(422, json=body)]).lang.ask("go")
    assert str(raised.value).endswith(expected)


@pytest.mark.parametrize("wire", wires.WIRES)
async def test_an_empty_error_body_still_says_its_status(wire: str) -> None:
    with pytest.raises(BadRequestError, match=r"HTTP 422") as raised:
        await Wire(wire, [httpx.Response(422, json={})]).lang.ask("go")
    assert raised.value.body == {}
