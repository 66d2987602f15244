"""The pictures: one drawing description drawn as an RGB array and as SVG, per game."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tabletop_envs import make
from tabletop_envs.games.irk.image import drawing as irk_drawing
from tabletop_envs.games.irk.image import window
from tabletop_envs.games.isis_osiris.image import NEGATIVE, POSITIVE, SEAT_COLORS
from tabletop_envs.games.isis_osiris.image import drawing as isis_drawing
from tabletop_envs.render import font
from tabletop_envs.render.draw import Circle, Drawing, Polygon, Rect, Text, fit, to_rgb, to_svg
from tests.conformance.cases import CASES, new_game, random_action

SVG = "{http://www.w3.org/2000/svg}"


def _played(name: str, params: dict, steps: int, seed: int = 0):
    env = make(name, render_mode="svg", **params)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    game = env.game
    while not game.is_terminal and len(game.actions) < steps:
        env.step(random_action(game, rng))
    return env


@pytest.mark.parametrize(("name", "params"), CASES)
@pytest.mark.parametrize("steps", [0, 12, 10_000])
def test_svg_parses_and_agrees_with_the_rgb_array(name: str, params: dict, steps: int) -> None:
    env = _played(name, params, steps)
    text = env.render()
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    picture = env.env_spec.load_image()(env.game)
    frame_size = env.env_spec.load_frame()
    if frame_size is not None:
        picture = fit(picture, *frame_size(env.game.params))
    assert (int(root.get("width")), int(root.get("height"))) == (picture.width, picture.height)
    shapes = [el for el in root if el.tag != f"{SVG}title"]
    assert len(shapes) == len(picture.shapes) + 1  # the background first
    texts = [el.text for el in root.iter(f"{SVG}text")]
    assert texts == [s.text for s in picture.shapes if isinstance(s, Text)]
    assert all(font.glyph(c) is not font.glyph("?") or c == "?" for t in texts for c in t)
    env.render_mode = "rgb_array"
    img = env.render()
    assert img.shape == (picture.height, picture.width, 3) and img.dtype == np.uint8
    np.testing.assert_array_equal(img, to_rgb(picture))


@pytest.mark.parametrize(("name", "params"), CASES)
def test_an_envs_frames_have_one_shape_from_reset_to_the_end(name: str, params: dict) -> None:
    """What a video writer or Gymnasium's HumanRendering needs (Iris's status grew at the end
    and Irk's table window grew as tiles were laid, so frames changed shape mid-game)."""
    frame_size = make(name).env_spec.load_frame()
    if frame_size is None:
        pytest.skip(f"{name} declares no frame size")
    for seed in range(3):
        env = make(name, render_mode="rgb_array", **params)
        env.reset(seed=seed)
        shapes = {env.render().shape}
        rng = np.random.default_rng(seed)
        while not env.game.is_terminal:
            env.step(random_action(env.game, rng))
            shapes.add(env.render().shape)
        assert shapes == {(*frame_size(env.game.params), 3)}


def test_fit_scales_a_larger_drawing_and_pads_a_smaller_one() -> None:
    big = Drawing(200, 100, (1, 2, 3))
    big.add(Rect(10, 20, 30, 40, (9, 9, 9), (0, 0, 0), 2.0), Circle(100, 50, 10, (5, 5, 5)))
    big.add(Polygon(((0, 0), (200, 0), (200, 100)), (7, 7, 7)), Text(20, 80, "HI", 10.0))
    out = fit(big, 100, 100)  # half the size, centred across: nothing to shift down
    assert (out.width, out.height, out.background) == (100, 100, (1, 2, 3))
    assert out.shapes == [
        Rect(5, 10, 15, 20, (9, 9, 9), (0, 0, 0), 1.0),
        Circle(50, 25, 5, (5, 5, 5), None, 0.5),
        Polygon(((0, 0), (100, 0), (100, 50)), (7, 7, 7), None, 0.5),
        Text(10, 40, "HI", 5.0),
    ]
    small = fit(Drawing(50, 20, shapes=[Rect(0, 0, 50, 20, (9, 9, 9))]), 40, 100)
    assert small.shapes == [Rect(25, 0, 50, 20, (9, 9, 9))]  # the same size, centred across
    assert to_rgb(small).shape == (40, 100, 3)


def test_the_backends_paint_the_same_shapes() -> None:
    picture = Drawing(60, 40, (255, 255, 255))
    picture.add(
        Rect(2, 2, 20, 10, (200, 0, 0), (0, 0, 0), 2),
        Circle(40, 20, 8, (0, 0, 200)),
        Polygon(((5, 35), (15, 20), (25, 35)), (0, 150, 0), (0, 0, 0), 1),
        Text(50, 5, "A1", 5, (9, 9, 9), "end"),
    )
    img = to_rgb(picture)
    assert tuple(img[7, 12]) == (200, 0, 0) and tuple(img[2, 12]) == (0, 0, 0)  # fill, border
    assert tuple(img[20, 40]) == (0, 0, 200) and tuple(img[20, 30]) == (255, 255, 255)
    assert tuple(img[31, 15]) == (0, 150, 0)
    assert (img[3:8, 43:50] == (9, 9, 9)).all(axis=2).any()  # "A1" ends at x = 50
    root = ET.fromstring(to_svg(picture))
    tags = [el.tag.removeprefix(SVG) for el in root]
    assert tags == ["rect", "rect", "circle", "polygon", "text"]
    rect = root[1].attrib
    assert (rect["fill"], rect["stroke"], rect["stroke-width"]) == ("#c80000", "#000000", "2")
    assert root[4].get("text-anchor") == "end" and root[4].text == "A1"


def test_every_board_has_coordinates() -> None:
    for name, labels in [
        ("iris_v0", {"-4", "0", "4", "(q, r)"}),
        ("isis_osiris_v0", {"a", "f", "1", "6"}),
        ("irk_v0", {"15", "16"}),
    ]:
        env = _played(name, {}, 0)
        texts = {s.text for s in env.env_spec.load_image()(env.game).shapes if isinstance(s, Text)}
        assert labels <= texts, name


def test_irk_is_cropped_and_shows_round_box_piles_and_only_the_own_hand() -> None:
    game = new_game("irk_v0", {"num_players": 3}, seed=4)
    rng = np.random.default_rng(4)
    for _ in range(20):
        game.apply(random_action(game, rng))
    r0, c0, nr, nc = window(game)
    t = game.params.table_size
    rows, cols = np.divmod(np.flatnonzero(np.asarray(game.height) > 0), t)
    assert r0 <= rows.min() - 2 and rows.max() + 2 < r0 + nr < t
    assert c0 <= cols.min() - 2 and cols.max() + 2 < c0 + nc < t
    public = irk_drawing(game)
    assert public.width < t * 24
    texts = " ".join(s.text for s in public.shapes if isinstance(s, Text))
    assert f"round {game.round + 1}/7" in texts and "hand" in texts
    assert "own view" not in texts
    own = irk_drawing(game, 1)
    assert "player_1 hand (own view)" in " ".join(s.text for s in own.shapes if isinstance(s, Text))
    assert len(own.shapes) > len(public.shapes) + 3 * len(game.hands[1]) - 1
    box_rows = [s for s in public.shapes if isinstance(s, Rect) and s.fill == (150, 105, 60)]
    assert box_rows  # the box holder's icon
    pile = sum(len(p) for p in game.piles)
    assert pile > 0  # the score piles hold tiles by now, drawn as three squares each


def test_isis_osiris_tiles_never_wear_a_seat_color_and_stones_carry_letters() -> None:
    assert not {POSITIVE, NEGATIVE} & set(SEAT_COLORS)
    game = new_game("isis_osiris_v0", {"num_players": 4}, seed=2)
    rng = np.random.default_rng(2)
    while not game.is_terminal:
        game.apply(random_action(game, rng))
    shapes = isis_drawing(game).shapes
    tiles = [s for s in shapes if isinstance(s, Rect) and s.fill in (POSITIVE, NEGATIVE)]
    assert tiles and all(s.fill not in SEAT_COLORS for s in tiles)
    signs = [  # the values on the tiles (at the end the stones carry their worths too)
        s
        for s in shapes
        if isinstance(s, Text)
        and s.text[0] in "+-"
        and any(r.x <= s.x <= r.x + r.w and r.y <= s.y <= r.y + r.h for r in tiles)
    ]
    assert len(signs) == len(tiles)
    letters = [s.text for s in shapes if isinstance(s, Text) and s.text in "ABCD"]
    assert len(letters) >= sum(o >= 0 for o in game.owner)
