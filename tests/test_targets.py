"""Where the pictures' moves are (``targets`` of each game's image module, declared in its
spec): every legal move of the seat to move is clickable on its own picture or is one of the
few moves with no place (pass, forfeit, reveal), and every target lies on the picture."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.envs.registry import env_spec
from tabletop_envs.games.iris.rules import IrisState
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.games.isis_osiris.rules import IsisOsirisState
from tabletop_envs.render.targets import Box, Target
from tests.conformance.cases import CASES, new_game, random_action

#: The legal moves a game shows as buttons, not on its picture (by their names).
NO_PLACE = {"pass", "forfeit", "reveal"}


def _positions(name: str, params: dict, seed: int, every: int = 3):
    game = new_game(name, params, seed)
    rng = np.random.default_rng(seed)
    while not game.is_terminal:
        if len(game.actions) % every == 0:
            yield game
        game.apply(random_action(game, rng))
    yield game


@pytest.mark.parametrize(("name", "params"), CASES)
def test_every_legal_move_has_a_place_on_the_movers_picture(name: str, params: dict) -> None:
    spec = env_spec(name)
    find, draw = spec.load_targets(), spec.load_image()
    for game in _positions(name, params, seed=5):
        if game.is_terminal:
            assert find(game, 0) == []
            continue
        seat = game.current_player
        picture = draw(game, seat)
        targets = find(game, seat)
        actions = [t.action for t in targets]
        assert len(actions) == len(set(actions)), "one target per action"
        for target in targets:
            assert isinstance(target, Target) and target.boxes and target.group
            for box in (*target.boxes, *target.preview):
                assert box.x >= 0 and box.x + box.w <= picture.width
                assert box.y >= 0 and box.y + box.h <= picture.height
        placed = set(actions)
        unplaced = {game.action_to_string(a) for a in game.legal_actions() if a not in placed}
        assert unplaced <= NO_PLACE, unplaced


def test_iris_targets_are_the_cells_and_a_colored_first_stone_previews_its_opposite() -> None:
    game = IrisState.from_position(board_size=3, black=[(0, 0)], to_move=1)
    targets = {t.action: t for t in env_spec("iris_v0").load_targets()(game, 1)}
    assert len(targets) == 19  # every cell of a side-3 board
    corner = game.coord_to_action(2, 0)
    opposite = targets[game.coord_to_action(-2, 0)].boxes
    assert targets[corner].preview == opposite
    assert targets[game.coord_to_action(1, 0)].preview == ()  # a gray cell forces nothing
    centre = targets[game.coord_to_action(0, 0)].boxes[0]
    assert centre.round and centre.w == pytest.approx(2 * 20 * 3**0.5 / 2)


def test_isis_osiris_targets_are_stone_squares_then_tile_squares() -> None:
    game = IsisOsirisState.new(seed=3)
    find = env_spec("isis_osiris_v0").load_targets()
    stones = find(game, 0)
    assert [t.action for t in stones] == list(range(36))
    assert {t.group for t in stones} == {"a square for a stone"}
    game.apply(game.reveal_action)
    tiles = find(game, 0)
    assert [t.action for t in tiles] == list(range(36, 72))
    assert [t.boxes for t in tiles] == [t.boxes for t in stones]  # the same squares


def test_irk_targets_are_the_hand_then_the_placements_cells() -> None:
    game = IrkState.new(seed=2, table_size=9)
    find = env_spec("irk_v0").load_targets()
    hand = find(game, 0)
    assert sorted(t.action for t in hand) == game.hands[0]
    assert find(game, 1) == []  # not player_1's turn: no targets
    while game.phase == 0 or game.round_kind == "bet":  # play to a placement
        game.apply(game.legal_actions()[0])
    seat = game.current_player
    targets = {t.action: t for t in find(game, seat)}
    legal = game.legal_actions()
    assert set(legal) <= set(targets)
    for action in legal:  # the cells a placement covers, as far as the picture shows them
        boxes = targets[action].boxes
        assert 1 <= len(boxes) <= 3 and all(isinstance(b, Box) and b.w == b.h == 24 for b in boxes)
    illegal = [a for a in targets if a not in legal]
    assert illegal, "the other cells of the window explain why they are refused"
    for action in illegal:
        assert game.action_to_placement(action)[2] == 0  # top square there, running down
