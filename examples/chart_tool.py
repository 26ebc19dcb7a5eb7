"""A tool that draws a chart as a PNG, and a model that describes the picture it gets back.

The tool returns an ``Image`` beside a line of text; each wire carries it in its own place
(a tool result's content blocks, or a user message after the tool messages where a wire's
tool results take text only). The PNG is drawn here with ``zlib`` and ``struct`` alone, no
plotting library. Offline, the model says what it received: type, size and pixels.

Run: python examples/chart_tool.py   (offline without an API key)
"""

import struct
import zlib

import anyio

from aiwrapper import Image, Lang, tool

WIDTH, HEIGHT, MARGIN = 240, 150, 10
BACKGROUND, AXIS = (255, 255, 255), (60, 60, 60)
COLOURS = [(66, 133, 244), (219, 68, 55), (244, 180, 0), (15, 157, 88)]


def encode_png(rows: list[bytearray], width: int, height: int) -> bytes:
    """RGB rows (3 bytes a pixel) as a PNG file: signature, IHDR, IDAT, IEND."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        checksum = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", checksum)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    raw = b"".join(b"\x00" + bytes(row) for row in rows)  # filter type 0 on every row
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def bar_chart(values: list[float]) -> bytes:
    """A bar chart of ``values`` as PNG bytes."""
    rows = [bytearray(bytes(BACKGROUND) * WIDTH) for _ in range(HEIGHT)]

    def fill(x0: int, y0: int, x1: int, y1: int, colour: tuple[int, int, int]) -> None:
        for y in range(max(y0, 0), min(y1, HEIGHT)):
            rows[y][x0 * 3 : x1 * 3] = bytes(colour) * (x1 - x0)

    top = max([*values, 1e-9])
    slot = (WIDTH - 2 * MARGIN) // max(len(values), 1)
    for index, value in enumerate(values):
        height = round((HEIGHT - 2 * MARGIN) * max(value, 0) / top)
        left = MARGIN + index * slot + slot // 6
        colour = COLOURS[index % len(COLOURS)]
        fill(left, HEIGHT - MARGIN - height, left + slot * 2 // 3, HEIGHT - MARGIN, colour)
    fill(MARGIN, HEIGHT - MARGIN, WIDTH - MARGIN, HEIGHT - MARGIN + 1, AXIS)  # the x axis
    return encode_png(rows, WIDTH, HEIGHT)


@tool
def draw_chart(values: list[float], title: str) -> list[object]:
    """Draw a bar chart.

    Args:
        values: The height of each bar, in order, e.g. [3, 5, 2].
        title: What the chart shows.
    """
    image = Image.from_bytes(bar_chart(values), name="chart.png")
    return [f"{title}: a bar chart of {len(values)} bars", image]


async def main() -> None:
    async with Lang.from_env() as lang:
        result = await lang.ask(
            'Draw a bar chart of the monthly sales 3, 5, 2 and 8 titled "Sales", '
            "then describe the picture you get back.",
            functions=[draw_chart],
        )
    call = result.function_calls[0]
    print(f"{call.name}({call.arguments}) returned {call.result[1]!r}")
    print(result.answer)


if __name__ == "__main__":
    anyio.run(main)
