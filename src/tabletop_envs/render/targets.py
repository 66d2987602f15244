"""Where a picture's moves are: the clickable places of a :class:`~.draw.Drawing`.

A game's image module may offer ``targets(state, seat) -> list[Target]`` beside its
``drawing(state, seat)`` (declared as ``targets`` in its ``EnvSpec``): for the seat to move,
every place of that seat's picture where an action of the game can be clicked, legal or not, in
the drawing's pixel coordinates. The two functions share their layout, so a click always lands
on what the picture shows. Which targets are legal is not said here: the action mask says it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Box:
    """A clickable rectangle; ``round``: the ellipse inscribed in it (a disc, a hexagon)."""

    x: float
    y: float
    w: float
    h: float
    round: bool = False

    def to_dict(self) -> dict[str, Any]:
        """Return the box as JSON-ready data, coordinates rounded to 0.01 pixel."""
        out: dict[str, Any] = {k: round(v, 2) for k, v in zip("xywh", self._xywh(), strict=True)}
        out["round"] = self.round
        return out

    def _xywh(self) -> tuple[float, float, float, float]:
        return (self.x, self.y, self.w, self.h)


@dataclass(frozen=True)
class Target:
    """Action ``action`` is played by clicking any of ``boxes``.

    ``group`` says in a few words what a click there picks (``"a square for a stone"``, ``"a
    tile of your hand"``): a page tells the person so; ``preview`` boxes are shown while pointing at
    the target (Iris: the opposite cell a colored first stone forces).
    """

    action: int
    boxes: tuple[Box, ...]
    group: str = ""
    preview: tuple[Box, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the target as JSON-ready data."""
        return {
            "action": int(self.action),
            "group": self.group,
            "boxes": [b.to_dict() for b in self.boxes],
            "preview": [b.to_dict() for b in self.preview],
        }


__all__ = ["Box", "Target"]
