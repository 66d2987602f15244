"""Checks of a saved Isis & Osiris state: untrusted data in, the fields of a reachable position out.

A saved state loads only if play can reach it from the set-up or from a position laid out by
``IsisOsirisState.from_position`` (the docs page lists the invariants under "Saved states"):
every field in range, the 22 tiles exactly (board, stacks, box and the tile in hand), each
seat's stones and tiles adding up to the turns it has played in seat order, the phase and the
tile in hand consistent, and the step record (``steps``, ``placed_at``, ``acted_at``, which the
memory mode shows) replaying as turns of one or two steps in seat order.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from tabletop_envs.core.errors import InvalidStateError
from tabletop_envs.core.state_check import (
    check_keys,
    check_list,
    read_int,
    read_int_list,
)
from tabletop_envs.games.isis_osiris.tables import (
    MATERIAL,
    NUM_SQUARES,
    OVER,
    PHASE_NAMES,
    PLACE,
    TILE_MIX,
    max_game_length,
    square_name,
)

#: The keys of a saved Isis & Osiris state.
STATE_KEYS = (
    "owner",
    "tiles",
    "placed_at",
    "acted_at",
    "stacks",
    "unused",
    "stones_left",
    "to_move",
    "phase",
    "in_hand",
    "steps",
)

_VALUES = f"a tile value {sorted(TILE_MIX)}"


class SavedIsis(NamedTuple):
    """The checked fields of a saved Isis & Osiris state."""

    owner: list[int]
    tiles: list[int]
    placed_at: list[int]
    acted_at: list[int]
    stacks: list[list[int]]
    unused: list[int]
    stones_left: list[int]
    to_move: int
    phase: int
    in_hand: int
    steps: int


def check_saved_state(data: Any, num_players: int) -> SavedIsis:
    """Return the fields of ``data`` if play can reach them, else raise InvalidStateError."""
    data = check_keys(data, STATE_KEYS)
    n = num_players
    stones, tiles_each, unused_count = MATERIAL[n]
    steps = read_int(data, "steps", 0, max_game_length(n))
    state = SavedIsis(
        owner=read_int_list(data, "owner", -1, n - 1, NUM_SQUARES),
        tiles=_read_tiles(data, "tiles", NUM_SQUARES, empty=0),
        placed_at=read_int_list(data, "placed_at", 0, steps, NUM_SQUARES),
        acted_at=read_int_list(data, "acted_at", 0, steps, n),
        stacks=[
            [
                _tile(v, f"state.stacks[{s}][{i}]")
                for i, v in enumerate(check_list(stack, f"state.stacks[{s}]"))
            ]
            for s, stack in enumerate(check_list(data["stacks"], "state.stacks", n))
        ],
        unused=_read_tiles(data, "unused"),
        stones_left=read_int_list(data, "stones_left", 0, stones, n),
        to_move=read_int(data, "to_move", 0, n - 1),
        phase=read_int(data, "phase", 0, len(PHASE_NAMES) - 1),
        in_hand=_tile(data["in_hand"], "state.in_hand", 0),
        steps=steps,
    )
    for s, stack in enumerate(state.stacks):
        if len(stack) > tiles_each:
            raise InvalidStateError(
                f"state.stacks[{s}]", f"holds {len(stack)} tiles; a stack is dealt {tiles_each}"
            )
    if len(state.unused) != unused_count:
        raise InvalidStateError(
            "state.unused",
            f"holds {len(state.unused)} tiles; with {n} players {unused_count} stay in the box",
        )
    _check_squares(state)
    _check_tile_set(state)
    _check_turns(state, n)
    _check_record(state, n)
    return state


def _read_tiles(
    data: Any, key: str, length: int | None = None, empty: int | None = None
) -> list[int]:
    """Return ``data[key]`` if it is a list of tile values (or ``empty``), else raise."""
    items = check_list(data[key], f"state.{key}", length)
    return [_tile(v, f"state.{key}[{i}]", empty) for i, v in enumerate(items)]


def _tile(value: object, field: str, empty: int | None = None) -> int:
    """Return ``value`` if it is a tile value (or ``empty`` where allowed), else raise."""
    if type(value) is int and (value in TILE_MIX or value == empty):
        return value
    allowed = _VALUES if empty is None else f"{empty} (none) or {_VALUES}"
    raise InvalidStateError(field, f"must be {allowed}, got {value!r}")


def _check_squares(state: SavedIsis) -> None:
    """Raise unless each square holds at most one piece and only tiles have a placement step."""
    for sq, (seat, value, placed) in enumerate(
        zip(state.owner, state.tiles, state.placed_at, strict=True)
    ):
        if seat >= 0 and value:
            raise InvalidStateError(
                f"state.tiles[{sq}]",
                f"square {square_name(sq)} holds a stone of seat {seat} and a tile {value:+d}",
            )
        if placed and not value:
            raise InvalidStateError(
                f"state.placed_at[{sq}]",
                f"square {square_name(sq)} holds no tile, so it has no placement step "
                f"(0), got {placed}",
            )


def _check_tile_set(state: SavedIsis) -> None:
    """Raise unless board, stacks, box and the tile in hand hold the 22 tiles exactly."""
    counts = Counter(v for v in state.tiles if v)
    for stack in state.stacks:
        counts.update(stack)
    counts.update(state.unused)
    if state.in_hand:
        counts[state.in_hand] += 1
    for value in sorted(TILE_MIX):
        if counts[value] != TILE_MIX[value]:
            raise InvalidStateError(
                "state.tiles",
                f"the board, the stacks, the box and the tile in hand hold {counts[value]} "
                f"tiles {value:+d}; the game has {TILE_MIX[value]} (the mix is "
                f"{dict(sorted(TILE_MIX.items()))})",
            )


def _check_turns(state: SavedIsis, n: int) -> None:
    """Raise unless phase, mover, tile in hand and every seat's material fit the turns played.

    Turns go in seat order from seat 0 and each fills one square, so the filled squares fix
    the turns of every seat, and each seat has played exactly that many stones and tiles.
    """
    filled = sum(1 for seat, v in zip(state.owner, state.tiles, strict=True) if seat >= 0 or v)
    over = filled == NUM_SQUARES
    phase = state.phase
    if (phase == OVER) != over:
        raise InvalidStateError(
            "state.phase",
            f"{filled} of {NUM_SQUARES} squares are filled, so the phase is "
            f"{'over' if over else 'a turn or a placement'}, not {PHASE_NAMES[phase]!r}",
        )
    if (phase == PLACE) != bool(state.in_hand):
        raise InvalidStateError(
            "state.in_hand",
            f"a revealed tile is in hand exactly in the {PHASE_NAMES[PLACE]!r} phase; "
            f"got in_hand={state.in_hand} in the {PHASE_NAMES[phase]!r} phase",
        )
    mover = (filled - 1) % n if over else filled % n
    if state.to_move != mover:
        raise InvalidStateError(
            "state.to_move",
            f"after {filled} turns in seat order the seat "
            f"{'that filled the last square' if over else 'to move'} is {mover}",
        )
    stones, tiles_each, _ = MATERIAL[n]
    for seat in range(n):
        turns = filled // n + (seat < filled % n)
        on_board = state.owner.count(seat)
        if on_board > stones:
            raise InvalidStateError(
                "state.owner", f"seat {seat} has {on_board} stones on the board of its {stones}"
            )
        if state.stones_left[seat] != stones - on_board:
            raise InvalidStateError(
                f"state.stones_left[{seat}]",
                f"seat {seat} has {on_board} of its {stones} stones on the board, so "
                f"{stones - on_board} left, got {state.stones_left[seat]}",
            )
        played = tiles_each - len(state.stacks[seat]) - (phase == PLACE and seat == mover)
        if on_board + played != turns:
            raise InvalidStateError(
                f"state.stacks[{seat}]",
                f"seat {seat} has played {on_board} stones and {played} tiles, but "
                f"{turns} turns in seat order fill {filled} squares",
            )


def _check_record(state: SavedIsis, n: int) -> None:
    """Raise unless ``steps``, ``placed_at`` and ``acted_at`` replay as turns in seat order.

    The record counts steps since a start where every entry is 0: the set-up, or a position
    laid out by ``from_position`` (whose tile in hand, if any, was revealed before the start).
    A stone turn is one step; a tile turn two, reveal then place, and ``placed_at`` holds the
    step of its placement. So a tile placed at step 1 ends a turn begun before the start, and
    walking the turns since the start rebuilds every seat's last step, which must match.
    """
    ends = sorted(p for p in state.placed_at if p)
    if len(set(ends)) != len(ends):
        raise InvalidStateError("state.placed_at", "two tiles cannot be placed at the same step")
    revealed = state.phase == PLACE and state.steps > 0  # the last step revealed the tile in hand
    begun = 1 in ends  # the first turn since the start placed a tile revealed before it
    filled = sum(1 for seat, v in zip(state.owner, state.tiles, strict=True) if seat >= 0 or v)
    played = state.steps - len(ends) - revealed + begun  # turns since the start
    if not 0 <= played <= filled:
        raise InvalidStateError(
            "state.steps",
            f"{state.steps} steps with {len(ends)} tiles placed since the start "
            f"{'and a tile revealed ' if revealed else ''}make {played} turns, but "
            f"{filled} squares are filled",
        )
    tile_ends = set(ends)
    step = 0
    last = [0] * n
    stone_turns = [0] * n
    tile_turns = [0] * n
    for turn in range(filled - played, filled):
        seat = turn % n
        length = 1 if step == 0 and begun else 2
        if step + length in tile_ends:
            tile_turns[seat] += 1
        else:
            length = 1
            stone_turns[seat] += 1
        step += length
        last[seat] = step
    if sum(tile_turns) != len(ends):
        raise InvalidStateError(
            "state.placed_at",
            f"the tile placement steps {ends} do not end tile turns (reveal, place) among "
            f"{state.steps} steps of turns in seat order",
        )
    if revealed:
        last[state.to_move] = state.steps
    tiles_each = MATERIAL[n][1]
    for seat in range(n):
        if state.acted_at[seat] != last[seat]:
            raise InvalidStateError(
                f"state.acted_at[{seat}]",
                f"the turns in seat order give seat {seat} its last step at {last[seat]}, "
                f"got {state.acted_at[seat]}",
            )
        in_hand = state.phase == PLACE and seat == state.to_move
        tiles_played = tiles_each - len(state.stacks[seat]) - in_hand
        if stone_turns[seat] > state.owner.count(seat) or tile_turns[seat] > tiles_played:
            raise InvalidStateError(
                "state.placed_at",
                f"the step record gives seat {seat} {stone_turns[seat]} stone turns and "
                f"{tile_turns[seat]} tile turns since the start, more than it has played",
            )
