"""One drawing description of a position, drawn by a raster and an SVG backend alike.

A game's image module builds a :class:`Drawing` (a canvas size and a list of shapes: rects,
circles, convex polygons and one-line texts, in pixel coordinates, painted in order);
:func:`to_rgb` rasterizes it with numpy (``render_mode="rgb_array"``) and :func:`to_svg` writes
it as SVG text (``render_mode="svg"``), so the two pictures show the same thing.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from html import escape
from typing import Any

import numpy as np

from tabletop_envs.render import font
from tabletop_envs.render.raster import Color, canvas, fill_circle, fill_polygon, fill_rect

#: Horizontal anchors of a text: its left end, centre or right end at ``x``.
ANCHORS = ("start", "middle", "end")


@dataclass(frozen=True)
class Rect:
    """An axis-aligned rectangle; ``stroke`` draws a border of ``width`` centred on its edge."""

    x: float
    y: float
    w: float
    h: float
    fill: Color
    stroke: Color | None = None
    width: float = 1.0


@dataclass(frozen=True)
class Circle:
    """A disc of radius ``r`` centred on ``(cx, cy)``, with an optional border."""

    cx: float
    cy: float
    r: float
    fill: Color
    stroke: Color | None = None
    width: float = 1.0


@dataclass(frozen=True)
class Polygon:
    """A convex polygon given by its corners in order, with an optional border."""

    points: tuple[tuple[float, float], ...]
    fill: Color
    stroke: Color | None = None
    width: float = 1.0


@dataclass(frozen=True)
class Text:
    """One line of text whose capitals are ``size`` pixels tall, centred vertically on ``y``."""

    x: float
    y: float
    text: str
    size: float = 10.0
    fill: Color = (30, 30, 30)
    anchor: str = "middle"

    def __post_init__(self) -> None:
        if self.anchor not in ANCHORS:
            raise ValueError(f"a text anchor is one of {ANCHORS}, got {self.anchor!r}")


Shape = Rect | Circle | Polygon | Text


@dataclass
class Drawing:
    """A ``width`` x ``height`` canvas and the shapes painted on it, in order."""

    width: int
    height: int
    background: Color = (240, 236, 226)
    shapes: list[Shape] = field(default_factory=list)

    def add(self, *shapes: Shape) -> None:
        """Paint ``shapes`` after the ones already there."""
        self.shapes.extend(shapes)


def text_width(text: str, size: float) -> float:
    """Return the width in pixels of ``text`` as a :class:`Text` of ``size``, in either backend.

    The wider of the raster's (the pixel font at its integer scale) and the SVG's (a monospace
    face, 0.6 em a character), so a text that fits by this measure fits in both pictures.
    """
    scale = max(1, round(size / font.GLYPH_HEIGHT))
    raster = font.text_width(text, scale)
    svg = 0.6 * (size / 0.72) * len(text)  # _svg_text's font size, DejaVu Sans Mono's advance
    return max(float(raster), svg)


def wrap(text: str, size: float, width: float) -> list[str]:
    """Return ``text`` broken into lines no wider than ``width`` pixels at ``size``.

    Breaks at spaces; a word wider than a whole line is cut into pieces that fit. Always at
    least one line (an empty text is one empty line).
    """
    lines: list[str] = []
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if text_width(candidate, size) <= width:
            line = candidate
            continue
        if line:
            lines.append(line)
        while len(word) > 1 and text_width(word, size) > width:
            cut = 1  # the longest head that fits (one character at least)
            while cut + 1 < len(word) and text_width(word[: cut + 1], size) <= width:
                cut += 1
            lines.append(word[:cut])
            word = word[cut:]
        line = word
    lines.append(line)
    return lines


def hexagon(cx: float, cy: float, radius: float) -> tuple[tuple[float, float], ...]:
    """Return the corners of a pointy-top hexagon of circumradius ``radius``."""
    return tuple(
        (
            cx + radius * math.cos(math.radians(60 * k - 30)),
            cy + radius * math.sin(math.radians(60 * k - 30)),
        )
        for k in range(6)
    )


# ---- raster -------------------------------------------------------------------------------
def fit(drawing: Drawing, height: int, width: int) -> Drawing:
    """Return ``drawing`` on a ``height`` x ``width`` canvas: scaled down (every position, size
    and line width) if it is larger, centred across and set at the top.

    Shapes are scaled as shapes, not pixels, so text and lines stay sharp.
    """
    scale = min(1.0, width / drawing.width, height / drawing.height)
    dx = (width - drawing.width * scale) / 2

    def move(x: float, y: float) -> tuple[float, float]:
        return dx + x * scale, y * scale

    out = Drawing(width, height, drawing.background)
    for s in drawing.shapes:
        if isinstance(s, Rect):
            x, y = move(s.x, s.y)
            out.add(replace(s, x=x, y=y, w=s.w * scale, h=s.h * scale, width=s.width * scale))
        elif isinstance(s, Circle):
            cx, cy = move(s.cx, s.cy)
            out.add(replace(s, cx=cx, cy=cy, r=s.r * scale, width=s.width * scale))
        elif isinstance(s, Polygon):
            points = tuple(move(*p) for p in s.points)
            out.add(replace(s, points=points, width=s.width * scale))
        else:
            x, y = move(s.x, s.y)
            out.add(replace(s, x=x, y=y, size=s.size * scale))
    return out


def to_rgb(drawing: Drawing) -> np.ndarray:
    """Return the drawing as a fresh ``(height, width, 3)`` uint8 array."""
    img = canvas(drawing.height, drawing.width, drawing.background)
    for shape in drawing.shapes:
        _RASTER[type(shape)](img, shape)
    return img


def _rect(img: np.ndarray, s: Rect) -> None:
    d = s.width / 2 if s.stroke is not None else 0.0
    if d and s.stroke is not None:
        fill_rect(img, s.x - d, s.y - d, s.x + s.w + d, s.y + s.h + d, s.stroke)
    if s.fill is not None:  # None: an outline only
        fill_rect(img, s.x + d, s.y + d, s.x + s.w - d, s.y + s.h - d, s.fill)


def _circle(img: np.ndarray, s: Circle) -> None:
    d = s.width / 2 if s.stroke is not None else 0.0
    if d and s.stroke is not None:
        fill_circle(img, s.cx, s.cy, s.r + d, s.stroke)
    if s.fill is not None:
        fill_circle(img, s.cx, s.cy, s.r - d, s.fill)


def _polygon(img: np.ndarray, s: Polygon) -> None:
    d = s.width / 2 if s.stroke is not None else 0.0
    if d and s.stroke is not None:
        fill_polygon(img, _offset(s.points, d), s.stroke)
    if s.fill is not None:
        fill_polygon(img, _offset(s.points, -d) if d else s.points, s.fill)


def _offset(points: Sequence[tuple[float, float]], d: float) -> list[tuple[float, float]]:
    """Return a convex polygon's corners with every edge moved ``d`` outwards."""
    n = len(points)
    area = sum(
        points[i][0] * points[(i + 1) % n][1] - points[(i + 1) % n][0] * points[i][1]
        for i in range(n)
    )
    sign = 1.0 if area > 0 else -1.0
    lines = []
    for i in range(n):
        (ax, ay), (bx, by) = points[i], points[(i + 1) % n]
        length = math.hypot(bx - ax, by - ay) or 1.0
        nx, ny = sign * (by - ay) / length, -sign * (bx - ax) / length  # outward normal
        lines.append((ax + nx * d, ay + ny * d, bx - ax, by - ay))
    out = []
    for i in range(n):
        px, py, ux, uy = lines[i - 1]
        qx, qy, vx, vy = lines[i]
        den = ux * vy - uy * vx
        if abs(den) < 1e-12:
            out.append((qx, qy))
            continue
        t = ((qx - px) * vy - (qy - py) * vx) / den
        out.append((px + t * ux, py + t * uy))
    return out


def _text(img: np.ndarray, s: Text) -> None:
    scale = max(1, round(s.size / font.GLYPH_HEIGHT))
    ink = font.text_mask(s.text, scale)
    h, w = ink.shape
    x0 = s.x - {"start": 0, "middle": w / 2, "end": w}[s.anchor]
    x0, y0 = round(x0), round(s.y - h / 2)
    ya, yb = max(y0, 0), min(y0 + h, img.shape[0])
    xa, xb = max(x0, 0), min(x0 + w, img.shape[1])
    if ya < yb and xa < xb:
        img[ya:yb, xa:xb][ink[ya - y0 : yb - y0, xa - x0 : xb - x0]] = s.fill


_RASTER: dict[type, Callable[[np.ndarray, Any], None]] = {
    Rect: _rect,
    Circle: _circle,
    Polygon: _polygon,
    Text: _text,
}


# ---- SVG ----------------------------------------------------------------------------------
def to_svg(drawing: Drawing) -> str:
    """Return the drawing as a standalone SVG document (a string)."""
    w, h = drawing.width, drawing.height
    lines = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="{_hex(drawing.background)}"/>',
    ]
    lines.extend(_SVG[type(shape)](shape) for shape in drawing.shapes)
    lines.append("</svg>")
    return "\n".join(lines) + "\n"


def _hex(color: Color) -> str:
    return "#{:02x}{:02x}{:02x}".format(*color)


def _num(value: float) -> str:
    return f"{value:.2f}".rstrip("0").rstrip(".")


def _paint(fill: Color, stroke: Color | None, width: float) -> str:
    out = f'fill="{_hex(fill)}"'
    if stroke is not None:
        out += f' stroke="{_hex(stroke)}" stroke-width="{_num(width)}"'
    return out


def _svg_rect(s: Rect) -> str:
    return (
        f'<rect x="{_num(s.x)}" y="{_num(s.y)}" width="{_num(s.w)}" height="{_num(s.h)}" '
        f"{_paint(s.fill, s.stroke, s.width)}/>"
    )


def _svg_circle(s: Circle) -> str:
    return (
        f'<circle cx="{_num(s.cx)}" cy="{_num(s.cy)}" r="{_num(s.r)}" '
        f"{_paint(s.fill, s.stroke, s.width)}/>"
    )


def _svg_polygon(s: Polygon) -> str:
    points = " ".join(f"{_num(x)},{_num(y)}" for x, y in s.points)
    return f'<polygon points="{points}" {_paint(s.fill, s.stroke, s.width)}/>'


def _svg_text(s: Text) -> str:
    size = s.size / 0.72  # a capital is about 0.72 em tall in the usual sans-serif faces
    return (
        f'<text x="{_num(s.x)}" y="{_num(s.y)}" font-family="DejaVu Sans Mono, monospace" '
        f'font-size="{_num(size)}" font-weight="bold" text-anchor="{s.anchor}" '
        f'dominant-baseline="central" fill="{_hex(s.fill)}">{escape(s.text)}</text>'
    )


_SVG: dict[type, Callable[[Any], str]] = {
    Rect: _svg_rect,
    Circle: _svg_circle,
    Polygon: _svg_polygon,
    Text: _svg_text,
}


__all__ = [
    "ANCHORS",
    "Circle",
    "Drawing",
    "Polygon",
    "Rect",
    "Text",
    "fit",
    "hexagon",
    "text_width",
    "to_rgb",
    "to_svg",
    "wrap",
]
