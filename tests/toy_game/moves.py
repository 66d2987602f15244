"""How a person types Pebbles moves: ``take 2``, ``t2`` or ``2`` (pebbles, not an action id)."""

from __future__ import annotations

import re

from tabletop_envs.core.game import GameState
from tabletop_envs.core.registration import MoveSyntax

from .rules import NUM_ACTIONS

_TAKE = re.compile(r"(?:take|t)?\s*(\d+)")


def parse(game: GameState, text: str) -> int | None:
    """Return the action taking the typed number of pebbles (None: not a Pebbles move)."""
    match = _TAKE.fullmatch(text.strip().lower())
    if match is None:
        return None
    count = int(match.group(1))
    if not 1 <= count <= NUM_ACTIONS:
        raise ValueError(f"take 1 to {NUM_ACTIONS} pebbles, not {count}")
    return count - 1


SYNTAX = MoveSyntax(
    parser=parse,
    hint=f"Pebbles moves: 'take N' (or 'tN', or 'N') with N from 1 to {NUM_ACTIONS}.",
)
