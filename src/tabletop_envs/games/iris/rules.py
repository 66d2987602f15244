"""Iris: the rules core (pure; no gymnasium or pettingzoo).

Rules: ``docs/rules/iris.md``. Action ids index the ``(2n-1) x (2n-1)`` axial array
(``row = r + n - 1``, ``col = q + n - 1``, id ``row * (2n-1) + col``) so they line up with the
observation planes; off-board ids are never legal. The last id is *pass*; it also ends a turn
whose second stone is forfeited (the only legal action then).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.core.game import GameSpec, PhasedGameState
from tabletop_envs.core.hexgrid import HexBoard
from tabletop_envs.core.params import check_bool, check_int, check_int_range
from tabletop_envs.games.iris.saved import check_saved_state
from tabletop_envs.games.iris.tables import (
    BLACK,
    FIRST,
    FORFEIT,
    OPENING,
    OVER,
    PHASE_NAMES,
    SECOND_GRAY,
    SECOND_OPPOSITE,
    WHITE,
    IrisTables,
    iris_tables,
)

MIN_SIDE, MAX_SIDE = 3, 16
PLAYER_NAMES = ("Black", "White")

#: Channels of the observation (last axis), egocentric: "own" is the observing seat.
CHANNELS = (
    "own_stones",
    "opponent_stones",
    "colored_cell",
    "on_board",
    "pending_first_stone",
    "forced_cell",
    "observer_is_black",
    "second_stone_step",
    "opponent_passed",
    "opening_turn",
)
_C = {name: k for k, name in enumerate(CHANNELS)}
_OWN, _OPPONENT = _C["own_stones"], _C["opponent_stones"]
_PENDING, _FORCED = _C["pending_first_stone"], _C["forced_cell"]
_SECOND, _PASSED, _OPENING = _C["second_stone_step"], _C["opponent_passed"], _C["opening_turn"]

_LETTERS = "abcdefghijklmnpqrstuvwyzABCDEFGHIJKLMNPQRSTUVWYZ"  # no x/o/X/O: those are stones
#: The first line of the text board: how to read a cell's coordinates off it.
COORDINATES_LEGEND = (
    "(q, r): r left of each row, q at the end of its line of cells running down-right"
)


def hexagon_text(board: HexBoard, marks: Sequence[str]) -> list[str]:
    """Return a hexagon of one-character ``marks`` (by cell index) with its coordinates.

    Cells are four columns apart, each row two columns right of the one above (the picture's
    layout), so the cells of one ``q`` run down-right. ``r`` is written left of each row, ``q``
    at the lower end of its line of cells (under the bottom row for ``q <= 0``, after the row's
    last cell on the lower-right edge for ``q > 0``), as in the picture; the legend comes first.
    """
    m = board.side - 1
    label = len(str(-m))  # the widest r label
    grid = [[" "] * (8 * m + 3) for _ in range(2 * m + 2)]  # rows r = -m..m, then the q labels

    def put(q: int, r: int, text: str) -> None:  # the text's last character in (q, r)'s column
        x = 4 * q + 2 * r + 4 * m
        grid[r + m][x - len(text) + 1 : x + 1] = text

    for idx in board.cells:
        put(*board.coord(idx), marks[idx])
    for q in range(-m, m + 1):
        put(q, min(m, m - q) + 1, str(q))  # one step past the lowest cell of the q line
    rows = [f"{r:>{label}}  " + "".join(grid[r + m]) for r in range(-m, m + 1)]
    bottom = " " * (label + 2) + "".join(grid[2 * m + 1])
    return [COORDINATES_LEGEND, *(line.rstrip() for line in [*rows, bottom])]


@dataclass(frozen=True)
class IrisParams:
    """Parameters of Iris: board side and whether forced steps play themselves."""

    board_size: int = 5
    auto_forced: bool = False

    def __post_init__(self) -> None:
        check_int_range("board_size", self.board_size, MIN_SIDE, MAX_SIDE)
        check_bool("auto_forced", self.auto_forced)
        object.__setattr__(self, "board_size", int(self.board_size))


class IrisState(PhasedGameState):
    """A position of Iris. Seat 0 is Black (moves first), seat 1 is White."""

    __slots__ = (
        "_empty",
        "_empty_gray",
        "_gray_left",
        "_mask",
        "_obs",
        "_result",
        "_returns",
        "board",
        "empty_left",
        "passed_last",
        "pending",
        "steps",
        "tables",
    )

    game_name = "iris"
    over_phase = OVER
    params_class = IrisParams

    tables: IrisTables

    # ---- set-up -------------------------------------------------------------------------
    def _setup(self) -> None:
        self.tables = iris_tables(self.params.board_size)
        t = self.tables
        self.board = [0] * (t.board.width * t.board.width)  # 0 empty, 1 Black, 2 White
        self.to_move = BLACK
        self.phase = OPENING
        self.pending = -1
        self.passed_last = False
        self.steps = 0
        self._derive()

    def _derive(self) -> None:
        """Rebuild every cache from ``board`` and the turn fields."""
        t = self.tables
        empty = t.empty_mask0.copy()
        empty_gray = t.gray_mask0.copy()
        obs = _obs_template(t.board.side).copy()  # (2 seats, w, w, channels)
        filled = 0
        gray_left = len(t.gray_cells)
        if any(self.board):
            rowcol = t.rowcol
            for idx, v in enumerate(self.board):
                if v:
                    filled += 1
                    empty[idx] = 0
                    if not t.colored[idx]:
                        empty_gray[idx] = 0
                        gray_left -= 1
                    row, col = rowcol[idx]
                    obs[v - 1, row, col, _OWN] = 1
                    obs[2 - v, row, col, _OPPONENT] = 1
        self._obs = obs
        self._empty = empty
        self._empty_gray = empty_gray
        self.empty_left = t.board.num_cells - filled
        self._gray_left = gray_left  # empty gray cells
        self._mask: np.ndarray | None = None
        self._returns = np.zeros(2)
        self._result: dict[str, Any] = {}
        if self.phase == OVER:
            self._score()

    @classmethod
    def from_position(
        cls,
        *,
        board_size: int = 5,
        black: Iterable[tuple[int, int]] = (),
        white: Iterable[tuple[int, int]] = (),
        to_move: int = WHITE,
        passed_last: bool = False,
        auto_forced: bool = False,
    ) -> IrisState:
        """Return a position at the start of a turn with the given stones (axial coords).

        With no stones and Black to move this is the opening. Used by scenario tests.
        """
        state = cls(IrisParams(board_size=board_size, auto_forced=auto_forced))
        b = state.tables.board
        for value, coords in ((1, black), (2, white)):
            for q, r in coords:
                idx = b.index(q, r)
                if state.board[idx]:
                    raise ValueError(f"cell ({q}, {r}) is given twice")
                state.board[idx] = value
        for idx in state.tables.colored_cells:  # the forced second stone relies on this
            if state.board[idx] != state.board[state.tables.opposite[idx]]:
                q, r = b.coord(idx)
                raise ValueError(
                    f"colored cell ({q}, {r}) and its opposite ({-q}, {-r}) must hold the same "
                    "color (both empty, both Black or both White): colored cells are filled in "
                    "opposite pairs"
                )
        if to_move not in (BLACK, WHITE):
            raise InvalidParameterError(f"to_move must be 0 (Black) or 1 (White), got {to_move}")
        check_bool("passed_last", passed_last)
        any_stone = any(state.board)
        opening = not any_stone and to_move == BLACK
        if opening and passed_last:
            raise InvalidParameterError(
                "passed_last must be False at the opening (an empty board, Black to move): "
                "nobody has passed before the first stone"
            )
        state.to_move = to_move
        state.passed_last = passed_last
        state.phase = OPENING if opening else FIRST
        if any_stone or to_move != BLACK:
            state._start_log(None)  # a laid-out position: no deal and actions lead to it
        state._derive()
        if state.empty_left == 0:
            state._finish()
        return state

    # ---- static facts -------------------------------------------------------------------
    @property
    def spec(self) -> GameSpec:
        """Return Iris's static facts for this board side."""
        return _spec(self.params.board_size)

    # ---- geometry helpers ---------------------------------------------------------------
    def action_to_coord(self, action: int) -> tuple[int, int]:
        """Return the axial ``(q, r)`` of a cell action; ValueError for pass or off-board ids."""
        action = check_int_range("action", action, 0, self.tables.num_actions - 1)
        if action == self.tables.pass_action:
            raise InvalidParameterError(f"action {action} is pass, not a cell")
        return self.tables.board.coord(action)

    def coord_to_action(self, q: int, r: int) -> int:
        """Return the action id of axial cell ``(q, r)``; ValueError if it is off the board."""
        return self.tables.board.index(check_int("q", q), check_int("r", r))

    @property
    def pass_action(self) -> int:
        """Return the id of pass (the last action id)."""
        return self.tables.pass_action

    def action_to_string(self, action: int) -> str:
        """Return ``"pass"`` or ``"(q, r)"``; ValueError for an id that names no action."""
        action = check_int_range("action", action, 0, self.tables.num_actions - 1)
        if action == self.tables.pass_action:
            return "forfeit" if self.phase == FORFEIT else "pass"
        q, r = self.tables.board.coord(action)
        return f"({q}, {r})"

    # ---- dynamics -----------------------------------------------------------------------
    def _legal(self) -> np.ndarray:
        """Return the cached legality mask of this position (do not mutate)."""
        mask = self._mask
        if mask is None:
            phase = self.phase
            t = self.tables
            if phase == FIRST:
                mask = self._empty
            elif phase == SECOND_GRAY:
                mask = self._empty_gray & t.far_gray[self.pending]
            elif phase == OPENING:
                mask = self._empty_gray
            else:
                mask = np.zeros(t.num_actions, dtype=np.int8)
                if phase == SECOND_OPPOSITE:
                    mask[t.opposite[self.pending]] = 1
                elif phase == FORFEIT:
                    mask[t.pass_action] = 1
            self._mask = mask
        return mask

    def legal_mask(self) -> np.ndarray:
        """Return a fresh int8 mask of the legal actions (all zeros once the game is over)."""
        mask = self._mask
        if mask is None:
            mask = self._legal()
        return mask.copy()

    def legal_actions(self) -> list[int]:
        """Return the legal action ids, ascending (read off the cached mask, no copy)."""
        return self._legal().nonzero()[0].tolist()

    def _apply(self, action: int) -> None:
        """Play ``action`` for the player to move; IllegalActionError leaves the state as is."""
        if type(action) is not int:
            action = self._check_action_type(action)
        t = self.tables
        mask = self._mask
        if mask is None:
            mask = self._legal()
        if not 0 <= action < t.num_actions or not mask[action]:
            raise self._illegal(action, self._why_illegal(self._check_action_type(action)))
        self.steps += 1
        self._mask = None
        phase = self.phase
        if action == t.pass_action:
            if phase == FORFEIT:
                self._end_turn()
            elif self.passed_last:
                self._finish()
            else:
                self.passed_last = True
                self.to_move ^= 1
                self.phase = FIRST
            return
        self._place(action)
        if phase == FIRST:
            if self.empty_left == 0:
                self._finish()
                return
            self.pending = action
            if t.colored[action]:
                self.phase = SECOND_OPPOSITE
                if self.params.auto_forced:
                    self._place(t.opposite[action])
                    self._end_turn()
            else:
                # Is an empty gray cell left that is not next to the stone? (The stone's own
                # cell is no longer empty.) Counting is much cheaper than a numpy any().
                board = self.board
                near = 0
                for cell in t.gray_neighbors[action]:
                    if not board[cell]:
                        near += 1
                if self._gray_left > near:
                    self.phase = SECOND_GRAY
                else:
                    self.phase = FORFEIT
                    if self.params.auto_forced:
                        self._end_turn()
        else:  # opening stone or a second stone
            self._end_turn()

    def _place(self, idx: int) -> None:
        seat = self.to_move
        t = self.tables
        self.board[idx] = seat + 1
        self._empty[idx] = 0
        if not t.colored[idx]:
            self._empty_gray[idx] = 0
            self._gray_left -= 1
        self.empty_left -= 1
        row, col = t.rowcol[idx]
        obs = self._obs
        obs[seat, row, col, _OWN] = 1
        obs[seat ^ 1, row, col, _OPPONENT] = 1

    def _end_turn(self) -> None:
        self.pending = -1
        self.passed_last = False
        self.to_move ^= 1
        self.phase = FIRST
        if self.empty_left == 0:
            self._finish()

    def _finish(self) -> None:
        self.phase = OVER
        self.pending = -1
        self._mask = None
        self._score()

    def _score(self) -> None:
        lists = self.group_scores()
        if lists[BLACK] > lists[WHITE]:
            winner: int | None = BLACK
            self._returns = np.array([1.0, -1.0])
        elif lists[WHITE] > lists[BLACK]:
            winner = WHITE
            self._returns = np.array([-1.0, 1.0])
        else:
            winner = None
            self._returns = np.zeros(2)
        self._result = {"group_scores": lists, "winner": winner}

    def group_scores(self) -> tuple[list[int], list[int]]:
        """Return each seat's nonzero group scores (colored cells per group), highest first."""
        # A flood fill from every colored stone: groups without a colored cell score 0 and are
        # never entered. Same result as core.components.group_scores, several times faster
        # (scoring runs once per game, a large share of a short random game's cost).
        t = self.tables
        board = self.board
        colored = t.colored
        neighbors = t.board.neighbors
        seen = bytearray(len(board))
        out: tuple[list[int], list[int]] = ([], [])
        for start in t.colored_cells:
            value = board[start]
            if not value or seen[start]:
                continue
            seen[start] = 1
            stack = [start]
            score = 0
            while stack:
                node = stack.pop()
                if colored[node]:
                    score += 1
                for nxt in neighbors[node]:
                    if board[nxt] == value and not seen[nxt]:
                        seen[nxt] = 1
                        stack.append(nxt)
            out[value - 1].append(score)
        out[0].sort(reverse=True)
        out[1].sort(reverse=True)
        return out

    def returns(self) -> np.ndarray:
        """Return +1 / -1 for winner / loser, 0 each for a draw, zeros before the end."""
        return self._returns.copy()

    def result_info(self) -> dict[str, Any]:
        """Return ``{"group_scores": (black_list, white_list), "winner": seat or None}``."""
        if self.phase != OVER:
            return {}
        return {
            "group_scores": [list(s) for s in self._result["group_scores"]],
            "winner": self._result["winner"],
        }

    def _why_illegal(self, action: int) -> str:
        t = self.tables
        phase = self.phase
        if action == t.pass_action:
            if phase == OPENING:
                return "Black may not pass on the opening turn"
            return "a pass is only allowed at the start of a turn, never for the second stone"
        if not t.board.on_board[action]:
            return f"id {action} is not a cell of the side-{t.board.side} board"
        where = self.action_to_string(action)
        if self.board[action]:
            return f"cell {where} is occupied"
        if phase == OPENING:
            return f"Black's opening stone must go on a gray cell; {where} is colored"
        if phase == FORFEIT:
            return "the second stone is forfeited (no gray cell is free and far enough); play pass"
        first = self.action_to_string(self.pending)
        if phase == SECOND_OPPOSITE:
            forced = self.action_to_string(t.opposite[self.pending])
            return f"after the colored stone at {first} the second stone must go on {forced}"
        if t.colored[action]:
            return f"after the gray stone at {first} the second stone must go on a gray cell"
        return f"the second stone may not be adjacent to the first stone at {first}"

    # ---- information --------------------------------------------------------------------
    def observation(self, seat: int) -> np.ndarray:
        """Return the ``(2n-1, 2n-1, len(CHANNELS))`` int8 planes seen by ``seat``."""
        out = self._obs[self._check_seat(seat)].copy()
        phase = self.phase
        pending = self.pending
        if pending >= 0:
            t = self.tables
            row, col = t.rowcol[pending]
            out[row, col, _PENDING] = 1
            if phase == SECOND_OPPOSITE:
                row, col = t.rowcol[t.opposite[pending]]
                out[row, col, _FORCED] = 1
        if phase != OVER:
            if phase >= SECOND_OPPOSITE:
                out[..., _SECOND] = 1
            elif phase == OPENING:
                out[..., _OPENING] = 1
            if self.passed_last and self.to_move == seat:
                out[..., _PASSED] = 1
        return out

    def render_text(self, seat: int | None = None) -> str:
        """Return the hexagon with the coordinates moves are typed in, then the status.

        ``X`` Black, ``O`` White, a letter for an empty colored cell (the same on both cells of a
        color pair), ``.`` an empty gray cell; see :func:`hexagon_text` for the coordinates.
        """
        if seat is not None:
            self._check_seat(seat)  # the same picture for every seat (perfect information)
        t = self.tables
        marks = [
            "XO"[v - 1] if v else _LETTERS[t.color[idx]] if t.colored[idx] else "."
            for idx, v in enumerate(self.board)
        ]
        return "\n".join([*hexagon_text(t.board, marks), self._status()])

    def _status(self) -> str:
        if self.phase == OVER:
            w = self._result["winner"]
            outcome = "draw" if w is None else f"{PLAYER_NAMES[w]} wins"
            black, white = self._result["group_scores"]
            return f"game over: {outcome} (Black groups {black}, White groups {white})"
        who = PLAYER_NAMES[self.to_move]
        text = f"{who} to move: {PHASE_NAMES[self.phase]}"
        if self.pending >= 0:
            text += f" (first stone at {self.action_to_string(self.pending)})"
        if self.passed_last:
            text += "; opponent passed"
        return text

    # ---- copies and persistence ---------------------------------------------------------
    def clone(self) -> IrisState:
        """Return an independent copy."""
        new = self._shallow_copy()
        new.board = self.board.copy()
        new._empty = self._empty.copy()
        new._empty_gray = self._empty_gray.copy()
        new._obs = self._obs.copy()
        new._mask = None
        new._returns = self._returns.copy()
        result = self._result
        new._result = (
            {
                "group_scores": ([*result["group_scores"][0]], [*result["group_scores"][1]]),
                "winner": result["winner"],
            }
            if result
            else {}
        )
        return new

    def _state_dict(self) -> dict[str, Any]:
        return {
            "board": list(self.board),
            "to_move": self.to_move,
            "phase": self.phase,
            "pending": self.pending,
            "passed_last": self.passed_last,
            "steps": self.steps,
        }

    def _load_state_dict(self, data: Any) -> None:
        """Restore a saved position after checking it (``saved.py``: InvalidStateError)."""
        self.tables = iris_tables(self.params.board_size)
        saved = check_saved_state(
            data, self.tables, self.params.auto_forced, self.spec.max_game_length
        )
        self.board = saved.board
        self.to_move = saved.to_move
        self.phase = saved.phase
        self.pending = saved.pending
        self.passed_last = saved.passed_last
        self.steps = saved.steps
        self._derive()


@cache
def _obs_template(side: int) -> np.ndarray:
    """Return the empty-board observation planes of both seats, ``(2, w, w, channels)``."""
    t = iris_tables(side)
    w = t.board.width
    obs = np.zeros((2, w, w, len(CHANNELS)), dtype=np.int8)
    obs[:, :, :, _C["colored_cell"]] = t.colored_plane
    obs[:, :, :, _C["on_board"]] = t.on_board_plane
    obs[BLACK, :, :, _C["observer_is_black"]] = 1
    obs.setflags(write=False)
    return obs


@cache
def _spec(side: int) -> GameSpec:
    t = iris_tables(side)
    w = t.board.width
    return GameSpec(
        num_players=2,
        num_actions=t.num_actions,
        observation_shape=(w, w, len(CHANNELS)),
        observation_channels=CHANNELS,
        # every step places a stone, passes, or forfeits right after a stone
        max_game_length=3 * t.board.num_cells + 1,
        reward_range=(-1.0, 1.0),
    )
