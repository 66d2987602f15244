"""Isis & Osiris: the rules core (pure; no gymnasium or pettingzoo).

Rules: ``docs/rules/isis_osiris.md``. Squares and action ids: :mod:`.ids` (stone ``s``, tile
``36 + s``, reveal ``72``). A tile turn is two steps of the same seat: reveal, then place it.

Every seat's stack is dealt face down from the seeded shuffle at set-up; the unused tiles stay
in the box unseen. Nothing about any stack order or the box reaches an observation; every
revealed value is public. :meth:`IsisOsirisState.resample_hidden` redraws what nobody knows.

Memory mode shows a board tile's value to a seat only while the seat has not acted since the
tile was placed (``placed_at[square] > acted_at[seat]``, step numbers): every reveal reaches
every seat's observation at its next decision step, then turns face down for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np

from tabletop_envs.core.game import GameSpec, PhasedGameState
from tabletop_envs.core.params import check_bool, check_choice, check_int_range
from tabletop_envs.core.rng import make_rng
from tabletop_envs.games.isis_osiris.ids import ActionIds
from tabletop_envs.games.isis_osiris.observation import (
    PlaneOffsets,
    encode,
    layout,
    plane_offsets,
    unseen_counts,
    witnessed,
)
from tabletop_envs.games.isis_osiris.saved import check_saved_state
from tabletop_envs.games.isis_osiris.tables import (
    COLS,
    MATERIAL,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NEIGHBORS,
    NUM_ACTIONS,
    NUM_SQUARES,
    NUM_TILES,
    OVER,
    PLACE,
    REVEAL,
    ROWS,
    TILE_BASE,
    TILE_MIX,
    TURN,
    VALUE_INDEX,
    all_tiles,
    max_game_length,
    score_bound,
    square_name,
)
from tabletop_envs.games.isis_osiris.text import EYE as EYE
from tabletop_envs.games.isis_osiris.text import STONE_LETTERS as STONE_LETTERS
from tabletop_envs.games.isis_osiris.text import material_left, read_board, render

REWARD_MODES = ("win_loss", "score")


@dataclass(frozen=True)
class IsisOsirisParams:
    """Parameters of Isis & Osiris: players, memory variant, reward mode."""

    num_players: int = 2
    memory: bool = False  # True: board tiles are shown face down (agents must remember values)
    reward: str = "win_loss"  # or "score": each player's final score

    def __post_init__(self) -> None:
        check_int_range("num_players", self.num_players, MIN_PLAYERS, MAX_PLAYERS)
        check_bool("memory", self.memory)
        check_choice("reward", self.reward, REWARD_MODES)
        object.__setattr__(self, "num_players", int(self.num_players))


class IsisOsirisState(ActionIds, PhasedGameState):
    """A position of Isis & Osiris. Seats ``0 .. n-1`` play in order, seat 0 first."""

    # fmt: off
    __slots__ = (
        "_flat", "_fresh", "_k", "_mask_place", "_mask_stone", "_mask_turn", "_obs", "_result",
        "_returns", "_unseen", "_views", "acted_at", "filled", "in_hand", "owner", "placed_at",
        "stacks", "steps", "stones_left", "tiles", "unused",
    )
    # fmt: on

    game_name = "isis_osiris"
    over_phase = OVER
    params_class = IsisOsirisParams
    #: Stacks and the box are hidden: use :meth:`resample_hidden` for search.
    hidden_information: ClassVar[bool] = True
    #: ``memory`` changes only what is shown (every board tile was shown to all when placed).
    observation_params = frozenset({"memory"})

    # ---- set-up -------------------------------------------------------------------------
    def _setup(self) -> None:
        params = self.params
        n = params.num_players
        stones, tiles, _ = MATERIAL[n]
        deck = _DECK
        shuffled = [deck[i] for i in self.rng.permutation(NUM_TILES)]
        self.stacks = [shuffled[s * tiles : (s + 1) * tiles] for s in range(n)]
        self.unused = shuffled[n * tiles :]
        self.stones_left = [stones] * n
        self.owner = [-1] * NUM_SQUARES
        self.tiles = [0] * NUM_SQUARES
        self.placed_at = [0] * NUM_SQUARES
        self.acted_at = [0] * n
        self.to_move = 0
        self.phase = TURN
        self.in_hand = 0
        self.steps = 0
        self.filled = 0
        start = _start_position(n, params.memory)
        self._k = start.offsets
        self._obs = start.obs.copy()
        self._views = tuple(self._obs.reshape(start.obs_grid_shape))
        self._flat = self._obs.reshape(-1)
        self._unseen = [list(u) for u in start.unseen]
        self._fresh: list[list[int]] = [[] for _ in range(n)]
        self._mask_turn = start.mask_turn.copy()
        self._mask_stone = start.mask_stone.copy()
        self._mask_place = start.mask_place.copy()
        self._returns = np.zeros(n)
        self._result: dict[str, Any] = {}

    def _witnessed(self, seat: int) -> list[int]:
        """Return the squares shown face up to ``seat`` only because it witnessed them."""
        if not self.params.memory:
            return []
        tiles = self.tiles
        return [sq for sq in range(NUM_SQUARES) if tiles[sq] and witnessed(self, seat, sq)]

    def _derive(self) -> None:
        """Rebuild every cache (planes, masks, counts, result) from the state fields."""
        n = self.params.num_players
        self._k = plane_offsets(n)
        self.filled = _filled(self.owner, self.tiles)
        self._obs = np.stack([encode(self, v) for v in range(n)])
        self._views = tuple(self._obs.reshape(n, ROWS, COLS, -1))
        self._flat = self._obs.reshape(-1)
        self._unseen = [unseen_counts(self, v) for v in range(n)]
        self._fresh = [self._witnessed(v) for v in range(n)]
        empty = np.array(
            [self.owner[sq] < 0 and not self.tiles[sq] for sq in range(NUM_SQUARES)],
            dtype=np.int8,
        )
        self._mask_turn = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._mask_turn[:NUM_SQUARES] = empty
        self._mask_turn[REVEAL] = 1
        self._mask_stone = self._mask_turn.copy()
        self._mask_stone[REVEAL] = 0
        self._mask_place = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._mask_place[TILE_BASE:REVEAL] = empty
        self._returns = np.zeros(n)
        self._result = {}
        if self.phase == OVER:
            self._score()

    @classmethod
    def from_position(
        cls,
        board: str | Sequence[str],
        *,
        num_players: int = 2,
        memory: bool = False,
        reward: str = "win_loss",
        in_hand: int = 0,
        seed: int = 0,
    ) -> IsisOsirisState:
        """Return the position with ``board`` laid out, the seat to move and material derived.

        ``board`` is six rows of six whitespace-separated tokens: ``.`` empty, ``A``-``D`` a
        stone of seat 0-3, ``+2`` / ``-3`` a tile. Turns played so far are the filled squares,
        so the seat to move is ``filled % n`` (on a full board, the seat that filled the last
        square) and each seat's tiles played are its turns minus its stones; the tiles not on
        the board are shuffled with ``seed`` into the stacks and the box. ``in_hand`` (a value)
        starts a tile placement for the seat to move. A full board is scored at once. The
        board's tiles count as placed before every seat's last step (memory mode shows them
        face down to everybody). Used by scenario tests.
        """
        params = IsisOsirisParams(num_players=num_players, memory=memory, reward=reward)
        n = params.num_players
        lines = board.split("\n") if isinstance(board, str) else list(board)
        rows = [r.split() for r in lines if r.strip()]
        if len(rows) != ROWS or any(len(r) != COLS for r in rows):
            raise ValueError(f"a board is {ROWS} rows of {COLS} tokens, got {rows}")
        state = cls.__new__(cls)
        state.params = params
        state.rng = make_rng(seed)
        state._start_log(None)  # a position from text: no deal and actions lead to it
        state.owner, state.tiles, pool = read_board(rows, n)
        filled = _filled(state.owner, state.tiles)
        if in_hand:
            if in_hand not in pool or filled == NUM_SQUARES:
                raise ValueError(
                    f"in_hand={in_hand!r} must be a tile value left in the mix "
                    f"{sorted(set(pool))}, on a board that is not full"
                )
            pool.remove(in_hand)
        state.to_move = filled % n if filled < NUM_SQUARES else (NUM_SQUARES - 1) % n
        state.stones_left, sizes = material_left(state.owner, filled, n, state.to_move, in_hand)
        order = state.rng.permutation(len(pool))
        pool = [pool[i] for i in order]
        state.stacks = []
        for size in sizes:
            state.stacks.append(pool[:size])
            pool = pool[size:]
        state.unused = pool
        state.in_hand = in_hand
        state.phase = OVER if filled == NUM_SQUARES else PLACE if in_hand else TURN
        state.steps = 0
        state.placed_at = [0] * NUM_SQUARES
        state.acted_at = [0] * n
        state._derive()
        return state

    # ---- static facts -------------------------------------------------------------------
    @property
    def spec(self) -> GameSpec:
        """Return the static facts for this player count and reward mode."""
        return _spec(self.params.num_players, self.params.reward)

    @property
    def num_players(self) -> int:
        """Return the number of seats."""
        return self.params.num_players

    # ---- dynamics -----------------------------------------------------------------------
    def _legal(self) -> np.ndarray:
        """Return the legality mask of this position (a cached array: do not mutate).

        The one source of legality: ``legal_mask`` copies it and ``apply`` accepts exactly
        what it marks. Forced kinds: no stones left leaves reveal only; an empty stack leaves
        stones only.
        """
        phase = self.phase
        if phase == TURN:
            seat = self.to_move
            if not self.stones_left[seat]:
                return _REVEAL_ONLY
            return self._mask_turn if self.stacks[seat] else self._mask_stone
        if phase == PLACE:
            return self._mask_place
        return _NONE

    def legal_mask(self) -> np.ndarray:
        """Return a fresh int8 mask of the legal actions (all zeros once the game is over)."""
        return self._legal().copy()

    def legal_actions(self) -> list[int]:
        """Return the legal action ids, ascending (read off the cached mask, no copy)."""
        return self._legal().nonzero()[0].tolist()

    def _apply(self, action: int) -> None:
        """Play ``action`` for the seat to move; IllegalActionError leaves the state as is."""
        if type(action) is not int:
            action = self._check_action_type(action)
        if not 0 <= action < NUM_ACTIONS or not self._legal()[action]:
            raise self._illegal(action, self._why_illegal(self._check_action_type(action)))
        steps = self.steps = self.steps + 1
        seat = self.to_move
        self.acted_at[seat] = steps
        if self._fresh[seat]:  # memory mode: what it witnessed turns face down for it
            self._forget(seat)
        if action == REVEAL:
            self._reveal(seat)
            return
        if action < TILE_BASE:
            sq = action
            self._put_stone(sq, seat)
        else:
            sq = action - TILE_BASE
            self._put_tile(sq, seat, steps)
        self._mask_turn[sq] = 0
        self._mask_stone[sq] = 0
        self._mask_place[TILE_BASE + sq] = 0
        self.filled += 1
        k = self._k
        if self.filled == NUM_SQUARES:
            self.phase = OVER
            self._score()
            if self.params.memory:  # the end turns every tile face up
                self._obs[:] = [encode(self, v) for v in range(k.num_players)]
                counts = unseen_counts(self, 0)  # the same for every seat now
                self._unseen = [counts.copy() for _ in range(k.num_players)]
        else:
            self.phase = TURN
            self.to_move = seat + 1 if seat + 1 < k.num_players else 0

    def _reveal(self, seat: int) -> None:
        """``seat`` turns over its top tile: it goes in hand, shown to everybody."""
        f = self._flat
        k = self._k
        c = k.channels
        stack = self.stacks[seat]
        value = stack.pop()
        self.in_hand = value
        self.phase = PLACE
        vi = VALUE_INDEX[value + 4]
        f[k.placing + vi :: c] = 1  # a constant plane, every viewer
        unseen = k.unseen + vi
        bar = len(stack) * c
        for (tiles_left, view), counts in zip(k.reveal[seat], self._unseen, strict=True):
            f[tiles_left + bar] = 0
            left = counts[vi] - 1
            counts[vi] = left
            f[view + unseen + left * c] = 0

    def _put_stone(self, sq: int, seat: int) -> None:
        """``seat`` puts a stone on square ``sq`` (board, counts and planes)."""
        f = self._flat
        k = self._k
        c = k.channels
        self.owner[sq] = seat
        left = self.stones_left[seat] - 1
        self.stones_left[seat] = left
        at = sq * c
        bar = left * c
        for stone, stones_left, empty in k.stone[seat]:
            f[stone + at] = 1
            f[stones_left + bar] = 0
            f[empty + at] = 0

    def _put_tile(self, sq: int, seat: int, steps: int) -> None:
        """``seat`` places the tile in hand on square ``sq`` (board, memory and planes)."""
        f = self._flat
        k = self._k
        c = k.channels
        value = self.in_hand
        self.tiles[sq] = value
        self.placed_at[sq] = steps
        self.in_hand = 0
        vi = VALUE_INDEX[value + 4]
        f[k.placing + vi :: c] = 0
        at = sq * c
        tile = k.tile_value + vi + at
        empty = k.empty + at
        if not self.params.memory:
            for view in k.views:
                f[view + tile] = 1
                f[view + empty] = 0
            return
        # Face down for the placer (it has just acted); face up for every other seat until its
        # next step: it witnessed the reveal. Their counts do not change (the tile in hand
        # becomes a tile shown on the board).
        for viewer, view in enumerate(k.views):
            f[view + empty] = 0
            if viewer == seat:
                counts = self._unseen[seat]
                left = counts[vi]
                counts[vi] = left + 1
                f[view + k.face_down + at] = 1
                f[view + k.unseen + vi + left * c] = 1
            else:
                f[view + tile] = 1
                self._fresh[viewer].append(sq)

    def _forget(self, seat: int) -> None:
        """Turn the tiles ``seat`` witnessed face down in its planes (it has acted since)."""
        k = self._k
        c = k.channels
        f = self._flat
        view = k.views[seat]
        counts = self._unseen[seat]
        tiles = self.tiles
        for sq in self._fresh[seat]:
            vi = VALUE_INDEX[tiles[sq] + 4]
            at = view + sq * c
            f[at + k.tile_value + vi] = 0
            f[at + k.face_down] = 1
            left = counts[vi]
            counts[vi] = left + 1
            f[view + k.unseen + vi + left * c] = 1
        self._fresh[seat] = []

    def scores(self) -> list[int]:
        """Return each seat's score on the board as it stands (final once the game is over).

        A stone is worth the sum of the orthogonally adjacent tiles; a seat scores its stones.
        """
        out = [0] * self.params.num_players
        tiles = self.tiles
        for sq, seat in enumerate(self.owner):
            if seat >= 0:
                out[seat] += sum(tiles[nb] for nb in NEIGHBORS[sq])
        return out

    def _score(self) -> None:
        scores = self.scores()
        top = max(scores)
        winners = [s for s, x in enumerate(scores) if x == top]
        if self.params.reward == "score":
            self._returns = np.array(scores, dtype=np.float64)
        else:
            self._returns = np.full(len(scores), -1.0)
            self._returns[winners] = 1.0 if len(winners) == 1 else 0.0
        self._result = {"scores": scores, "winners": winners}

    def returns(self) -> np.ndarray:
        """Return the final rewards (win/tie/loss or scores per ``reward``); zeros before."""
        return self._returns.copy()

    def result_info(self) -> dict[str, Any]:
        """Return ``{"scores": [per seat], "winners": [seats with the top score]}`` at the end."""
        if self.phase != OVER:
            return {}
        return {"scores": list(self._result["scores"]), "winners": list(self._result["winners"])}

    def _why_illegal(self, action: int) -> str:
        seat = self.to_move
        if self.phase == PLACE:
            if action == REVEAL:
                return "a tile is already revealed; put it on an empty square (ids 36-71)"
            if action < TILE_BASE:
                return "the revealed tile must be placed this turn (ids 36-71), not a stone"
            return f"square {square_name(action - TILE_BASE)} is not empty"
        if action == REVEAL:
            return f"seat {seat} has no tiles left in its stack; it must place a stone"
        if action >= TILE_BASE:
            return "a tile is placed only after revealing it (reveal is id 72)"
        if not self.stones_left[seat]:
            return f"seat {seat} has no stones left; it must reveal a tile (id 72)"
        return f"square {square_name(action)} is not empty"

    # ---- information --------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """Return the ``(6, 6, C)`` int8 planes seen by ``seat`` (see ``observation.py``)."""
        return self._views[self._check_seat(seat)].copy()

    def unseen_counts(self, seat: int | None = None) -> dict[int, int]:
        """Return ``{value: count}`` of the tiles ``seat``'s observation does not show face up.

        ``seat=None`` is the seat to move (seat 0 once the game is over, when every seat's
        counts are the same). With perfect recall every seat's counts are the same.
        """
        viewer = self._viewer(seat)
        return {v: self._unseen[viewer][VALUE_INDEX[v + 4]] for v in sorted(TILE_MIX)}

    def _viewer(self, seat: int | None) -> int:
        """Return ``seat`` checked, or the seat to move for ``None`` (0 once the game is over)."""
        if seat is None:
            return max(self.current_player, 0)
        return self._check_seat(seat)

    def render_text(self, seat: int | None = None, *, show_values: bool = False) -> str:
        """Return ``seat``'s board: stones ``A``-``D`` by seat, tile values, ``()`` face down.

        A tile shows its value exactly when ``seat``'s observation does (in memory mode a tile
        it witnessed, until it acts; every tile once the game is over), else the eye.
        ``seat=None`` is the seat to move (what ``env.render()`` shows); ``show_values`` shows
        every value (a spectator's debugging view). Stacks are never shown.
        """
        return render(self, self._viewer(seat), show_values)

    # ---- hidden information ----------------------------------------------------------------
    def public_outcome(self) -> int | None:
        """Return the value of the tile just revealed (public; its seat places it), else None."""
        return self.in_hand if self.phase == PLACE else None

    def resample_hidden(self, seat: int, rng: np.random.Generator) -> IsisOsirisState:
        """Return a copy with every unrevealed tile (all stacks and the box) redrawn.

        Every reveal is public and nobody, the owner included, knows anything about a stack,
        so all seats share one information set: the board, the tile in hand and each pile's
        size. The hidden values (the multiset those fix) are gathered in sorted order and
        shuffled with ``rng``, so the result depends only on that information and ``rng``.
        Board tile values are kept in both memory modes (they were shown when revealed).
        """
        self._check_resample(seat, rng)
        hidden = sorted([v for stack in self.stacks for v in stack] + self.unused)
        order = rng.permutation(len(hidden))
        drawn = [hidden[i] for i in order]
        new = self.clone()
        start = 0
        for s, stack in enumerate(self.stacks):
            new.stacks[s] = drawn[start : start + len(stack)]
            start += len(stack)
        new.unused = drawn[start:]
        new.seed = None  # a redrawn position: the action log no longer rebuilds it
        return new

    # ---- copies and persistence ---------------------------------------------------------
    def clone(self) -> IsisOsirisState:
        """Return an independent copy (RNG included)."""
        new = self._shallow_copy()
        new.stacks = [s.copy() for s in self.stacks]
        new.unused = self.unused.copy()
        new.stones_left = self.stones_left.copy()
        new.owner = self.owner.copy()
        new.tiles = self.tiles.copy()
        new.placed_at = self.placed_at.copy()
        new.acted_at = self.acted_at.copy()
        new._unseen = [u.copy() for u in self._unseen]
        new._fresh = [w.copy() for w in self._fresh]
        new._obs = self._obs.copy()
        new._views = tuple(new._obs.reshape(len(self._views), *self._views[0].shape))
        new._flat = new._obs.reshape(-1)
        new._mask_turn = self._mask_turn.copy()
        new._mask_stone = self._mask_stone.copy()
        new._mask_place = self._mask_place.copy()
        new._returns = self._returns.copy()
        new._result = {k: list(v) for k, v in self._result.items()}
        return new

    def _state_dict(self) -> dict[str, Any]:
        return {
            "owner": list(self.owner),
            "tiles": list(self.tiles),
            "placed_at": list(self.placed_at),
            "acted_at": list(self.acted_at),
            "stacks": [list(s) for s in self.stacks],
            "unused": list(self.unused),
            "stones_left": list(self.stones_left),
            "to_move": self.to_move,
            "phase": self.phase,
            "in_hand": self.in_hand,
            "steps": self.steps,
        }

    def _load_state_dict(self, data: Any) -> None:
        """Restore a saved position after checking it (``saved.py``: InvalidStateError)."""
        saved = check_saved_state(data, self.params.num_players)
        self.owner = saved.owner
        self.tiles = saved.tiles
        self.placed_at = saved.placed_at
        self.acted_at = saved.acted_at
        self.stacks = saved.stacks
        self.unused = saved.unused
        self.stones_left = saved.stones_left
        self.to_move = saved.to_move
        self.phase = saved.phase
        self.in_hand = saved.in_hand
        self.steps = saved.steps
        self._derive()


_REVEAL_ONLY = np.zeros(NUM_ACTIONS, dtype=np.int8)
_REVEAL_ONLY[REVEAL] = 1
_REVEAL_ONLY.setflags(write=False)
_NONE = np.zeros(NUM_ACTIONS, dtype=np.int8)
_NONE.setflags(write=False)


_DECK = tuple(all_tiles())


def _filled(owner: list[int], tiles: list[int]) -> int:
    """Return the number of squares holding a stone or a tile."""
    return sum(1 for seat, value in zip(owner, tiles, strict=True) if seat >= 0 or value)


@dataclass(frozen=True, eq=False)
class _Start:
    """The opening position's planes and masks for one configuration (copied, never mutated)."""

    offsets: PlaneOffsets
    obs: np.ndarray
    obs_grid_shape: tuple[int, ...]
    unseen: tuple[tuple[int, ...], ...]  # per viewer
    mask_turn: np.ndarray
    mask_stone: np.ndarray
    mask_place: np.ndarray


@cache
def _start_position(num_players: int, memory: bool) -> _Start:
    state = IsisOsirisState.from_position(
        [". " * COLS] * ROWS, num_players=num_players, memory=memory
    )
    arrays = (state._obs, state._mask_turn, state._mask_stone, state._mask_place)
    for arr in arrays:
        arr.setflags(write=False)
    return _Start(
        offsets=state._k,
        obs=state._obs,
        obs_grid_shape=(num_players, *state._views[0].shape),
        unseen=tuple(tuple(u) for u in state._unseen),
        mask_turn=state._mask_turn,
        mask_stone=state._mask_stone,
        mask_place=state._mask_place,
    )


@cache
def _spec(num_players: int, reward: str) -> GameSpec:
    bound = float(score_bound(num_players)) if reward == "score" else 1.0
    return GameSpec(
        num_players=num_players,
        num_actions=NUM_ACTIONS,
        observation_shape=(ROWS, COLS, len(layout(num_players).channels)),
        observation_channels=layout(num_players).channels,
        max_game_length=max_game_length(num_players),
        reward_range=(-bound, bound),
    )
