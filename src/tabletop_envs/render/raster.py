"""A tiny numpy raster: filled shapes on an RGB uint8 canvas (no Pillow, no pygame)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

Color = tuple[int, int, int]


def canvas(height: int, width: int, color: Color = (240, 236, 226)) -> np.ndarray:
    """Return an ``(height, width, 3)`` uint8 image filled with ``color``."""
    img = np.empty((height, width, 3), dtype=np.uint8)
    img[:] = color
    return img


def _window(
    img: np.ndarray, x0: float, y0: float, x1: float, y1: float
) -> tuple[tuple[slice, slice], np.ndarray, np.ndarray]:
    h, w = img.shape[:2]
    ya, yb = max(math.floor(y0), 0), min(math.ceil(y1) + 1, h)
    xa, xb = max(math.floor(x0), 0), min(math.ceil(x1) + 1, w)
    ys = np.arange(ya, yb)[:, None] + 0.5
    xs = np.arange(xa, xb)[None, :] + 0.5
    return (slice(ya, yb), slice(xa, xb)), xs, ys


def fill_rect(img: np.ndarray, x0: float, y0: float, x1: float, y1: float, color: Color) -> None:
    """Fill the axis-aligned rectangle from ``(x0, y0)`` to ``(x1, y1)`` (pixel coordinates)."""
    (sy, sx), xs, ys = _window(img, x0, y0, x1, y1)
    inside = (xs >= x0) & (xs < x1) & (ys >= y0) & (ys < y1)
    img[sy, sx][inside] = color


def fill_circle(img: np.ndarray, cx: float, cy: float, radius: float, color: Color) -> None:
    """Fill the disc of ``radius`` centred on ``(cx, cy)``."""
    (sy, sx), xs, ys = _window(img, cx - radius, cy - radius, cx + radius, cy + radius)
    inside = (xs - cx) ** 2 + (ys - cy) ** 2 <= radius * radius
    img[sy, sx][inside] = color


def fill_polygon(img: np.ndarray, points: Sequence[tuple[float, float]], color: Color) -> None:
    """Fill a convex polygon given by its corners in order (either winding)."""
    px = [p[0] for p in points]
    py = [p[1] for p in points]
    (sy, sx), xs, ys = _window(img, min(px), min(py), max(px), max(py))
    n = len(points)
    cross = []
    for i in range(n):
        ax, ay = points[i]
        bx, by = points[(i + 1) % n]
        cross.append((bx - ax) * (ys - ay) - (by - ay) * (xs - ax))
    inside = np.all([c >= 0 for c in cross], axis=0) | np.all([c <= 0 for c in cross], axis=0)
    img[sy, sx][inside] = color


def hexagon(cx: float, cy: float, radius: float) -> list[tuple[float, float]]:
    """Return the corners of a pointy-top hexagon of circumradius ``radius``."""
    return [
        (
            cx + radius * math.cos(math.radians(60 * k - 30)),
            cy + radius * math.sin(math.radians(60 * k - 30)),
        )
        for k in range(6)
    ]
