"""Irk's parameters and the constants of its rounds and phases (no rules logic).

Kept apart from :mod:`tabletop_envs.games.irk.rules` so that the saved-state reader and the
text picture read them without importing the rules (which import both of them).
"""

from __future__ import annotations

from dataclasses import dataclass

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.params import check_bool, check_choice, check_int_range
from tabletop_envs.games.irk.deck import STANDARD_DECK, normalize_deck

MIN_PLAYERS, MAX_PLAYERS = 2, 4
MIN_TABLE, MAX_TABLE = 5, 64
#: Default table side, measured by ``benchmarks/irk_table_size.py`` (see ``docs/irk.md``).
DEFAULT_TABLE_SIZE = 31
MAX_DECK = 200
HAND_SIZE = 7
ROUND_KINDS = ("bet", "table", "table", "bet", "table", "table", "bet")
REWARD_MODES = ("win_loss", "score")

CHOOSE, PLACE, OVER = 0, 1, 2
PHASE_NAMES = ("choose", "place", "over")


def opening_count(num_players: int) -> int:
    """Return how many tiles open the table: 5 with 2 or 3 players, 2 with 4."""
    return 5 if num_players <= 3 else 2


def opening_placement(table_size: int, count: int, j: int) -> int:
    """Return the placement of opening tile ``j`` of ``count``: upright, side by side, centred."""
    row, col = (table_size - 3) // 2, (table_size - count) // 2
    return (row * table_size + col + j) * 4


@dataclass(frozen=True)
class IrkParams:
    """Parameters of Irk: players, table side, deck (tile strings), reward mode, group planes.

    ``group_planes`` adds ``observation.GROUP_CHANNELS`` to every table cell of the observation;
    ``action_values`` adds the section ``action_values``: per action, each color's table value
    after it (place ids; for a choose id of a table round, the best over the tile's placements).
    """

    num_players: int = 2
    table_size: int = DEFAULT_TABLE_SIZE
    deck: tuple[str, ...] = STANDARD_DECK
    reward: str = "win_loss"  # or "score": each player's final points
    group_planes: bool = False
    action_values: bool = False

    def __post_init__(self) -> None:
        n = check_int_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        t = check_int_range("table_size", self.table_size, MIN_TABLE, MAX_TABLE)
        check_choice("reward", self.reward, REWARD_MODES)
        object.__setattr__(self, "group_planes", check_bool("group_planes", self.group_planes))
        object.__setattr__(self, "action_values", check_bool("action_values", self.action_values))
        deck = normalize_deck(self.deck)
        need = HAND_SIZE * n + opening_count(n)
        if not need <= len(deck) <= MAX_DECK:
            raise InvalidParameterError(
                f"deck must hold from {need} tiles ({HAND_SIZE} per player for {n} players "
                f"plus {opening_count(n)} opening tiles) to {MAX_DECK} tiles, got {len(deck)}"
            )
        object.__setattr__(self, "num_players", n)
        object.__setattr__(self, "table_size", t)
        object.__setattr__(self, "deck", deck)
