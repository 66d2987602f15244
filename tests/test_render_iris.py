"""The Iris rgb_array image: shape, board size, stones at their cells, env.render()."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tabletop_envs import make
from tabletop_envs.games.iris.image import (
    GRAY,
    HIGHLIGHT,
    STATUS_HEIGHT,
    STONE_COLORS,
    cell_center,
    draw,
    frame_size,
    image_size,
    pair_colors,
)
from tabletop_envs.games.iris.rules import IrisState


def _pixel(img: np.ndarray, board_size: int, q: int, r: int) -> tuple[int, ...]:
    x, y = cell_center(board_size, q, r)
    return tuple(int(c) for c in img[int(y), int(x)])


@pytest.mark.parametrize("board_size", [3, 5, 8, 16])
def test_image_is_rgb_uint8_of_the_declared_size(board_size: int) -> None:
    img = draw(IrisState.new(board_size=board_size))
    assert img.dtype == np.uint8
    assert img.shape == (*image_size(board_size), 3)


def test_board_size_changes_the_image() -> None:
    small = draw(IrisState.new(board_size=5))
    big = draw(IrisState.new(board_size=7))
    assert big.shape[0] > small.shape[0]
    assert big.shape[1] > small.shape[1]


def test_empty_cells_show_gray_interior_and_a_hue_per_color_pair() -> None:
    state = IrisState.new(board_size=5)
    img = draw(state)
    t = state.tables
    hues = pair_colors(5)
    assert len(set(hues)) == len(hues) == 12
    for idx in t.board.cells:
        q, r = t.board.coord(idx)
        expected = hues[t.color[idx]] if t.colored[idx] else GRAY
        assert _pixel(img, 5, q, r) == expected, (q, r)


def test_a_stone_changes_pixels_at_its_cell_only() -> None:
    before = IrisState.new(board_size=5)
    after = before.clone()
    after.apply(after.coord_to_action(1, -1))  # Black's opening stone
    a, b = draw(before), draw(after)
    assert _pixel(a, 5, 1, -1) == GRAY
    assert _pixel(b, 5, 1, -1) == STONE_COLORS[0]
    changed_y, changed_x = np.nonzero((a != b).any(axis=2))
    x, y = cell_center(5, 1, -1)
    # the stone, the player-to-move disc in the top-left corner and the status line at the
    # bottom (Black -> White)
    near = np.hypot(changed_x - x, changed_y - y) < 20
    corner = (changed_x < 30) & (changed_y < 30)
    status = changed_y > a.shape[0] - STATUS_HEIGHT - 10
    assert near.any() and status.any()
    assert (near | corner | status).all()


def test_white_stones_and_the_pending_first_stone_are_drawn() -> None:
    state = IrisState.from_position(black=[(0, 0)], to_move=1)
    state.apply(state.coord_to_action(4, -4))  # colored first stone: opposite (-4, 4) forced
    img = draw(state)
    assert _pixel(img, 5, 4, -4) == STONE_COLORS[1]
    x, y = cell_center(5, 4, -4)
    assert tuple(img[int(y), int(x + 15)]) == HIGHLIGHT  # the ring around the pending stone
    assert _pixel(img, 5, -4, 4) == HIGHLIGHT  # the forced cell's dot


def test_draw_does_not_change_the_state_or_share_buffers() -> None:
    state = IrisState.from_position(black=[(0, 0)], white=[(2, -1)])
    before = state.to_json()
    first = draw(state)
    first[:] = 0
    assert state.to_json() == before
    assert draw(state).any()


def test_env_render_rgb_array_returns_the_image() -> None:
    env = make("iris_v0", board_size=6, render_mode="rgb_array")
    env.reset(seed=3)
    for _ in range(5):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[0]))
    img = env.render()
    assert isinstance(img, np.ndarray)
    assert img.shape == (*frame_size(env.game.params), 3) == (*image_size(6, 4), 3)
    picture = draw(env.game)  # a one-line status: the frame's lower lines stay empty
    np.testing.assert_array_equal(img[: picture.shape[0]], picture)
    assert (img[picture.shape[0] :] == img[-1, -1]).all()


def test_the_image_module_needs_no_pillow_or_pygame() -> None:
    code = (
        "import sys, tabletop_envs.games.iris.image as m; "
        "print(sorted(k for k in ('PIL', 'pygame') if k in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
