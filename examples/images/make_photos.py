#!/usr/bin/env python3
"""Draws the example photos of examples/images/ (Python standard library only).

usage: python3 make_photos.py [DIR]      (default: the directory of this script)

Writes three 800x600 RGB PNGs:
  village.png  a hillside village seen from above: rows of houses, trees and a road
               (what the tilt-shift "miniature" effect is made for)
  harbour.png  a harbour at sunset: sky, sun, sea with reflections, boats, a pier
  skyline.png  a city at dusk: towers with lit windows under a deep blue sky

The pictures are deterministic (fixed random seed), so re-running the script gives
the same bytes. Shapes are flat or gently shaded, which keeps each file small.
"""
import math
import os
import random
import struct
import sys
import zlib

WIDTH, HEIGHT = 800, 600


class Canvas:
    def __init__(self, width, height, color=(0, 0, 0)):
        self.width, self.height = width, height
        self.rows = [bytearray(bytes(color) * width) for _ in range(height)]

    def span(self, y, x0, x1, color):
        """Fills row y from x0 (inclusive) to x1 (exclusive), clipped."""
        if y < 0 or y >= self.height:
            return
        x0, x1 = max(0, int(x0)), min(self.width, int(x1))
        if x1 > x0:
            self.rows[y][x0 * 3 : x1 * 3] = bytes(color) * (x1 - x0)

    def rect(self, x0, y0, x1, y1, color):
        for y in range(max(0, int(y0)), min(self.height, int(y1))):
            self.span(y, x0, x1, color)

    def vgradient(self, y0, y1, stops):
        """Rows y0..y1 shaded through `stops`: [(t, (r, g, b)), ...] with t from 0 to 1."""
        for y in range(max(0, y0), min(self.height, y1)):
            self.span(y, 0, self.width, mix_stops(stops, (y - y0) / max(1, y1 - y0 - 1)))

    def polygon(self, points, color):
        """Even-odd scanline fill of a simple polygon."""
        ys = [p[1] for p in points]
        for y in range(max(0, int(min(ys))), min(self.height, int(math.ceil(max(ys))))):
            cy = y + 0.5
            xs = []
            for (ax, ay), (bx, by) in zip(points, points[1:] + points[:1]):
                if (ay <= cy < by) or (by <= cy < ay):
                    xs.append(ax + (cy - ay) * (bx - ax) / (by - ay))
            xs.sort()
            for a, b in zip(xs[0::2], xs[1::2]):
                self.span(y, round(a), round(b), color)

    def circle(self, cx, cy, r, color):
        for y in range(max(0, int(cy - r)), min(self.height, int(cy + r) + 1)):
            dy = y + 0.5 - cy
            if abs(dy) <= r:
                dx = math.sqrt(r * r - dy * dy)
                self.span(y, round(cx - dx), round(cx + dx), color)

    def glow(self, cx, cy, radius, color, strength):
        """Brightens towards `color` around (cx, cy), fading out at `radius`."""
        for y in range(max(0, int(cy - radius)), min(self.height, int(cy + radius))):
            row = self.rows[y]
            for x in range(max(0, int(cx - radius)), min(self.width, int(cx + radius))):
                d = math.hypot(x - cx, y - cy) / radius
                if d < 1:
                    a = strength * (1 - d) ** 2
                    i = x * 3
                    for c in range(3):
                        row[i + c] = int(row[i + c] + a * (color[c] - row[i + c]))

    def png(self):
        raw = bytearray()
        for row in self.rows:
            raw.append(1)  # filter "Sub": flat runs become zeros and compress well
            previous = [0, 0, 0]
            for x in range(self.width):
                i = x * 3
                for c in range(3):
                    raw.append((row[i + c] - previous[c]) & 0xFF)
                previous = row[i : i + 3]
        def chunk(kind, data):
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def mix(a, b, t):
    t = min(1.0, max(0.0, t))
    return tuple(int(round(a[i] + (b[i] - a[i]) * t)) for i in range(3))


def mix_stops(stops, t):
    for (t0, c0), (t1, c1) in zip(stops, stops[1:]):
        if t <= t1:
            return mix(c0, c1, (t - t0) / max(1e-9, t1 - t0))
    return stops[-1][1]


def shade(color, factor):
    return tuple(max(0, min(255, int(c * factor))) for c in color)


def village():
    rng = random.Random(7)
    c = Canvas(WIDTH, HEIGHT)
    c.vgradient(0, 150, [(0, (120, 170, 225)), (1, (205, 226, 240))])
    # Distant hills, bluish, then the green slope the village sits on.
    for base, amp, color in ((125, 18, (128, 160, 170)), (145, 14, (105, 150, 120))):
        pts = [(x, base - amp * math.sin(x / 90.0 + base) - 8 * math.sin(x / 31.0)) for x in range(0, WIDTH + 20, 20)]
        c.polygon(pts + [(WIDTH, HEIGHT), (0, HEIGHT)], color)
    for y in range(160, HEIGHT):
        t = (y - 160) / (HEIGHT - 160)
        c.span(y, 0, WIDTH, mix((112, 160, 82), (84, 138, 60), t))
    # A winding road from the bottom left up to the right.
    road = []
    for y in range(165, HEIGHT, 5):
        t = (y - 165) / (HEIGHT - 165)
        x = 560 - 420 * t + 60 * math.sin(t * 5)
        w = 4 + 30 * t
        road.append((x, y, w))
    for x, y, w in road:
        c.rect(x - w, y, x + w, y + 5, (196, 184, 160))
    # Rows of houses: smaller and closer together towards the top (the far side).
    walls = [(236, 222, 196), (242, 236, 220), (226, 196, 160), (214, 222, 232), (238, 214, 200), (250, 244, 228)]
    roofs = [(176, 72, 52), (150, 60, 48), (120, 76, 60), (96, 96, 108), (190, 96, 60)]
    y = 172
    while y < HEIGHT + 10:
        scale = 0.35 + 1.1 * (y - 170) / (HEIGHT - 170)
        w, h = 34 * scale, 22 * scale
        x = rng.uniform(-w, 10)
        while x < WIDTH:
            kind = rng.random()
            if kind < 0.18:  # a tree
                r = 9 * scale
                c.circle(x + r, y - r * 0.4, r, (52, 104, 48))
                c.circle(x + r * 0.8, y - r * 0.7, r * 0.6, (70, 128, 60))
                x += 2.4 * r
                continue
            ww = w * rng.uniform(0.8, 1.3)
            wall = rng.choice(walls)
            roof = rng.choice(roofs)
            c.rect(x, y - h, x + ww, y, wall)
            c.rect(x + ww, y - h, x + ww + 5 * scale, y, shade(wall, 0.75))  # side in shade
            c.polygon([(x - 3 * scale, y - h), (x + ww / 2, y - h - 14 * scale), (x + ww + 8 * scale, y - h)], roof)
            for wx in (0.2, 0.62):
                c.rect(x + ww * wx, y - h * 0.7, x + ww * wx + 5 * scale, y - h * 0.4, (70, 90, 120))
            c.rect(x + ww * 0.42, y - h * 0.45, x + ww * 0.42 + 5 * scale, y, (110, 70, 50))
            x += ww + rng.uniform(10, 26) * scale
        y += int(30 * scale) + 6
    return c


def harbour():
    rng = random.Random(11)
    c = Canvas(WIDTH, HEIGHT)
    horizon = 330
    c.vgradient(0, horizon, [(0, (46, 40, 92)), (0.45, (170, 80, 110)), (0.8, (240, 140, 80)), (1, (252, 196, 120))])
    c.glow(520, 300, 230, (255, 214, 150), 0.55)
    c.circle(520, 300, 38, (255, 236, 190))
    # Thin clouds lit from below.
    for cy, cx, length in ((90, 180, 260), (130, 560, 200), (60, 600, 160), (190, 120, 180)):
        for k in range(5):
            c.rect(cx + k * 12, cy + k * 3, cx + length - k * 15, cy + k * 3 + 3, mix((120, 70, 110), (250, 170, 120), cy / 220))
    c.vgradient(horizon, HEIGHT, [(0, (200, 110, 90)), (0.3, (90, 60, 100)), (1, (30, 34, 70))])
    # The sun's reflection: broken golden stripes on the water.
    for y in range(horizon + 2, HEIGHT, 6):
        spread = 30 + (y - horizon) * 0.5
        for _ in range(3):
            x = 520 + rng.uniform(-spread, spread)
            c.rect(x, y, x + rng.uniform(10, 40), y + 2, (250, 190, 120))
    # Distant shore with a lighthouse.
    c.polygon([(0, horizon), (0, horizon - 20), (120, horizon - 28), (260, horizon - 12), (330, horizon)], (60, 40, 70))
    c.rect(70, horizon - 80, 84, horizon - 26, (230, 220, 210))
    c.rect(70, horizon - 64, 84, horizon - 56, (190, 50, 50))
    c.rect(68, horizon - 88, 86, horizon - 80, (250, 240, 160))
    # A pier on posts, lower right.
    c.rect(560, 470, WIDTH, 482, (70, 46, 40))
    for x in range(570, WIDTH, 36):
        c.rect(x, 482, x + 6, 540, (52, 34, 32))
    # Boats: hulls, masts, sails.
    for bx, by, s, hull in ((150, 430, 1.0, (200, 60, 50)), (330, 380, 0.6, (40, 80, 140)), (420, 500, 1.3, (240, 236, 220)), (250, 350, 0.4, (60, 60, 60))):
        c.polygon([(bx - 50 * s, by), (bx + 50 * s, by), (bx + 38 * s, by + 16 * s), (bx - 40 * s, by + 16 * s)], hull)
        c.rect(bx - 1.5 * s, by - 90 * s, bx + 1.5 * s, by, (50, 40, 40))
        c.polygon([(bx + 3 * s, by - 86 * s), (bx + 3 * s, by - 6 * s), (bx + 44 * s, by - 6 * s)], (246, 236, 220))
        c.polygon([(bx - 3 * s, by - 70 * s), (bx - 3 * s, by - 8 * s), (bx - 30 * s, by - 8 * s)], (232, 214, 196))
        c.rect(bx - 46 * s, by + 16 * s, bx + 40 * s, by + 19 * s, (40, 30, 60))  # shadow on the water
    return c


def skyline():
    rng = random.Random(3)
    c = Canvas(WIDTH, HEIGHT)
    c.vgradient(0, HEIGHT, [(0, (12, 20, 60)), (0.55, (40, 62, 130)), (0.8, (120, 100, 150)), (1, (230, 150, 110))])
    for _ in range(70):  # stars, only high up
        x, y = rng.randrange(WIDTH), rng.randrange(0, 220)
        c.rect(x, y, x + 2, y + 2, (230, 230, 250))
    c.circle(640, 110, 30, (240, 238, 220))
    c.circle(652, 102, 27, mix_stops([(0, (12, 20, 60)), (0.55, (40, 62, 130))], 102 / HEIGHT))  # a crescent
    c.glow(640, 110, 90, (200, 210, 240), 0.3)
    ground = 560
    for layer, (count, low, high, body) in enumerate(((14, 120, 300, (46, 52, 88)), (11, 180, 420, (26, 30, 56)))):
        x = rng.uniform(-40, 0)
        while x < WIDTH:
            w = rng.uniform(50, 110)
            top = ground - rng.uniform(low, high)
            c.rect(x, top, x + w, ground, body)
            if rng.random() < 0.4:  # a spire or a stepped top
                c.rect(x + w * 0.35, top - 30, x + w * 0.65, top, body)
                c.rect(x + w * 0.48, top - 60, x + w * 0.52, top - 30, body)
            lit = (250, 214, 120) if layer else (200, 180, 120)
            for wy in range(int(top) + 10, ground - 10, 14):
                for wx in range(int(x) + 8, int(x + w) - 10, 12):
                    if rng.random() < 0.45:
                        c.rect(wx, wy, wx + 6, wy + 8, lit)
            x += w + rng.uniform(2, 16)
    c.rect(0, ground, WIDTH, HEIGHT, (18, 18, 30))
    for x in range(0, WIDTH, 50):  # street lamps and their reflections
        c.glow(x + 25, ground + 4, 26, (255, 200, 120), 0.6)
    return c


def main():
    directory = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, draw in (("village.png", village), ("harbour.png", harbour), ("skyline.png", skyline)):
        path = os.path.join(directory, name)
        data = draw().png()
        with open(path, "wb") as f:
            f.write(data)
        print(f"{path}: {len(data) // 1024} KiB")


if __name__ == "__main__":
    main()
