"""Irk's observation of one seat: a mixin of :class:`~tabletop_envs.games.irk.rules.IrkState`.

The layout is declared in :mod:`tabletop_envs.games.irk.observation`; this writes a position
into it. Kept apart from the rules so that the rules file stays within its size.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from tabletop_envs.games.irk.deck import COLORS
from tabletop_envs.games.irk.facts import ORDERS, Counts
from tabletop_envs.games.irk.observation import NUM_ROUNDS, ObservationLayout
from tabletop_envs.games.irk.params import PLACE, ROUND_KINDS
from tabletop_envs.games.irk.placement import PlacementTables
from tabletop_envs.games.irk.scoring import TableAfter

if TYPE_CHECKING:
    from tabletop_envs.core.game import GameSpec
    from tabletop_envs.games.irk.deck import Tile
    from tabletop_envs.games.irk.params import IrkParams


class Encoding:
    """:meth:`observation` of Irk and the ``action_values`` section it may carry."""

    __slots__ = ()

    params: IrkParams
    layout: ObservationLayout
    phase: int
    round: int
    box: int
    to_move: int
    chosen: list[int]
    hands: list[list[int]]
    tiles: tuple[Tile, ...]
    tables: PlacementTables
    _obs_base: np.ndarray
    _pile_count: list[Counts]
    _pile_stars: list[Counts]
    _values: dict[int, np.ndarray]
    _after: TableAfter | None

    if TYPE_CHECKING:  # provided by IrkState and its base

        @property
        def spec(self) -> GameSpec: ...
        @property
        def deck_size(self) -> int: ...
        def _check_seat(self, seat: Any) -> int: ...
        def placements_of(self, tile: int) -> np.ndarray: ...
        def _table_after(self) -> TableAfter: ...

    def observation(self, seat: int) -> np.ndarray:
        """Return the flat observation of ``seat`` (``spec.observation_dtype``; int8 unless a
        custom deck's bounds need int16; layout: ``observation_layout``)."""
        if type(seat) is not int or not 0 <= seat < self.params.num_players:
            seat = self._check_seat(seat)
        at = self.layout.start
        n = self.params.num_players
        out = self._obs_base.copy()  # table planes and revealed tiles; other sections zero
        chosen = self.chosen
        ones = [at["hand"] + t for t in self.hands[seat]]
        if chosen[seat] >= 0:
            ones.append(at["chosen"] + chosen[seat])
        place = self.phase == PLACE
        if place:
            ones.append(at["placing"] + chosen[self.to_move])
        # pile_count .. box_holder: one run of entries, written at once
        order = ORDERS[n][seat]
        counts = self._pile_count
        stars = self._pile_stars
        tail: list[int] = []
        for s in order:
            tail += counts[s]
        for s in order:
            tail += stars[s]
        hands = self.hands
        tail += [len(hands[s]) for s in order]
        tail += [chosen[s] >= 0 for s in order]
        rounds = [0] * (NUM_ROUNDS + 2)  # round one-hot, table_round, place_phase
        if self.round < NUM_ROUNDS:
            rounds[self.round] = 1
            if ROUND_KINDS[self.round] == "table":
                rounds[NUM_ROUNDS] = 1
        if place:
            rounds[NUM_ROUNDS + 1] = 1
        tail += rounds
        box = [0] * n
        box[(self.box - seat) % n] = 1
        tail += box
        first = at["pile_count"]
        if out.itemsize == 1:  # int8: every entry is 0..127, written as raw bytes (no numpy call)
            raw = out.data.cast("B")
            for i in ones:
                raw[i] = 1
            raw[first : first + len(tail)] = bytes(tail)
        else:
            if ones:  # empty once the game is over
                out[ones] = 1
            out[first : first + len(tail)] = tail
        if self.params.action_values and self.round < NUM_ROUNDS:
            out[at["action_values"] :] = self._action_values(seat)
        return out

    def _action_values(self, seat: int) -> np.ndarray:
        """Return the ``action_values`` section for ``seat`` (computed once per position).

        Place phase: each legal placement's table values (public: shared by every seat).
        Choose phase of a table round: per tile of ``seat``'s hand, per color, the best value
        over its legal placements. Zero otherwise (bet rounds).
        """
        key = -1 if self.phase == PLACE else seat
        values = self._values.get(key)
        if values is None:
            d = self.deck_size
            values = np.zeros((self.spec.num_actions, len(COLORS)), self.spec.observation_dtype)
            if self.phase == PLACE:
                for placement, after in self._placed_values(self.chosen[self.to_move]):
                    values[d + placement] = after
            elif ROUND_KINDS[self.round] == "table":
                for tile in self.hands[seat]:
                    for _, after in self._placed_values(tile):
                        np.maximum(values[tile], after, out=values[tile])
            values = self._values[key] = values.ravel()
        return values

    def _placed_values(self, tile: int) -> Iterator[tuple[int, list[int]]]:
        """Yield ``(placement, table values after it)`` for each legal placement of ``tile``."""
        after = self._after
        if after is None:
            after = self._table_after()
        codes = self.tiles[tile]
        footprints = self.tables.cells
        for placement in self.placements_of(tile).tolist():
            yield placement, after.values(codes, footprints[placement].tolist())
