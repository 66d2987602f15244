"""The observation of Isis & Osiris: channel layout (declared once) and a from-scratch encoder.

An observation is a ``(6, 6, C)`` int8 tensor of 0/1, egocentric: seat-relative channels
list the observer first (``self``), then the seats after it in playing order (``next_1``,
...). Board channels mark squares; *placing* channels are constant planes (one-hot value of
the tile being placed, all zero otherwise); *left* and *unseen* channels are **count bars**:
a count ``c`` sets the first ``c`` squares in row-major order (squares ``0 .. c-1``).

The rules core keeps these planes up to date incrementally; :func:`encode` builds them from
the position alone and is the reference the tests compare the incremental planes against.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from tabletop_envs.games.isis_osiris.tables import NUM_SQUARES, TILE_MIX, TILE_VALUES, VALUE_INDEX

if TYPE_CHECKING:
    from tabletop_envs.games.isis_osiris.rules import IsisOsirisState


def _vname(v: int) -> str:
    return f"p{v}" if v > 0 else f"m{-v}"


def channel_names(num_players: int) -> tuple[str, ...]:
    """Return the observation channels (last axis) for ``num_players``, in order."""
    rel = ["self"] + [f"next_{k}" for k in range(1, num_players)]
    names = [f"stones_{r}" for r in rel]
    names += [f"tile_{_vname(v)}" for v in TILE_VALUES]
    names += ["tile_face_down", "empty"]
    names += [f"placing_{_vname(v)}" for v in TILE_VALUES]
    names += [f"stones_left_{r}" for r in rel]
    names += [f"tiles_left_{r}" for r in rel]
    names += [f"unseen_{_vname(v)}" for v in TILE_VALUES]
    return tuple(names)


#: What each channel group means (used by the docs and the tests).
CHANNEL_GROUPS: tuple[tuple[str, str], ...] = (
    ("stones_<rel>", "board: a stone of that seat on the square"),
    ("tile_<v>", "board: a tile of value v, shown (memory mode: if witnessed, or at the end)"),
    ("tile_face_down", "board: a tile shown face down (memory mode: not witnessed, not over)"),
    ("empty", "board: an empty square"),
    ("placing_<v>", "constant plane: the revealed tile being placed now has value v"),
    ("stones_left_<rel>", "count bar: stones that seat has left"),
    ("tiles_left_<rel>", "count bar: tiles left in that seat's stack"),
    ("unseen_<v>", "count bar: tiles of value v this observation does not show face up"),
)


@dataclass(frozen=True, eq=False)
class Layout:
    """Channel offsets of the observation for one player count."""

    num_players: int
    channels: tuple[str, ...]
    stones: int  # + relative seat
    tile_value: int  # + value index
    face_down: int
    empty: int
    placing: int  # + value index
    stones_left: int  # + relative seat
    tiles_left: int  # + relative seat
    unseen: int  # + value index


@cache
def layout(num_players: int) -> Layout:
    """Return the observation layout for ``num_players``."""
    names = channel_names(num_players)
    c = {name: k for k, name in enumerate(names)}
    return Layout(
        num_players=num_players,
        channels=names,
        stones=c["stones_self"],
        tile_value=c["tile_m4"],
        face_down=c["tile_face_down"],
        empty=c["empty"],
        placing=c["placing_m4"],
        stones_left=c["stones_left_self"],
        tiles_left=c["tiles_left_self"],
        unseen=c["unseen_m4"],
    )


def shows_face_down(state: IsisOsirisState) -> bool:
    """Return whether board tiles can be shown face down: memory mode until the game is over.

    At the end every tile is turned face up (the rules), in both modes.
    """
    return state.params.memory and not state.is_terminal


def witnessed(state: IsisOsirisState, seat: int, square: int) -> bool:
    """Return whether the tile on ``square`` was placed after ``seat``'s last decision step.

    ``state.placed_at[square]`` and ``state.acted_at[seat]`` are step numbers (0: before the
    first step), so this holds for the reveals ``seat`` watched while the others played, and
    not for its own tiles (placed at its own last step) nor for any tile once it has acted.
    """
    return state.placed_at[square] > state.acted_at[seat]


def shows_value(state: IsisOsirisState, seat: int, square: int) -> bool:
    """Return whether ``seat``'s observation shows the value of the tile on ``square``.

    Always with perfect recall and at the end; in memory mode only a witnessed tile (see
    :func:`witnessed`), so an agent that observes on its own turns sees every reveal once.
    """
    return not shows_face_down(state) or witnessed(state, seat, square)


def unseen_counts(state: IsisOsirisState, seat: int) -> list[int]:
    """Return, per value of ``TILE_VALUES``, how many tiles ``seat``'s observation does not show
    face up: the 22-tile mix minus the board tiles it shows minus the tile being placed.

    With perfect recall (and at the end) that is exactly the values still hidden in the stacks
    and the box, the same for every seat. In memory mode only the tiles the observation shows
    face up are subtracted, so no face-down value can be inferred from the counts.
    """
    counts = [TILE_MIX[v] for v in TILE_VALUES]
    all_shown = not shows_face_down(state)  # else: only the witnessed tiles (shows_value)
    for sq, v in enumerate(state.tiles):
        if v and (all_shown or witnessed(state, seat, sq)):
            counts[VALUE_INDEX[v + 4]] -= 1
    if state.in_hand:
        counts[VALUE_INDEX[state.in_hand + 4]] -= 1
    return counts


def encode(state: IsisOsirisState, seat: int) -> np.ndarray:
    """Return ``seat``'s observation as flat ``(36, C)`` planes, built from the position."""
    n = state.num_players
    lay = layout(n)
    out = np.zeros((NUM_SQUARES, len(lay.channels)), dtype=np.int8)
    all_shown = not shows_face_down(state)  # else: only the witnessed tiles (shows_value)
    for sq in range(NUM_SQUARES):
        owner, value = state.owner[sq], state.tiles[sq]
        if owner >= 0:
            out[sq, lay.stones + (owner - seat) % n] = 1
        elif value:
            if all_shown or witnessed(state, seat, sq):
                out[sq, lay.tile_value + VALUE_INDEX[value + 4]] = 1
            else:
                out[sq, lay.face_down] = 1
        else:
            out[sq, lay.empty] = 1
    if state.in_hand:
        out[:, lay.placing + VALUE_INDEX[state.in_hand + 4]] = 1
    for other in range(n):
        rel = (other - seat) % n
        out[: state.stones_left[other], lay.stones_left + rel] = 1
        out[: len(state.stacks[other]), lay.tiles_left + rel] = 1
    for k, count in enumerate(unseen_counts(state, seat)):
        out[:count, lay.unseen + k] = 1
    return out


@dataclass(frozen=True, eq=False)
class PlaneOffsets:
    """Flat offsets into the ``(n, 36, C)`` planes used by the incremental updates.

    Offsets of seat-relative channels are per acting seat, one entry per viewer; a square's
    offset adds ``square * channels``.
    """

    num_players: int
    channels: int  # C: stride of one square
    views: tuple[int, ...]  # start of each viewer's planes
    placing: int
    unseen: int
    tile_value: int
    face_down: int
    empty: int
    stone: tuple[tuple[tuple[int, int, int], ...], ...]  # (stone, stones_left, empty)
    reveal: tuple[tuple[tuple[int, int], ...], ...]  # (tiles_left, viewer start)


@cache
def plane_offsets(num_players: int) -> PlaneOffsets:
    """Return the offsets of the incremental updates for ``num_players`` seats."""
    lay = layout(num_players)
    c = len(lay.channels)
    n = num_players
    views = tuple(v * NUM_SQUARES * c for v in range(n))
    return PlaneOffsets(
        num_players=n,
        channels=c,
        views=views,
        placing=lay.placing,
        unseen=lay.unseen,
        tile_value=lay.tile_value,
        face_down=lay.face_down,
        empty=lay.empty,
        stone=tuple(
            tuple(
                (
                    views[v] + lay.stones + (s - v) % n,
                    views[v] + lay.stones_left + (s - v) % n,
                    views[v] + lay.empty,
                )
                for v in range(n)
            )
            for s in range(n)
        ),
        reveal=tuple(
            tuple((views[v] + lay.tiles_left + (s - v) % n, views[v]) for v in range(n))
            for s in range(n)
        ),
    )
