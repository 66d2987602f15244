"""Iris components and geometry (rules/iris.md, "Components" and "Geometry")."""

from __future__ import annotations

import contextlib
import re
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.games.iris import IrisParams, IrisState
from tests.iris.boards import cell_marks, parse_board, play, position, stones
from tests.iris.reference import CUBE_DIRECTIONS, RefIris, cube_cells, ring_walk

SIDES = range(3, 11)


def _cells(state: IrisState) -> list[tuple[int, int]]:
    """Return every on-board cell of ``state`` as axial coordinates (public API only)."""
    out = []
    for a in range(state.spec.num_actions - 1):
        with contextlib.suppress(ValueError):
            out.append(state.action_to_coord(a))
    return out


def _color_of(state: IrisState) -> dict[tuple[int, int], str]:
    """Return the color letter of every colored cell, read from the empty board picture."""
    return {(q, r): tok for q, r, tok in cell_marks(state.render_text())[1] if tok.isalpha()}


@pytest.mark.parametrize("side", SIDES)
def test_cell_count_is_3n_n_minus_1_plus_1(side):
    state = IrisState.new(board_size=side)
    cells = _cells(state)
    assert len(cells) == 3 * side * (side - 1) + 1
    assert sorted(cells) == sorted((q, r) for q, r, _ in cube_cells(side))


def test_default_board_is_side_5_with_61_cells():
    state = IrisState.new()
    assert state.params == IrisParams(board_size=5, auto_forced=False)
    assert len(_cells(state)) == 61


@pytest.mark.parametrize("bad", [2, 17, 0, -5, 5.0, "5", True, None])
def test_board_size_out_of_range_or_wrong_type_is_refused(bad):
    with pytest.raises((InvalidParameterError, TypeError), match="board_size"):
        IrisState.new(board_size=bad)


@pytest.mark.parametrize("side", SIDES)
def test_colored_cells_are_the_6_n_minus_1_outer_ring(side):
    colors = _color_of(IrisState.new(board_size=side))
    m = side - 1
    assert len(colors) == 6 * (side - 1)
    assert set(colors) == {(q, r) for q, r, s in cube_cells(side) if max(map(abs, (q, r, s))) == m}


@pytest.mark.parametrize("side", SIDES)
def test_coloring_walks_the_ring_giving_cell_k_color_k_mod_3_n_minus_1(side):
    colors = _color_of(IrisState.new(board_size=side))
    walk = [(q, r) for q, r, _ in ring_walk(side)]
    letters = sorted(set(colors.values()), key=lambda c: (c.isupper(), c))
    assert len(letters) == 3 * (side - 1)
    # Start the walk at the first cell of color 'a', in the direction of color 'b'.
    start = walk.index(next(c for c in walk if colors[c] == letters[0]))
    walk = walk[start:] + walk[:start]
    if colors[walk[1]] != letters[1]:
        walk = [walk[0], *reversed(walk[1:])]
    for k, cell in enumerate(walk):
        assert colors[cell] == letters[k % (3 * (side - 1))], (k, cell)


@pytest.mark.parametrize("side", SIDES)
def test_each_color_is_on_exactly_a_cell_and_its_point_reflection(side):
    colors = _color_of(IrisState.new(board_size=side))
    by_color: dict[str, set] = {}
    for cell, letter in colors.items():
        by_color.setdefault(letter, set()).add(cell)
    for cells in by_color.values():
        a, b = sorted(cells)
        assert b == (-a[0], -a[1])


@pytest.mark.parametrize("side", SIDES)
def test_corners_are_opposite_corners_and_same_color(side):
    m = side - 1
    corners = [(m, -m), (m, 0), (0, m), (-m, m), (-m, 0), (0, -m)]
    colors = _color_of(IrisState.new(board_size=side))
    for q, r in corners:
        assert (-q, -r) in corners
        assert colors[(q, r)] == colors[(-q, -r)]


def test_colored_first_stone_on_a_corner_forces_the_opposite_corner():
    state = IrisState.new(board_size=5)
    play(state, "(0, 0)", "(4, -4)")
    assert {state.action_to_coord(a) for a in state.legal_actions()} == {(-4, 4)}


@pytest.mark.parametrize("side", [3, 5, 8])
def test_adjacency_is_the_six_cube_directions(side):
    """A gray first stone refuses exactly its six neighbours (plus itself) as second stone."""
    state = IrisState.new(board_size=side)
    play(state, "(0, 0)")  # Black's opening; White to move
    ref = RefIris(side=side)
    for q, r in [c for c in ref.cells if not ref.colored(c) and c != (0, 0)]:
        s = state.clone()
        play(s, (q, r))
        legal = {s.action_to_coord(a) for a in s.legal_actions() if a != s.pass_action}
        gray = {c for c in ref.cells if not ref.colored(c)} - {(0, 0), (q, r)}
        near = {(q + dq, r + dr) for dq, dr, _ in CUBE_DIRECTIONS}
        assert legal == gray - near, (q, r)


@pytest.mark.parametrize("side", [3, 5, 10])
def test_action_ids_index_the_axial_array_and_round_trip(side):
    state = IrisState.new(board_size=side)
    w = 2 * side - 1
    assert state.spec.num_actions == w * w + 1
    assert state.pass_action == w * w
    for q, r, _ in cube_cells(side):
        a = state.coord_to_action(q, r)
        assert a == (r + side - 1) * w + (q + side - 1)
        assert state.action_to_coord(a) == (q, r)
        assert state.action_to_string(a) == f"({q}, {r})"
    assert state.action_to_string(state.pass_action) == "pass"


def test_coord_to_action_refuses_off_board_cells_naming_them():
    state = IrisState.new(board_size=3)
    for q, r in [(3, 0), (2, 1), (-2, -1), (0, 5)]:
        with pytest.raises(ValueError, match=rf"q={q}, r={r}.*side 3"):
            state.coord_to_action(q, r)


def test_action_to_coord_refuses_pass_off_board_and_out_of_range_ids():
    state = IrisState.new(board_size=3)
    with pytest.raises(ValueError, match="pass"):
        state.action_to_coord(state.pass_action)
    with pytest.raises(ValueError, match="not a cell"):
        state.action_to_coord(0)  # corner of the 5x5 array, off the hexagon
    for bad in (-1, state.spec.num_actions + 3):
        with pytest.raises(ValueError):
            state.action_to_coord(bad)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.coord_to_action(0.5, 0), "q must be an integer, got 0.5"),
        (lambda s: s.coord_to_action(0, True), "r must be an integer, got True"),
        (lambda s: s.coord_to_action("0", 0), "q must be an integer"),
        (lambda s: s.action_to_coord("40"), "action must be an integer from 0 to 81"),
        (lambda s: s.action_to_coord(40.0), "action must be an integer from 0 to 81"),
        (lambda s: s.action_to_coord(-1), "action must be from 0 to 81, got -1"),
        (lambda s: s.action_to_string(-1), "action must be from 0 to 81, got -1"),
        (lambda s: s.action_to_string(True), "action must be an integer from 0 to 81"),
        (lambda s: s.action_to_string(82), "action must be from 0 to 81, got 82"),
    ],
)
def test_helpers_refuse_non_integers_and_out_of_range_ids(call, message):
    """The helpers name the argument and its valid values instead of computing nonsense."""
    state = IrisState.new()  # board side 5: ids 0-80 are cells, 81 is pass
    with pytest.raises(InvalidParameterError, match=message):
        call(state)


def test_helpers_accept_numpy_integers():
    state = IrisState.new()
    assert state.coord_to_action(np.int64(0), np.int8(0)) == 40
    assert state.action_to_coord(np.int32(40)) == (0, 0)
    assert state.action_to_string(np.int64(state.pass_action)) == "pass"


def test_text_picture_round_trips_through_the_parser():
    board = """
        O b c
       f . . d
      e . X X e
       d . O f
        c b O
    """
    state = position(board, to_move=1)
    white = [(0, -2), (0, 1), (0, 2)]
    assert stones(state) == ([(0, 0), (1, 0)], white)
    assert parse_board(state.render_text()) == (3, [(0, 0), (1, 0)], white)
    rendered = """
        (q, r): r left of each row, q at the end of its line of cells running down-right
        -2      O   b   c
        -1    f   .   .   d
         0  e   .   X   X   e
         1    d   .   O   f   2
         2      c   b   O   1
                 -2  -1   0
    """
    assert state.render_text().splitlines()[:7] == textwrap.dedent(rendered).strip().splitlines()


@pytest.mark.parametrize("side", [3, 5, 11])
def test_text_board_coordinates_are_those_moves_are_typed_in(side: int) -> None:
    """Each stone typed as ``q r`` sits in the row labelled ``r``, on the line of cells running
    down-right to the label ``q`` (what the legend says), on every board size."""
    state = IrisState.new(board_size=side)
    lines = state.render_text().splitlines()
    m = side - 1
    rows = {int(line.split()[0]): k for k, line in enumerate(lines[1 : 2 * m + 2], start=1)}
    assert sorted(rows) == list(range(-m, m + 1))
    labels = {}  # q -> (line, column of the label's last character)
    skip = len(str(-m)) + 2  # the r labels' column
    for k, line in enumerate(lines[1 : 2 * m + 3], start=1):
        for match in re.finditer(r"-?\d+", line[skip:]):
            labels[int(match.group())] = (k, skip + match.end() - 1)
    assert sorted(labels) == list(range(-m, m + 1))
    for q, r in [(0, 0), (-m, 0), (m, -m), (0, m), (-1, m), (m, 0), (1, -1), (-m, m)]:
        text = state.clone()
        text.board[text.coord_to_action(q, r)] = 1  # a black stone typed as "q r"
        picture = text.render_text().splitlines()
        k = rows[r]
        column = picture[k].index("X")
        line, end = labels[q]
        assert (end - column) == 2 * (line - k), (q, r)  # down-right: 2 columns per row
        assert all(picture[k + i][column + 2 * i] != " " for i in range(line - k))


def test_parser_refuses_malformed_pictures():
    with pytest.raises(ValueError, match="colored cell"):
        parse_board("a . c\n f . . d\ne . . . e\n d . . f\n c b a")
    with pytest.raises(ValueError, match="gray cell"):
        parse_board("a b c\n f z . d\ne . . . e\n d . . f\n c b a")
    with pytest.raises(ValueError, match="needs 4 cells"):
        parse_board("a b c\n f . d\ne . . . e\n d . . f\n c b a")


def test_ansi_render_distinguishes_colored_gray_black_and_white():
    from tabletop_envs import iris_v0

    env = iris_v0.raw_env(board_size=3, render_mode="ansi")
    env.reset(seed=0)
    for move in [(0, 0), (0, -2), (0, 2), (1, -1), (-1, 1)]:
        env.step(env.game.coord_to_action(*move))
    text = env.render()
    assert text == env.game.render_text()
    rows = [line.split()[1:] for line in text.splitlines()[1:6]]  # without the r labels
    assert rows[0][0] == "O" and rows[4][2] == "O"  # White's colored pair (0, -2), (0, 2)
    assert rows[1][2] == "X" and rows[3][1] == "X"  # Black's gray stones (1, -1), (-1, 1)
    assert rows[2][2] == "X"  # Black's opening stone at the centre
    assert rows[0][1].isalpha() and rows[0][1] not in "XO"  # an empty colored cell: a letter
    assert rows[1][1] == "."  # an empty gray cell
    assert text.splitlines()[-1] == "White to move: first stone"


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_auto_forced_must_be_a_bool(bad):
    with pytest.raises(InvalidParameterError, match="auto_forced must be True or False"):
        IrisState.new(auto_forced=bad)


def test_the_env_page_shows_the_text_board_as_rendered() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "iris.md").read_text()
    block = page.split("Side 5:\n\n    ```text\n", 1)[1].split("    ```", 1)[0]
    shown = [line.removeprefix("    ") for line in block.splitlines()]
    assert shown == IrisState.new(board_size=5).render_text().splitlines()
