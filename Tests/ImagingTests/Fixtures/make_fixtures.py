#!/usr/bin/env python3
"""Writes the PNG fixtures for ImagingTests using only the standard library.

Every image shows the same 5x4 pattern so the tests can check exact pixel values:
    r = 50 * x,  g = 80 * y,  b = 200 - 40 * x,  a = 255 - 60 * y   (for kinds with alpha)
Run from this folder: python3 make_fixtures.py
"""
import struct
import zlib

W, H = 5, 4


def rgba(x, y):
    return (50 * x, 80 * y, 200 - 40 * x, 255 - 60 * y)


def chunk(kind, data):
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(width, height, bit_depth, color_type, rows, interlace=0, extra=b""):
    ihdr = struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, interlace)
    raw = b"".join(b"\x00" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def rows_of(sample):
    return [b"".join(sample(x, y) for x in range(W)) for y in range(H)]


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


def gray(x, y):
    return 30 * x + 40 * y


write("rgb8.png", png(W, H, 8, 2, rows_of(lambda x, y: bytes(rgba(x, y)[:3]))))
write("rgba8.png", png(W, H, 8, 6, rows_of(lambda x, y: bytes(rgba(x, y)))))
write("gray8.png", png(W, H, 8, 0, rows_of(lambda x, y: bytes([gray(x, y)]))))
write("gray-alpha8.png", png(W, H, 8, 4, rows_of(lambda x, y: bytes([gray(x, y), rgba(x, y)[3]]))))
# 16-bit: each 8-bit value v stored as v * 257, so it converts back to exactly v.
write("rgb16.png", png(W, H, 16, 2, rows_of(
    lambda x, y: struct.pack(">HHH", *(v * 257 for v in rgba(x, y)[:3])))))
write("rgba16.png", png(W, H, 16, 6, rows_of(
    lambda x, y: struct.pack(">HHHH", *(v * 257 for v in rgba(x, y))))))

# Palette: one entry per pixel, with tRNS alphas.
palette = [rgba(x, y) for y in range(H) for x in range(W)]
plte = chunk(b"PLTE", b"".join(bytes(c[:3]) for c in palette))
trns = chunk(b"tRNS", bytes(c[3] for c in palette))
write("palette-trns.png", png(W, H, 8, 3, [bytes(range(y * W, y * W + W)) for y in range(H)], extra=plte + trns))


def adam7(width, height, sample):
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
    raw = b""
    for x0, y0, dx, dy in passes:
        xs = range(x0, width, dx)
        ys = range(y0, height, dy)
        if not xs or not ys:
            continue
        for y in ys:
            raw += b"\x00" + b"".join(sample(x, y) for x in xs)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 1)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


# Interlaced 9x9 so that every Adam7 pass holds pixels; pattern r = 25x, g = 25y, b = 7, a = 255.
write("interlaced.png", adam7(9, 9, lambda x, y: bytes([25 * x, 25 * y, 7, 255])))

# A decompression bomb: the header claims 100000 x 100000 RGBA, the data is a few bytes.
bomb_ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 6, 0, 0, 0)
write("bomb.png", b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", bomb_ihdr)
      + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))

good = png(W, H, 8, 6, rows_of(lambda x, y: bytes(rgba(x, y))))
write("truncated.png", good[: len(good) // 2])
# Valid signature and IHDR, then an IDAT whose bytes are not a zlib stream.
write("corrupt.png", good[:33] + chunk(b"IDAT", b"this is not zlib data") + chunk(b"IEND", b""))
write("empty.png", b"")
write("not-an-image.png", b"hello, world\n")
