"""Irk (Pack O Game): secret simultaneous choices, tile stacking and majorities, 2-4 players."""

from tabletop_envs.games.irk.deck import STANDARD_DECK
from tabletop_envs.games.irk.rules import IrkParams, IrkState
from tabletop_envs.games.irk.scoring import score_game

__all__ = ["STANDARD_DECK", "IrkParams", "IrkState", "score_game"]
