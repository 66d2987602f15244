"""Irk: the rules core (pure; no gymnasium or pettingzoo). Rules: ``docs/rules/irk.md``.

Action ids: ``0 .. D-1`` choose the hand tile of that id (``D`` = deck size; tile id = index in
the deck); ``D + placement`` places the chosen tile, ``placement = (row * T + col) * 4 +
orientation`` (see :mod:`tabletop_envs.games.irk.placement`; ``T`` = table size).

Play: each round starts with a *choose* phase (one step per seat, box holder first, in seat
order; nobody sees another's choice). In a bet round the chosen tiles then go to their owners'
score piles at once. In a table round a *place* phase follows: from the box holder on, each
seat reveals and places its tile (one step). A revealed tile with no legal placement is
discarded automatically, with no step (it is public from then on); the box then passes.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from tabletop_envs.core.game import GameSpec, PhasedGameState
from tabletop_envs.core.params import check_int_range
from tabletop_envs.core.seats import next_seat, relative_seats
from tabletop_envs.games.irk.deck import COLORS, Tile, deck_tiles
from tabletop_envs.games.irk.encode import Encoding
from tabletop_envs.games.irk.facts import (
    ORDERS,
    Counts,
    add_counts,
    copy_lists,
    read_only,
    row_bytes,
    tile_counts,
)
from tabletop_envs.games.irk.facts import game_spec as _spec
from tabletop_envs.games.irk.hidden import SecretChoices
from tabletop_envs.games.irk.ids import ActionIds
from tabletop_envs.games.irk.observation import (
    NUM_ROUNDS,
    TABLE_CHANNELS,
    ObservationLayout,
    observation_layout,
)
from tabletop_envs.games.irk.params import (
    CHOOSE,
    DEFAULT_TABLE_SIZE,
    HAND_SIZE,
    MAX_DECK,
    MAX_PLAYERS,
    MAX_TABLE,
    MIN_PLAYERS,
    MIN_TABLE,
    OVER,
    PHASE_NAMES,
    PLACE,
    REWARD_MODES,
    ROUND_KINDS,
    IrkParams,
    opening_count,
    opening_placement,
)
from tabletop_envs.games.irk.placement import (
    CODE_WEIGHTS,
    FOOTPRINTS,
    PlacementTables,
    placement_tables,
    tile_allowed,
    why_illegal,
)
from tabletop_envs.games.irk.scoring import (
    TableAfter,
    cell_group_values,
    cell_table_values,
    final_rewards,
    score_result,
)

#: Table channel of the stack height; the group planes (if any) follow it.
HEIGHT = len(TABLE_CHANNELS) - 1

# the parameters and phase constants live in params.py; they stay importable from here
# fmt: off
__all__ = [
    "CHOOSE", "DEFAULT_TABLE_SIZE", "HAND_SIZE", "HEIGHT", "MAX_DECK", "MAX_PLAYERS",
    "MAX_TABLE", "MIN_PLAYERS", "MIN_TABLE", "OVER", "PHASE_NAMES", "PLACE", "REWARD_MODES",
    "ROUND_KINDS", "IrkParams", "IrkState", "opening_count", "opening_placement",
]
# fmt: on


class IrkState(ActionIds, SecretChoices, Encoding, PhasedGameState):
    """A position of Irk: hands, secret choices, score piles and the stacked table."""

    # fmt: off
    __slots__ = (
        "_after", "_cell_bytes", "_contact", "_contact_ids", "_mask", "_obs_base", "_pile_count",
        "_pile_stars", "_place_ids", "_result", "_returns", "_revealed", "_spec", "_table_obs",
        "_tile_counts", "_values", "box", "chosen", "discards", "hands", "height", "layout",
        "piles", "placements", "round", "steps", "tables", "tiles", "unused", "visible",
    )
    # fmt: on

    game_name = "irk"
    over_phase = OVER
    params_class = IrkParams
    #: Per place action of a cell (orientation), the (row, col) offsets of the cells it covers
    #: from that cell, top square first: read by the ``cells`` policy's footprint head.
    cell_action_footprint = FOOTPRINTS
    #: The observation section (with ``action_values=True``) holding features per action id:
    #: read by the ``cells`` policy's head.
    action_values_section = "action_values"
    #: Parameters of the observation only (extra planes and sections, the same rules): an agent
    #: made for other values of them reads a position through ``with_observation``.
    observation_params = frozenset({"group_planes", "action_values"})

    def board_planes(self) -> tuple[int, tuple[int, int, int]] | None:
        """Return where the table's planes lie in the flat observation: ``(start, (T, T, C))``."""
        part = self.layout.slice("table")
        t = int(self.layout.table_size)
        return int(part.start), (t, t, (part.stop - part.start) // (t * t))

    def observation_section(self, name: str) -> tuple[int, int] | None:
        """Return ``(start, length)`` of a section of :func:`observation_layout`, or None."""
        if name not in self.layout.start:
            return None
        part = self.layout.slice(name)
        return int(part.start), int(part.stop - part.start)

    # ---- set-up -------------------------------------------------------------------------
    def _setup(self) -> None:
        p = self.params
        n, d = p.num_players, len(p.deck)
        perm = self.rng.permutation(d).tolist()
        self.hands = [sorted(perm[HAND_SIZE * i : HAND_SIZE * (i + 1)]) for i in range(n)]
        k = opening_count(n)
        opening = perm[HAND_SIZE * n : HAND_SIZE * n + k]
        self.unused = sorted(perm[HAND_SIZE * n + k :])
        t = p.table_size
        # entries are (seat, tile, placement) tuples: immutable, so copies share them
        self.placements = [(-1, tile, opening_placement(t, k, j)) for j, tile in enumerate(opening)]
        self.chosen = [-1] * n
        self.piles: list[list[int]] = [[] for _ in range(n)]
        self.discards: list[tuple[int, int, int]] = []  # (seat, tile, round)
        self.round = 0
        self.phase = CHOOSE
        self.box = 0
        self.to_move = 0
        self.steps = 0
        self._derive()

    def _derive(self) -> None:
        """Rebuild every cache from the lists of the state."""
        p = self.params
        t = p.table_size
        self.tables: PlacementTables = placement_tables(t)
        self.tiles: tuple[Tile, ...] = deck_tiles(p.deck)
        self._tile_counts = tile_counts(p.deck)
        self.layout: ObservationLayout = observation_layout(
            t, p.num_players, len(p.deck), p.group_planes, p.action_values
        )
        self._spec = _spec(p.num_players, t, p.deck, p.reward, p.group_planes, p.action_values)
        self._values: dict[int, np.ndarray] = {}  # action_values section per seat, once computed
        self._after: TableAfter | None = None  # the table for those values
        n_cells = t * t
        self.visible = np.zeros(n_cells + 1, dtype=np.intp)  # + off-table sentinel (EMPTY)
        self.height = np.zeros(n_cells, dtype=np.int16)
        self._contact = np.zeros(self.tables.num_placements, dtype=bool)
        # the placements in contact and their cells, once asked for
        self._contact_ids: tuple[np.ndarray, np.ndarray] | None = None
        # the observation's seat-independent sections live in one buffer, copied out per call
        self._obs_base: np.ndarray = np.zeros(self.layout.size, dtype=self._spec.observation_dtype)
        self._views()
        for _seat, tile, placement in self.placements:
            self._put(tile, placement)
        self._update_groups()
        n = p.num_players
        # per seat, per color: the pile's summed flower values and stars (tuples: copies of the
        # lists share them; a change replaces a seat's tuple)
        none = (0,) * len(COLORS)
        self._pile_count: list[Counts] = [none] * n
        self._pile_stars: list[Counts] = [none] * n
        for seat, pile in enumerate(self.piles):
            for tile in pile:
                self._add_to_pile(seat, tile)
        for _seat, tile, _round in self.discards:
            self._revealed[tile] = 1
        if self.phase == PLACE:
            self._revealed[self.chosen[self.to_move]] = 1
        self._place_ids: np.ndarray | None = None  # place phase: the legal ids, once known
        self._mask: np.ndarray | None = None
        self._result: dict[str, Any] = {}
        self._returns = read_only(np.zeros(n))
        if self.phase == OVER:
            self._score()

    def _views(self) -> None:
        """Point the table planes and revealed tiles at their sections of ``_obs_base``."""
        at = self.layout.start
        cells = self.params.table_size**2
        self._table_obs = self._obs_base[: at["hand"]].reshape(cells, len(self.layout.channels))
        self._revealed = self._obs_base[at["revealed"] : at["revealed"] + self.deck_size]
        # what _put writes a cell's first channels with: the bytes per (code, height) and a
        # cell's stride in bytes
        base = self._obs_base
        self._cell_bytes = (row_bytes(base.dtype), base.itemsize * len(self.layout.channels))

    def _put(self, tile: int, placement: int) -> None:
        """Lay ``tile`` on the table (no legality check) and update the caches."""
        if not self.visible.flags.writeable:  # shared with a copy
            self._own()
        codes = self.tiles[tile]
        height = self.height
        visible = self.visible
        rows, step = self._cell_bytes
        table = self._obs_base.data.cast("B")  # raw bytes: no numpy call per write
        newly = False
        for k, cell in enumerate(self.tables.cell_lists[placement]):
            h = height.item(cell) + 1
            height[cell] = h
            code = codes[k]
            visible[cell] = code
            if h == 1:
                newly = True
            row = rows[code][h]
            at = cell * step
            table[at : at + len(row)] = row
        if newly:  # a cell newly occupied: its neighbourhood is in contact now
            self._contact[self.tables.near(placement)] = True
            self._contact_ids = None
        self._revealed[tile] = 1

    def _update_groups(self) -> None:
        """Refill the group planes (``group_planes=True``) from the visible table."""
        if not self.params.group_planes:
            return
        if not self.visible.flags.writeable:  # shared with a copy
            self._own()
        cells = self.occupied_cells()
        planes = self._table_obs[:, HEIGHT + 1 :]
        planes[list(cells)] = 0  # only occupied cells ever hold a group, and they stay occupied
        size = self.params.table_size
        for color, values in enumerate(cell_group_values(cells, (size, size))):
            if values:
                planes[list(values), color] = list(values.values())

    def occupied_cells(self) -> dict[int, int]:
        """Return ``{cell index: visible square code}`` of every occupied cell of the table."""
        occupied = self.height.nonzero()[0]
        return dict(zip(occupied.tolist(), self.visible[occupied].tolist(), strict=True))

    def _add_to_pile(self, seat: int, tile: int) -> None:
        if not self.visible.flags.writeable:  # shared with a copy
            self._own()
        counts, stars = self._tile_counts
        self._pile_count[seat] = add_counts(self._pile_count[seat], counts[tile])
        self._pile_stars[seat] = add_counts(self._pile_stars[seat], stars[tile])
        self._revealed[tile] = 1

    def _add_bets(self) -> None:
        """Put every seat's chosen tile on its score pile (``_add_to_pile`` for every seat, with
        one copy check)."""
        if not self.visible.flags.writeable:  # shared with a copy
            self._own()
        chosen = self.chosen
        counts, stars = self._tile_counts
        pile_count, pile_stars, revealed = self._pile_count, self._pile_stars, self._revealed
        for s, pile in enumerate(self.piles):
            tile = chosen[s]
            pile_count[s] = add_counts(pile_count[s], counts[tile])
            pile_stars[s] = add_counts(pile_stars[s], stars[tile])
            revealed[tile] = 1
            pile.append(tile)
            chosen[s] = -1

    # ---- static facts -------------------------------------------------------------------
    @property
    def spec(self) -> GameSpec:
        """Return Irk's static facts for these parameters."""
        return self._spec

    # ---- dynamics -----------------------------------------------------------------------
    @property
    def round_kind(self) -> str:
        """Return ``"bet"`` or ``"table"`` (``"over"`` after the last round)."""
        return ROUND_KINDS[self.round] if self.round < NUM_ROUNDS else "over"

    def placements_of(self, tile: int) -> np.ndarray:
        """Return the legal placement indices of ``tile`` on the current table, ascending."""
        if type(tile) is not int or not 0 <= tile < self.deck_size:  # the hot path skips this
            tile = check_int_range("tile", tile, 0, self.deck_size - 1)
        contact = self._contact_ids
        if contact is None:
            candidates = self._contact.nonzero()[0].copy()  # not a view of nonzero's 2-D result
            cells = self.tables.cells.take(candidates, axis=0)  # [candidates], ~4x faster
            # read-only caches: copies of the state share them
            candidates.setflags(write=False)
            cells.setflags(write=False)
            contact = self._contact_ids = (candidates, cells)
        # placement.legal_among, inlined: the candidates whose covers the tile may make
        candidates, cells = contact
        return candidates[tile_allowed(self.tiles[tile])[self.visible[cells] @ CODE_WEIGHTS]]

    def _legal(self) -> np.ndarray:
        """Return the cached legality mask of this position (read-only: copies share it)."""
        mask = self._mask
        if mask is None:
            mask = np.zeros(self._spec.num_actions, dtype=np.int8)
            if self.phase == CHOOSE:
                for tile in self.hands[self.to_move]:  # a few ids: no list-to-array conversion
                    mask[tile] = 1
            elif self.phase == PLACE:
                mask[self._placing_ids()] = 1
            mask.setflags(write=False)
            self._mask = mask
        return mask

    def _placing_ids(self) -> np.ndarray:
        """Return the legal place ids of the tile being placed, ascending (place phase; cached,
        read-only: copies share it)."""
        ids = self._place_ids
        if ids is None:
            ids = self._place_ids = read_only(
                self.deck_size + self.placements_of(self.chosen[self.to_move])
            )
        return ids

    def legal_mask(self) -> np.ndarray:
        """Return a fresh int8 mask of the legal actions (all zeros once the game is over)."""
        return self._legal().copy()

    def legal_actions(self) -> list[int]:
        """Return the legal action ids, ascending (no mask needed: the hand, or the cached
        place ids)."""
        if self.phase == CHOOSE:
            return self.hands[self.to_move].copy()  # hands are kept sorted
        if self.phase == PLACE:
            return self._placing_ids().tolist()
        return []

    def acting_seats(self) -> tuple[int, ...]:
        """Return the seats still to choose this round (choose phase), else the placer alone.

        Choices are simultaneous: a seat's hand and view do not change while the others choose,
        so the choose phase may be one joint step, applied from ``to_move`` in seat order.
        """
        if self.phase == CHOOSE:
            n = self.params.num_players
            return tuple(s for s in relative_seats(self.to_move, n) if self.chosen[s] < 0)
        return () if self.phase == OVER else (self.to_move,)

    def legal_mask_of(self, seat: int) -> np.ndarray:
        """Return ``seat``'s legal actions: its hand if it has yet to choose, else as the mover."""
        seat = self._check_seat(seat)
        if self.phase == CHOOSE and self.chosen[seat] < 0:
            mask = np.zeros(self.spec.num_actions, dtype=np.int8)
            mask[self.hands[seat]] = 1
            return mask
        if seat == self.current_player:
            return self.legal_mask()
        return np.zeros(self.spec.num_actions, dtype=np.int8)

    def _apply(self, action: int) -> None:
        """Play ``action`` for the seat to move; IllegalActionError leaves the state as is."""
        if type(action) is not int:
            action = self._check_action_type(action)
        phase = self.phase
        if phase == CHOOSE:
            legal = action in self.hands[self.to_move]  # what the mask marks
        elif phase == PLACE:
            ids = self._placing_ids()
            at = int(ids.searchsorted(action))
            legal = at < len(ids) and int(ids[at]) == action
        else:
            legal = False
        if not legal:
            raise self._illegal(action, self._why_illegal(self._check_action_type(action)))
        self.steps += 1
        self._mask = None
        self._place_ids = None
        if self._values:
            self._values = {}
        self._after = None
        seat = self.to_move
        n = self.params.num_players
        if self.phase == CHOOSE:
            self.hands[seat].remove(action)
            self.chosen[seat] = action
            nxt = next_seat(seat, n)
            if nxt != self.box:
                self.to_move = nxt
            elif ROUND_KINDS[self.round] == "bet":
                self._add_bets()
                self._next_round()
            else:
                self.phase = PLACE
                self._next_placer(self.box)
        else:
            tile = self.chosen[seat]
            self.chosen[seat] = -1
            placement = action - self.deck_size
            self.placements.append((seat, tile, placement))
            self._put(tile, placement)
            self._update_groups()
            self._next_placer(next_seat(seat, n))

    def _next_placer(self, start: int) -> None:
        """Hand the move to the next seat with a tile to place, discarding unplaceable tiles."""
        n = self.params.num_players
        for seat in ORDERS[n][start]:
            tile = self.chosen[seat]
            if tile < 0:
                continue
            legal = self.placements_of(tile)
            if not self.visible.flags.writeable:  # shared with a copy
                self._own()
            self._revealed[tile] = 1  # revealed now, placed or discarded
            if len(legal):
                self.to_move = seat
                legal += len(self.params.deck)  # a fresh array: the place ids, in place
                self._place_ids = read_only(legal)  # the mask: when asked
                return
            self.discards.append((seat, tile, self.round))
            self.chosen[seat] = -1
        self._mask = None
        self._place_ids = None
        self.box = next_seat(self.box, n)
        self._next_round()

    def _next_round(self) -> None:
        self.round += 1
        if self.round == NUM_ROUNDS:
            self.phase = OVER
            self.to_move = self.box
            self._score()
        else:
            self.phase = CHOOSE
            self.to_move = self.box

    def _why_illegal(self, action: int) -> str:
        d = self.deck_size
        if self.phase == CHOOSE:
            hand = self.hands[self.to_move]
            if action >= d:
                return f"this is the choose phase: pick a tile id of your hand {hand}"
            return f"tile #{action} ({self.tile_label(action)}) is not in your hand {hand}"
        if action < d:
            return "this is the place phase: play a place id (deck size + placement index)"
        tile = self.chosen[self.to_move]
        grid = self.visible[:-1]
        reason = why_illegal(grid, self.tiles[tile], self.params.table_size, action - d)
        return reason or "not legal"

    # ---- scoring ------------------------------------------------------------------------
    def visible_grid(self) -> np.ndarray:
        """Return a fresh ``(T, T)`` array of the visible square codes (0 where empty)."""
        t = self.params.table_size
        return self.visible[:-1].reshape(t, t).copy()

    def score(self) -> dict[str, Any]:
        """Return :func:`~tabletop_envs.games.irk.scoring.score_game` of the current position."""
        t = self.params.table_size
        values = cell_table_values(self.occupied_cells(), (t, t))
        counts = [list(c) for c in self._pile_count]
        return score_result(values, counts, [list(s) for s in self._pile_stars])

    def pile_totals(self, seat: int) -> tuple[Counts, Counts]:
        """Return ``seat``'s score pile per color: its summed flower values and its stars."""
        seat = self._check_seat(seat)
        return self._pile_count[seat], self._pile_stars[seat]

    def _score(self) -> None:
        result = self.score()
        self._returns = read_only(
            np.array(final_rewards(result, self.params.reward), dtype=np.float64)
        )
        result["discards"] = [list(x) for x in self.discards]
        self._result = result

    def returns(self) -> np.ndarray:
        """Return the final rewards (win mode: +1 sole winner, 0 shared, -1 others; score mode:
        points), zeros before the end."""
        return self._returns.copy()

    def result_info(self) -> dict[str, Any]:
        """Return the full score result (plain JSON types) once the game is over."""
        if self.phase != OVER:
            return {}
        return {k: copy_lists(v) for k, v in self._result.items()}

    # ---- information (the observation: encode.py; redrawing hidden tiles: hidden.py) -----
    def _table_after(self) -> TableAfter:
        """Return the table the ``action_values`` are computed on (kept until the next step)."""
        t = self.params.table_size
        after = self._after = TableAfter(self.occupied_cells(), (t, t))
        return after

    def render_text(self, seat: int | None = None) -> str:
        """Return the table, score piles and status (plus ``seat``'s hand if given)."""
        from tabletop_envs.games.irk.text import render

        return render(self, None if seat is None else self._check_seat(seat))

    def public_outcome(self) -> bytes | None:
        """Return the revealed tiles, a byte per deck tile (None mid-choose: nothing shown)."""
        if self.phase == CHOOSE and max(self.chosen) >= 0:  # mid-choose
            return None
        revealed = self._revealed  # 0 or 1 per tile: int8 holds the very bytes of uint8
        return revealed.tobytes() if revealed.itemsize == 1 else revealed.astype(np.uint8).tobytes()

    # ---- copies and persistence ---------------------------------------------------------
    def clone(self, *, copy_hands: bool = True) -> IrkState:
        """Return an independent copy.

        The table and pile arrays are copied on write: the copy and this state share them
        read-only, and whichever changes them first takes its own copy (``_own``).
        ``copy_hands=False`` (for ``resample_hidden``, which deals new ones) leaves ``hands``,
        ``chosen`` and ``unused`` bound to this state's lists: the caller replaces them.
        """
        if self.visible.flags.writeable:  # the arrays are this state's own: share them
            self._share()
        new = self._shallow_copy()
        if copy_hands:
            new.hands = [h.copy() for h in self.hands]
            new.chosen = self.chosen.copy()
            new.unused = self.unused.copy()
        new.piles = [p.copy() for p in self.piles]
        new._pile_count = self._pile_count.copy()  # of tuples
        new._pile_stars = self._pile_stars.copy()
        new.discards = self.discards.copy()  # of tuples
        new.placements = self.placements.copy()
        new._result = copy.deepcopy(self._result) if self._result else {}
        new._values = {}  # per seat: resample_hidden changes other seats' hands
        new._after = None
        # _mask, _place_ids, _contact_ids and _returns are read-only, shared: a copy need not
        # recompute them
        return new

    def _share(self) -> None:
        """Make the table and pile arrays read-only, to be shared with copies (``visible`` being
        read-only says that they all are, and that a change must ``_own`` them first)."""
        for array in (
            self.visible,
            self.height,
            self._contact,
            self._obs_base,
            self._table_obs,
            self._revealed,
        ):
            array.setflags(write=False)

    def _own(self) -> None:
        """Take writable copies of the shared table and pile arrays (before changing them)."""
        self.visible = self.visible.copy()
        self.height = self.height.copy()
        self._contact = self._contact.copy()
        self._obs_base = self._obs_base.copy()
        self._views()

    def _state_dict(self) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in self.hands],
            "chosen": list(self.chosen),
            "piles": [list(p) for p in self.piles],
            "unused": list(self.unused),
            "discards": [list(x) for x in self.discards],
            "placements": [list(x) for x in self.placements],
            "round": self.round,
            "phase": self.phase,
            "box": self.box,
            "to_move": self.to_move,
            "steps": self.steps,
        }

    def _load_state_dict(self, data: Any) -> None:
        """Restore a saved state; every field and invariant is checked first (``saved.py``)."""
        from tabletop_envs.games.irk.saved import read_saved_state

        for name, value in read_saved_state(self.params, data).items():
            if name in ("placements", "discards"):
                value = [tuple(x) for x in value]
            setattr(self, name, value)
        self._derive()
