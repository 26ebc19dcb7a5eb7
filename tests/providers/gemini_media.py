"""Shared pieces of the Gemini media tests: small real media, tools that return them, a mock."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import httpx

from aiwrapper import Document, Image, tool

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gemini"

# A 1x1 red PNG and a 2x2 blue PNG, real files, as base64 (a fixture's bytes must not depend on
# the zlib that made them), and a tiny PDF.
RED_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9"
    "awAAAABJRU5ErkJggg=="
)
BLUE_B64 = (
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAD0lEQVR42mNgaPgPQhAKACX2Bf0Z"
    "CSOMAAAAAElFTkSuQmCC"
)
RED_PNG = base64.b64decode(RED_B64)
BLUE_PNG = base64.b64decode(BLUE_B64)
PDF = (
    b"%PDF-1.4\n1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj\n"
    b"2 0 obj <</Type /Pages /Kids [] /Count 0>> endobj\n"
    b"trailer <</Root 1 0 R>>\n%%EOF\n"
)
PDF_B64 = base64.b64encode(PDF).decode()


@tool
def chart(city: str) -> list[Any]:
    """Draw the sales chart of a city.

    Args:
        city: The city's name.
    """
    return [f"Sales in {city}", Image.from_bytes(RED_PNG)]


@tool
def report(city: str) -> list[Any]:
    """Fetch the sales report of a city.

    Args:
        city: The city's name.
    """
    return [f"Report for {city}", Image.from_bytes(BLUE_PNG), Document.from_bytes(PDF)]


def inline(mime: str, data: str) -> dict[str, Any]:
    return {"inlineData": {"mimeType": mime, "data": data}}


def mock_gemini(replies: list[bytes], bodies: list[bytes]) -> httpx.AsyncClient:
    """A client answering each request with the next reply, keeping each body's bytes."""

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(request.content)
        headers = {"Content-Type": "text/event-stream"}
        return httpx.Response(200, content=replies[len(bodies) - 1], headers=headers)

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))
