"""How a person types Iris moves: ``q r``, ``q,r`` or ``(q, r)`` axial cells, and ``pass``."""

from __future__ import annotations

import re

from tabletop_envs.core.game import GameState
from tabletop_envs.core.registration import MoveSyntax

_PAIR = re.compile(r"\(?\s*(-?\d+)\s*[,\s]\s*(-?\d+)\s*\)?")


def parse(game: GameState, text: str) -> int | None:
    """Iris: ``q r`` / ``q,r`` / ``(q, r)`` axial cells, ``pass``."""
    low = text.strip().lower()
    if low in ("pass", "p", "forfeit"):
        return game.pass_action  # type: ignore[attr-defined]
    match = _PAIR.fullmatch(low)
    if not match:
        return None
    q, r = int(match.group(1)), int(match.group(2))
    return game.coord_to_action(q, r)  # type: ignore[attr-defined]


SYNTAX = MoveSyntax(
    parser=parse,
    hint="Iris moves: a cell as 'q r' or '(q, r)' (axial: (0, 0) is the centre, q grows to the "
    "right, r downwards), or 'pass'.",
)
