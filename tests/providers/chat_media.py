"""Small real media for the Chat Completions tests: two 2x2 PNGs, a one-page PDF, two tools.

The bytes are fixed here (not drawn at test time), so request fixtures that embed them stay
byte-exact whatever zlib the machine has.
"""

from __future__ import annotations

import base64

from aiwrapper import Document, Image, tool

RED_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR42mM4IScHRAwQCgAfJgQRSo6NIAAAAABJRU5ErkJggg=="
)
BLUE_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR42mOQizoBRAwQCgAgZgUBJVrRTwAAAABJRU5ErkJggg=="
)
PDF = (
    b"%PDF-1.4\n"
    b"1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n"
    b"3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 72 72]>>endobj\n"
    b"trailer<</Root 1 0 R>>\n"
    b"%%EOF\n"
)


@tool
def sales_chart(city: str) -> list[object]:
    """Draw the sales chart of a city.

    Args:
        city: The city's name.
    """
    return [f"Sales in {city}, by month.", Image.from_bytes(RED_PNG)]


@tool
def quarterly_report(city: str) -> list[object]:
    """The quarterly report of a city, with its cover.

    Args:
        city: The city's name.
    """
    return [
        f"Report for {city}.",
        Image.from_bytes(BLUE_PNG),
        Document.from_bytes(PDF, name="q3.pdf"),
    ]
