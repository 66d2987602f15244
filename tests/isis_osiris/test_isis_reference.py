"""The core against the independent reference (``reference.py``) along random games."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.games.isis_osiris import IsisOsirisState
from tests.isis_osiris.reference import (
    MIX,
    REVEAL,
    STONE,
    ReferenceGame,
    score_grid,
    winners_and_rewards,
)


def move_id(move: tuple) -> int:
    """Return the documented action id of a reference move."""
    if move[0] == REVEAL:
        return 72
    _, r, c = move
    return (0 if move[0] == STONE else 36) + 6 * r + c


def grid_of(game: IsisOsirisState) -> list[list[object]]:
    """Read the core's board into the reference's grid format."""
    grid: list[list[object]] = [[None] * 6 for _ in range(6)]
    for sq in range(36):
        r, c = divmod(sq, 6)
        if game.owner[sq] >= 0:
            grid[r][c] = ("S", game.owner[sq])
        elif game.tiles[sq]:
            grid[r][c] = ("T", game.tiles[sq])
    return grid


def choose(legal: list[tuple], rng: np.random.Generator, tile_bias: float) -> tuple:
    """Pick a move; ``tile_bias`` is the chance of revealing when both kinds are legal."""
    reveal = [m for m in legal if m[0] == REVEAL]
    others = [m for m in legal if m[0] != REVEAL]
    if reveal and (not others or rng.random() < tile_bias):
        return reveal[0]
    return others[rng.integers(len(others))]


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("memory", [False, True])
def test_masks_moves_and_scores_match_the_reference(num_players: int, memory: bool) -> None:
    """Legal moves step by step, the unseen multiset and the final scores agree."""
    for seed in range(12):
        rng = np.random.default_rng(seed)
        bias = (0.0, 0.5, 0.9)[seed % 3]
        game = IsisOsirisState.new(seed=seed, num_players=num_players, memory=memory)
        ref = ReferenceGame(num_players)
        while not ref.over():
            legal = sorted(ref.legal())
            assert game.current_player == ref.player
            assert game.legal_actions() == sorted(move_id(m) for m in legal)
            move = choose(legal, rng, bias)
            game.apply(move_id(move))
            ref.play(move, game.in_hand if move[0] == REVEAL else None)
            if not memory and not game.is_terminal:
                seen = {v: ref.seen.count(v) for v in MIX}
                assert game.unseen_counts() == {v: MIX[v] - seen[v] for v in MIX}
        assert game.is_terminal and grid_of(game) == ref.grid
        scores = ref.scores()
        winners, rewards = winners_and_rewards(scores)
        assert game.result_info() == {"scores": scores, "winners": winners}
        assert game.returns().tolist() == rewards


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_score_mode_pays_the_reference_scores(num_players: int) -> None:
    """With ``reward="score"`` each seat's return is its reference score."""
    for seed in range(10):
        rng = np.random.default_rng(100 + seed)
        game = IsisOsirisState.new(seed=seed, num_players=num_players, reward="score")
        while not game.is_terminal:
            game.apply(int(rng.choice(game.legal_actions())))
        assert game.returns().tolist() == score_grid(grid_of(game), num_players)


def test_random_full_boards_score_like_the_reference() -> None:
    """Random full boards (any legal material split) score the same in both."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        tiles = sorted(v for v, k in MIX.items() for _ in range(k))
        rng.shuffle(tiles)
        cells = ["A"] * 8 + ["B"] * 8 + [f"{v:+d}" for v in tiles[:20]]
        rng.shuffle(cells)
        rows = [" ".join(cells[6 * r : 6 * r + 6]) for r in range(6)]
        game = IsisOsirisState.from_position(rows)
        assert game.is_terminal
        assert game.result_info()["scores"] == score_grid(grid_of(game), 2)
