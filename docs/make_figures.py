"""Draw the pictures of the rules pages (docs/img/rules/*.png) with the library's own renderers.

    python docs/make_figures.py            # rewrite the pictures
    python docs/make_figures.py --check    # exit 1 if a picture is missing or out of date

Every picture is a position of the real rules core drawn by the env's ``rgb_array`` renderer
(``games.<game>.image.draw``); this script only crops, enlarges, puts panels side by side and
outlines a tile or marks cells. The facts the pages state about a picture (scores, reasons a
placement is illegal) are checked here, so a change to the rules or the renderers fails this
script instead of leaving a wrong picture. PNGs are written with the standard library only
(zlib), byte for byte reproducible; ``tests/test_figures.py`` runs ``--check``.
"""

from __future__ import annotations

import argparse
import struct
import sys
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from tabletop_envs.games.iris import IrisState
from tabletop_envs.games.iris import image as iris_image
from tabletop_envs.games.irk import image as irk_image
from tabletop_envs.games.irk.deck import STANDARD_DECK
from tabletop_envs.games.irk.placement import why_illegal
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.games.isis_osiris import image as isis_image
from tabletop_envs.games.isis_osiris.rules import IsisOsirisState
from tabletop_envs.render.raster import Color, canvas, fill_circle, fill_rect

OUT = Path(__file__).resolve().parent / "img" / "rules"
BACKGROUND: Color = (255, 255, 255)
OUTLINE: Color = (20, 20, 20)
DOT: Color = (30, 30, 30)
GAP = 16

#: The standard Irk deck, the one the rules page shows (ids 0-29 column by column).
IRK_DECK = STANDARD_DECK


# ---- image plumbing ---------------------------------------------------------------------------
def png_bytes(img: np.ndarray) -> bytes:
    """Return ``img`` (H, W, 3 uint8) as PNG file bytes (no timestamps: reproducible)."""
    height, width = img.shape[:2]
    raw = b"".join(b"\x00" + img[y].astype(np.uint8).tobytes() for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def side_by_side(panels: Sequence[np.ndarray]) -> np.ndarray:
    """Return the panels in one row, top-aligned, ``GAP`` pixels apart on white."""
    height = max(p.shape[0] for p in panels)
    width = sum(p.shape[1] for p in panels) + GAP * (len(panels) - 1)
    out = canvas(height, width, BACKGROUND)
    x = 0
    for p in panels:
        out[: p.shape[0], x : x + p.shape[1]] = p
        x += p.shape[1] + GAP
    return out


def stacked(rows: Sequence[np.ndarray]) -> np.ndarray:
    """Return the images one below the other, left-aligned, ``GAP`` pixels apart on white."""
    width = max(r.shape[1] for r in rows)
    height = sum(r.shape[0] for r in rows) + GAP * (len(rows) - 1)
    out = canvas(height, width, BACKGROUND)
    y = 0
    for r in rows:
        out[y : y + r.shape[0], : r.shape[1]] = r
        y += r.shape[0] + GAP
    return out


def enlarge(img: np.ndarray, factor: int) -> np.ndarray:
    """Return ``img`` with every pixel repeated ``factor`` times each way."""
    return np.repeat(np.repeat(img, factor, axis=0), factor, axis=1)


def frame(img: np.ndarray, x0: float, y0: float, x1: float, y1: float, width: int = 2) -> None:
    """Draw a rectangle outline from ``(x0, y0)`` to ``(x1, y1)`` in place."""
    fill_rect(img, x0, y0, x1, y0 + width, OUTLINE)
    fill_rect(img, x0, y1 - width, x1, y1, OUTLINE)
    fill_rect(img, x0, y0, x0 + width, y1, OUTLINE)
    fill_rect(img, x1 - width, y0, x1, y1, OUTLINE)


# ---- Iris -------------------------------------------------------------------------------------
def iris_opening() -> np.ndarray:
    """(a) the empty side-5 board, Black to move; (b) after Black's opening stone."""
    start = IrisState.from_position(board_size=5, to_move=0)
    after = start.clone()
    after.apply(after.coord_to_action(0, 0))
    assert after.current_player == 1  # White's first two-stone turn comes next
    return side_by_side([iris_image.draw(start), iris_image.draw(after)])


def _iris_midgame() -> IrisState:
    return IrisState.from_position(
        board_size=5,
        black=[(0, 0), (1, -1), (-2, 1), (4, -1), (-4, 1)],
        white=[(0, 1), (-1, 0), (2, 0)],
        to_move=1,
    )


def iris_forced() -> np.ndarray:
    """White's colored first stone (ringed), its forced opposite (dot), then the pair placed."""
    state = _iris_midgame()
    state.apply(state.coord_to_action(2, -4))
    assert state.legal_actions() == [state.coord_to_action(-2, 4)]
    first = iris_image.draw(state)
    state.apply(state.coord_to_action(-2, 4))
    return side_by_side([first, iris_image.draw(state)])


def iris_gray() -> np.ndarray:
    """White's gray first stone (ringed); dots on every cell its second stone may take."""
    state = _iris_midgame()
    state.apply(state.coord_to_action(1, 1))
    img = iris_image.draw(state)
    n = state.params.board_size
    legal = state.legal_actions()
    for action in legal:
        x, y = iris_image.cell_center(n, *state.action_to_coord(action))
        fill_circle(img, x, y, 4, DOT)
    assert len(legal) == 26, len(legal)
    return img


def iris_scoring() -> np.ndarray:
    """A finished side-3 game (seeded random play) and its group scores."""
    state = IrisState.from_position(board_size=3, to_move=0)
    rng = np.random.default_rng(3)
    while not state.is_terminal:
        legal = state.legal_actions()
        state.apply(int(rng.choice(legal[:-1] if len(legal) > 1 else legal)))
    assert state.group_scores() == ([6], [3, 3]), state.group_scores()
    assert state.returns().tolist() == [1.0, -1.0]
    return enlarge(iris_image.draw(state), 2)


# ---- Isis & Osiris ----------------------------------------------------------------------------
def isis_opening() -> np.ndarray:
    """The empty board of a 2-player game: stones and stacks below, ``player_0`` to move."""
    return isis_image.draw(IsisOsirisState.new(seed=0, num_players=2))


def _isis_midgame() -> IsisOsirisState:
    return IsisOsirisState.from_position(
        [
            ". . . . . .",
            ". A +2 . . .",
            ". . B . -3 .",
            ". . . A . .",
            ". +1 . . B .",
            ". . . . . B",
        ],
        seed=4,
    )


def isis_tile_turn() -> np.ndarray:
    """(a) ``player_0`` reveals its top tile; (b) it lays the tile; (c) ``player_1`` to move."""
    state = _isis_midgame()
    assert state.current_player == 0
    state.apply(state.reveal_action)
    assert state.in_hand == -3, state.in_hand
    revealed = isis_image.draw(state)
    state.apply(state.tile_action(3, 2))
    return side_by_side([revealed, isis_image.draw(state)])


def isis_scoring() -> np.ndarray:
    """A full 2-player board and its scores."""
    state = IsisOsirisState.from_position(
        [
            "A +2 B -1 +3 -2",
            "+1 B -2 A +4 B",
            "A -3 A +2 B -2",
            "+2 B -1 B +1 A",
            "B -4 A +2 B -2",
            "+3 -2 -3 A +2 A",
        ],
        seed=0,
    )
    assert state.is_terminal
    assert list(state.scores()) == [-6, 4], state.scores()
    return isis_image.draw(state)


# ---- Irk --------------------------------------------------------------------------------------
def _frame_cells(img: np.ndarray, state: IrkState, cells: Sequence[int]) -> None:
    """Outline the tile lying on table ``cells`` (indices ``row * size + col``) of ``img``."""
    cell, left = irk_image.CELL, irk_image.MARGIN + irk_image.LABEL_ROOM
    r0, c0, _, _ = irk_image.window(state)
    size = state.params.table_size
    rows, cols = zip(*(divmod(int(c), size) for c in cells), strict=True)
    frame(
        img,
        left + (min(cols) - c0) * cell - 1,
        left + (min(rows) - r0) * cell - 1,
        left + (max(cols) + 1 - c0) * cell + 1,
        left + (max(rows) + 1 - r0) * cell + 1,
    )


def irk_opening() -> np.ndarray:
    """The five opening tiles of a 2-player game, upright and side by side (each outlined)."""
    state = IrkState.new(seed=2, deck=IRK_DECK)
    img = irk_image.draw(state)
    for _, _, placement in state.placements:  # the opening: [seat -1, tile, placement]
        _frame_cells(img, state, state.tables.cells[placement])
    return img


def irk_place_state() -> IrkState:
    """Round 2 of ``IrkState.new(seed=2)`` (the rules page's deck): ``player_0`` places Y1 R2 ."""
    state = IrkState.new(seed=2, deck=IRK_DECK)
    label = {state.tile_label(t): t for t in range(state.deck_size)}
    for tile in ("R1 B* Y1", "P1 R* B1", "Y1 R2 .", "G1 B2 ."):  # two bets, two table choices
        state.apply(label[tile])
    assert state.chosen[0] == label["Y1 R2 ."] and state.current_player == 0
    return state


#: The placements of the figure, (row, col, orientation), and why each is illegal.
IRK_PLACEMENTS = (
    ((15, 16, 1), None),
    ((18, 18, 1), "neither covers nor shares an edge"),
    ((15, 13, 1), "the numbered flower R3 at (15, 13) may only be covered by a numbered flower"),
    ((15, 14, 0), "the starred flower Y* at (15, 14) may only be covered by a starred flower"),
    ((15, 17, 2), "makes 2 mismatches; at most one is allowed"),
)


def irk_placements() -> np.ndarray:
    """The table, then the tile Y1 R2 . laid: legal; no contact; on a 3; on a star; 2 mismatches."""
    state = irk_place_state()
    tile = state.chosen[0]
    codes = state.tiles[tile]
    size = state.params.table_size
    panels = [irk_image.draw(state)]
    for (row, col, o), reason in IRK_PLACEMENTS:
        placement = state.placement_to_action(row, col, o) - state.deck_size
        why = why_illegal(state.visible_grid(), codes, size, placement)
        assert (why is None) if reason is None else (why is not None and reason in why), why
        shown = state.clone()
        shown._put(tile, placement)  # draw the placement even where the rules reject it
        img = irk_image.draw(shown)
        _frame_cells(img, shown, state.tables.cells[placement])
        panels.append(img)
    return stacked([side_by_side(panels[:3]), side_by_side(panels[3:])])


#: A whole 2-player game (``IrkState.new(seed=2)``, the rules page's deck), round by round:
#: a tile label is a secret choice, ``(row, col, orientation)`` a placement.
IRK_GAME: tuple[str | tuple[int, int, str], ...] = (
    *("R1 B* Y1", "Y1 B* R1"),  # round 1, bet
    *("Y2 P1 .", "G2 R1 .", (16, 14, "right"), (15, 17, "right")),  # round 2, table
    *("P1 G* Y1", "B1 . P2", (12, 13, "down"), (18, 19, "up")),  # round 3, table
    *("Y1 R2 .", "G1 Y* P1"),  # round 4, bet
    *("B1 R* G1", "P1 R* B1", (15, 15, "down"), (16, 20, "right")),  # round 5, table
    *("G1 B2 .", "R1 G2 .", (12, 14, "down"), (14, 14, "left")),  # round 6, table
    *(". Y3 .", "G1 P* R1"),  # round 7, bet
)
#: What the rules page says about the end of that game.
IRK_RESULT = {
    "table_values": [3, 3, 3, 3, 2],
    "counts": [[0, 3, 5, 0, 1], [2, 2, 2, 2, 1]],
    "stars": [[0, 0, 0, 0, 1], [0, 0, 1, 1, 1]],
    "points": [[0, 3, 3, 0, 1], [3, 0, 0, 3, 1]],
    "totals": [7, 7],
    "star_totals": [1, 3],
    "winners": [1],
}


def irk_scoring() -> np.ndarray:
    """The table at the end of ``IRK_GAME``, the rules page's scoring example."""
    state = IrkState.new(seed=2, deck=IRK_DECK)
    label = {state.tile_label(t): t for t in range(state.deck_size)}
    for move in IRK_GAME:
        state.apply(label[move] if isinstance(move, str) else state.placement_to_action(*move))
    assert state.is_terminal
    result = state.score()
    assert {k: result[k] for k in IRK_RESULT} == IRK_RESULT, result
    return irk_image.draw(state)


FIGURES: dict[str, Callable[[], np.ndarray]] = {
    "iris_opening": iris_opening,
    "iris_forced": iris_forced,
    "iris_gray": iris_gray,
    "iris_scoring": iris_scoring,
    "isis_osiris_opening": isis_opening,
    "isis_osiris_tile_turn": isis_tile_turn,
    "isis_osiris_scoring": isis_scoring,
    "irk_opening": irk_opening,
    "irk_placements": irk_placements,
    "irk_scoring": irk_scoring,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Write every figure (or with ``--check`` compare them); return the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--out", type=Path, default=OUT, help="folder of the PNGs")
    args = parser.parse_args(argv)
    stale = []
    args.out.mkdir(parents=True, exist_ok=True)
    for name, build in FIGURES.items():
        path = args.out / f"{name}.png"
        data = png_bytes(build())
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(path.name)
        else:
            path.write_bytes(data)
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}; run python docs/make_figures.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
