#!/usr/bin/env python3
"""Draws web/icons/icon-192.png and icon-512.png: the same picture as web/icons/icon.svg
(a blue rounded square, three white bars, a yellow dot), rasterised with 4x4 supersampling,
written with zlib alone. Run it again after changing the picture:
    python3 scripts/make-web-icons.py
"""

import struct
import zlib
from pathlib import Path

ICONS = Path(__file__).resolve().parents[1] / "web" / "icons"
BLUE = (0x2F, 0x5B, 0xD3)
WHITE = (0xFF, 0xFF, 0xFF)
YELLOW = (0xFF, 0xD1, 0x66)


def inside_round_rect(x, y, left, top, width, height, radius):
    if not (left <= x <= left + width and top <= y <= top + height):
        return False
    cx = min(max(x, left + radius), left + width - radius)
    cy = min(max(y, top + radius), top + height - radius)
    return (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2


def colour_at(x, y):
    """The picture in the 64x64 units of the SVG: (r, g, b, a) with a in 0..1."""
    if not inside_round_rect(x, y, 0, 0, 64, 64, 14):
        return (0, 0, 0, 0.0)
    colour = BLUE
    for top, width, opacity in ((15, 36, 0.55), (28, 36, 0.8), (41, 24, 1.0)):
        if inside_round_rect(x, y, 14, top, width, 8, 4):
            colour = tuple(round(c * (1 - opacity) + w * opacity) for c, w in zip(colour, WHITE))
    if (x - 46) ** 2 + (y - 45) ** 2 <= 25:
        colour = YELLOW
    return (*colour, 1.0)


def render(size, samples=4):
    rows = []
    scale = 64 / size
    for py in range(size):
        row = bytearray([0])
        for px in range(size):
            r = g = b = a = 0.0
            for sy in range(samples):
                for sx in range(samples):
                    cr, cg, cb, ca = colour_at((px + (sx + 0.5) / samples) * scale, (py + (sy + 0.5) / samples) * scale)
                    r += cr * ca
                    g += cg * ca
                    b += cb * ca
                    a += ca
            n = samples * samples
            alpha = a / n
            if a:
                row += bytes((round(r / a), round(g / a), round(b / a), round(alpha * 255)))
            else:
                row += bytes(4)
        rows.append(bytes(row))
    return b"".join(rows)


def png(size):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(render(size), 9)) + chunk(b"IEND", b"")


if __name__ == "__main__":
    for size in (192, 512):
        (ICONS / f"icon-{size}.png").write_bytes(png(size))
        print(f"wrote web/icons/icon-{size}.png")
