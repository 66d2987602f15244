"""How a person types Irk moves, and how another seat's secret choice is announced."""

from __future__ import annotations

import re
from typing import cast

from tabletop_envs.core.game import GameState
from tabletop_envs.core.registration import MoveSyntax
from tabletop_envs.core.seats import next_seat
from tabletop_envs.games.irk.rules import CHOOSE, ROUND_KINDS, IrkState

_ORIENT = {"down": 0, "d": 0, "right": 1, "r": 1, "up": 2, "u": 2, "left": 3, "l": 3}
_PLACE = re.compile(r"(?:place\s*)?(?:at\s*)?\(?\s*(\d+)\s*[,\s]\s*(\d+)\s*\)?\s*([a-z]+)")
_CHOOSE = re.compile(r"(?:choose\s*)?#?\s*(\d+)")


def parse(game: GameState, text: str) -> int | None:
    """Irk: ``choose 12`` / ``12`` (a tile id); ``place 9 7 right`` (row, col, orientation)."""
    low = text.strip().lower()
    if game.phase == CHOOSE:  # type: ignore[attr-defined]
        match = _CHOOSE.fullmatch(low)
        return int(match.group(1)) if match else None
    match = _PLACE.fullmatch(low)
    if not match or match.group(3) not in _ORIENT:
        return None
    row, col = int(match.group(1)), int(match.group(2))
    return game.placement_to_action(row, col, _ORIENT[match.group(3)])  # type: ignore[attr-defined]


def announce(state: GameState, action: int, viewer: int) -> str:
    """Irk: another seat's choice is secret until the bets are revealed or the tile is placed."""
    game = cast(IrkState, state)
    mover = game.current_player
    if game.phase != CHOOSE:  # the tile being placed is revealed as it is placed
        tile = game.chosen[mover]
        return f"places #{tile} {game.tile_label(tile)}: {game.action_to_string(action)}"
    text = f"plays {game.action_to_string(action)}" if mover == viewer else "chose a tile"
    if next_seat(mover, game.num_players) == game.box and ROUND_KINDS[game.round] == "bet":
        chosen = [action if s == mover else t for s, t in enumerate(game.chosen)]
        bets = ", ".join(f"player_{s} #{t} {game.tile_label(t)}" for s, t in enumerate(chosen))
        text += f"; the bets are revealed: {bets}"
    return text


SYNTAX = MoveSyntax(
    parser=parse,
    hint="Irk moves: 'choose 12' (or '12') picks hand tile #12; 'place 9 7 right' puts the top "
    "square on row 9, column 7, running down/right/up/left.",
    announcer=announce,
)
