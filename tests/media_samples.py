"""Small real files for the media tests: a PNG of a given size, a JPEG, a GIF, a WebP, a PDF."""

from __future__ import annotations

import struct
import zlib


def png(width: int = 3, height: int = 2, rgb: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    """A valid RGB PNG of one colour."""
    row = b"\x00" + bytes(rgb) * width
    chunks = [
        (b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)),
        (b"IDAT", zlib.compress(row * height)),
        (b"IEND", b""),
    ]
    out = b"\x89PNG\r\n\x1a\n"
    for kind, data in chunks:
        out += struct.pack(">I", len(data)) + kind + data
        out += struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return out


JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 20 + b"\xff\xd9"
GIF = b"GIF89a" + struct.pack("<HH", 4, 5) + b"\x00" * 10 + b";"
WEBP = b"RIFF\x10\x00\x00\x00WEBPVP8 " + b"\x00" * 8
PDF = b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
