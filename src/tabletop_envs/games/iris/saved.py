"""Checks of a saved Iris state: untrusted data in, the fields of a position the rules keep.

A saved state loads only if it satisfies every invariant of play (listed in ``docs/iris.md``,
"Saved states"): the fields in range, stones only on cells of the board, colored cells filled
in opposite pairs by one player, and the phase, the first stone of the turn, the pass flag and
the step count consistent with the board. Positions laid out by ``IrisState.from_position``
(any stones, either player to move) keep the same invariants, so they load too.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from tabletop_envs.core.errors import InvalidStateError
from tabletop_envs.core.state_check import check_keys, read_bool, read_int, read_int_list
from tabletop_envs.games.iris.tables import (
    BLACK,
    FIRST,
    FORFEIT,
    OPENING,
    OVER,
    PHASE_NAMES,
    SECOND_GRAY,
    SECOND_OPPOSITE,
    IrisTables,
)

#: The keys of a saved Iris state.
STATE_KEYS = ("board", "to_move", "phase", "pending", "passed_last", "steps")
#: What a board value means.
_HOLDS = ("nothing", "a Black stone", "a White stone")


class SavedIris(NamedTuple):
    """The checked fields of a saved Iris state."""

    board: list[int]
    to_move: int
    phase: int
    pending: int
    passed_last: bool
    steps: int


def check_saved_state(
    data: Any, tables: IrisTables, auto_forced: bool, max_steps: int
) -> SavedIris:
    """Return the fields of ``data`` if they keep the invariants of play, else raise."""
    data = check_keys(data, STATE_KEYS)
    b = tables.board
    board = read_int_list(data, "board", 0, 2, length=b.width * b.width)
    for idx, value in enumerate(board):
        if value and not b.on_board[idx]:
            raise InvalidStateError(
                f"state.board[{idx}]",
                f"index {idx} is outside the side-{b.side} hexagon and must be 0 (empty)",
            )
    state = SavedIris(
        board=board,
        to_move=read_int(data, "to_move", 0, 1),
        phase=read_int(data, "phase", 0, len(PHASE_NAMES) - 1),
        pending=read_int(data, "pending", -1, tables.pass_action - 1),
        passed_last=read_bool(data, "passed_last"),
        steps=read_int(data, "steps", 0, max_steps),
    )
    _check_turn(state, tables, auto_forced)
    _check_pairs(state, tables)
    stones = sum(1 for v in board if v)
    if state.steps > 3 * stones + 2:
        raise InvalidStateError(
            "state.steps",
            f"{state.steps} steps cannot lead to {stones} stones: a step places a stone, passes "
            f"or forfeits right after a stone, and passes do not follow each other except the "
            f"two that end the game (at most {3 * stones + 2})",
        )
    return state


def _check_turn(state: SavedIris, tables: IrisTables, auto_forced: bool) -> None:
    """Raise InvalidStateError unless phase, mover, first stone and pass flag fit the board."""
    board, phase, pending = state.board, state.phase, state.pending
    empty = tables.board.num_cells - sum(1 for v in board if v)
    name = PHASE_NAMES[phase]
    if phase in (OPENING, FIRST, OVER):
        if pending != -1:
            raise InvalidStateError(
                "state.pending", f"must be -1 (no first stone) in the {name!r} phase, got {pending}"
            )
    else:
        _check_first_stone(state, tables, auto_forced)
    if phase == OVER:
        if empty and not state.passed_last:
            raise InvalidStateError(
                "state.phase",
                f"the game is over with {empty} empty cells and no pass before the last turn: "
                "it ends on a full board or on two passes in a row",
            )
        return
    if not empty:
        raise InvalidStateError(
            "state.phase", f"the board is full, so the game is over, not in the {name!r} phase"
        )
    bare = empty == tables.board.num_cells and state.to_move == BLACK
    if phase == OPENING:
        if not bare:
            raise InvalidStateError(
                "state.phase", "the opening is Black's first stone: an empty board, Black to move"
            )
        if state.passed_last:
            raise InvalidStateError("state.passed_last", "nobody has passed before the opening")
        if state.steps:
            raise InvalidStateError("state.steps", "no step comes before the opening")
    elif bare and not state.passed_last:
        raise InvalidStateError(
            "state.phase",
            f"an empty board with Black to move and no pass before is the opening, "
            f"not the {name!r} phase",
        )


def _check_first_stone(state: SavedIris, tables: IrisTables, auto_forced: bool) -> None:
    """Raise InvalidStateError unless ``pending`` is the mover's first stone fitting the phase."""
    phase, pending = state.phase, state.pending
    name = PHASE_NAMES[phase]
    if auto_forced and phase in (SECOND_OPPOSITE, FORFEIT):
        raise InvalidStateError(
            "state.phase",
            f"with auto_forced=True the {name!r} step plays itself and is never a saved phase",
        )
    if pending < 0 or not tables.board.on_board[pending]:
        raise InvalidStateError(
            "state.pending", f"must be the cell of the first stone in the {name!r} phase"
        )
    if state.board[pending] != state.to_move + 1:
        raise InvalidStateError(
            "state.pending",
            f"the first stone's cell {_cell(tables, pending)} holds {_HOLDS[state.board[pending]]}"
            f", not a stone of the player to move ({_HOLDS[state.to_move + 1]})",
        )
    colored = tables.colored[pending]
    if colored != (phase == SECOND_OPPOSITE):
        kind = "colored" if phase == SECOND_OPPOSITE else "gray"
        raise InvalidStateError(
            "state.pending",
            f"the first stone of the {name!r} phase is on a {kind} cell, "
            f"and {_cell(tables, pending)} is not",
        )
    if colored:
        return  # the opposite cell is empty: checked with the pairs
    far = tables.far_gray[pending]
    free = any(far[idx] and not state.board[idx] for idx in tables.gray_cells)
    if free != (phase == SECOND_GRAY):
        raise InvalidStateError(
            "state.phase",
            f"an empty gray cell not next to the first stone at {_cell(tables, pending)} "
            f"{'exists' if free else 'does not exist'}, so the phase is "
            f"{PHASE_NAMES[SECOND_GRAY if free else FORFEIT]!r}, not {name!r}",
        )


def _check_pairs(state: SavedIris, tables: IrisTables) -> None:
    """Raise InvalidStateError unless colored cells are filled in opposite pairs by one player.

    The one exception is the forced step: the first stone of the turn is on a colored cell
    and its opposite cell is still empty.
    """
    board = state.board
    forced = state.pending if state.phase == SECOND_OPPOSITE else -1
    for idx in tables.colored_cells:
        other = tables.opposite[idx]
        if forced in (idx, other):
            target = tables.opposite[forced]
            if board[target]:
                raise InvalidStateError(
                    f"state.board[{target}]",
                    f"the cell {_cell(tables, target)} opposite the first stone at "
                    f"{_cell(tables, forced)} must be empty in the 'forced opposite' phase",
                )
        elif board[idx] != board[other]:
            raise InvalidStateError(
                f"state.board[{idx}]",
                f"colored cells are filled in opposite pairs by one player: "
                f"{_cell(tables, idx)} holds {_HOLDS[board[idx]]} and its opposite "
                f"{_cell(tables, other)} holds {_HOLDS[board[other]]}",
            )


def _cell(tables: IrisTables, idx: int) -> str:
    """Return ``"(q, r)"`` of a cell index."""
    q, r = tables.board.coord(idx)
    return f"({q}, {r})"
