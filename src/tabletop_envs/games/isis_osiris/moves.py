"""How a person types Isis & Osiris moves: ``reveal``, or a square like ``c2``."""

from __future__ import annotations

import re

from tabletop_envs.core.game import GameState
from tabletop_envs.core.registration import MoveSyntax
from tabletop_envs.games.isis_osiris.tables import PLACE, TILE_BASE, coord_to_square

_SQUARE = re.compile(r"(?:(stone|tile|s|t)\s*)?([a-f])\s*([1-6])")


def parse(game: GameState, text: str) -> int | None:
    """Isis & Osiris: ``reveal``; ``c2`` (a stone, or the revealed tile while placing one)."""
    low = text.strip().lower()
    if low in ("reveal", "r"):
        return game.reveal_action  # type: ignore[attr-defined]
    match = _SQUARE.fullmatch(low)
    if not match:
        return None
    kind, col, row = match.groups()
    square = coord_to_square(int(row) - 1, "abcdef".index(col))
    placing = game.phase == PLACE  # type: ignore[attr-defined]
    if kind in ("tile", "t") or (kind is None and placing):
        return TILE_BASE + square
    return square


SYNTAX = MoveSyntax(
    parser=parse,
    hint="Isis & Osiris moves: a square like 'c2' (column a-f, row 1-6) for a stone, or for the "
    "tile just revealed; 'reveal' to turn over your top tile.",
)
