#!/usr/bin/env python3
"""Writes a 4000x3000 (12-megapixel) PPM with smooth gradients and fine detail.

Usage: make_big_jpeg.py OUT.ppm  (bench.sh converts it to JPEG with vips or ImageMagick).
Standard library only, so the benchmark does not depend on Pillow to make its input.
"""
import sys

W, H = 4000, 3000


def main(path):
    with open(path, "wb") as out:
        out.write(b"P6\n%d %d\n255\n" % (W, H))
        # A detail pattern repeated along each row, shifted per row: cheap to build, not flat.
        base = bytes((x * 7 + (x // 13) * 31) & 0xFF for x in range(3 * W + 512))
        for y in range(H):
            shift = (y * 5) % 512
            row = bytearray(base[shift:shift + 3 * W])
            g = (y * 255) // H
            row[1::3] = bytes(((v >> 1) + g) & 0xFF for v in row[1::3])
            out.write(row)


if __name__ == "__main__":
    main(sys.argv[1])
