"""The Gumbel root (search/gumbel.py): sequential halving, improved policies, the agent's option.

The position tests use Iris on a side-3 board with a uniform evaluator (no network), where
finished games decide every value: a move that wins at once must end with the improved policy's
mass and the move, whatever the prior said.
"""

from __future__ import annotations

import subprocess
import sys
from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.search.evaluator import uniform_evaluator
from tabletop_envs.search.gumbel import gumbel_search, halving_schedule
from tabletop_envs.search.network import NetworkFileError, PolicyValueNet
from tabletop_envs.training.az.config import AZConfig
from tests.agents.helpers import new_game

ROOT = Path(__file__).resolve().parents[2]


def _winning_position(seed: int) -> tuple[object, list[int]]:
    """A side-3 Iris position where some but not all legal moves win at once, and those moves."""
    rng = np.random.default_rng(seed)
    for _ in range(500):
        game = new_game("iris_v0", {"board_size": 3}, int(rng.integers(2**31)))
        while not game.is_terminal:
            legal = np.flatnonzero(game.legal_mask()).tolist()
            mover = game.current_player
            wins = []
            for a in legal:
                child = game.clone()
                child.apply(a)
                if child.is_terminal and child.returns()[mover] > 0:
                    wins.append(a)
            if wins and len(wins) < len(legal) and len(legal) >= 6:
                return game, wins
            game.apply(legal[rng.integers(len(legal))])
    raise AssertionError("no position with a winning move found")


def test_the_halving_schedule():
    assert halving_schedule(16, 32) == [0] * 16 + [1] * 8 + [2] * 4 + [3] * 4
    assert halving_schedule(4, 10) == [0, 0, 0, 0, 1, 1, 2, 2, 3, 3]
    assert halving_schedule(1, 4) == [0, 1, 2, 3]
    assert halving_schedule(16, 5) == [0] * 5
    for m, n in [(2, 7), (5, 50), (16, 64), (3, 1), (8, 0)]:
        schedule = halving_schedule(m, n)
        assert len(schedule) == n
        per_count = np.bincount(schedule) if schedule else np.zeros(0)
        assert all(np.diff(per_count) <= 0)  # fewer candidates reach each further visit


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_winning_move_takes_the_policy_and_the_move(seed):
    game, wins = _winning_position(seed)
    legal = np.flatnonzero(game.legal_mask())
    seat = [game.current_player]
    result = gumbel_search(
        [game], seat, uniform_evaluator, 4 * len(legal), np.random.default_rng(seed),
        considered=len(legal), gumbel_scale=0.0,
    )  # fmt: skip
    policy = result.policies[0]
    assert result.actions[0] in wins
    assert policy[wins].sum() > 0.5 > len(wins) / len(legal)  # the prior's share: uniform
    assert np.isclose(policy.sum(), 1.0) and np.all(policy[~game.legal_mask().astype(bool)] == 0)
    assert result.counts[0].sum() == 4 * len(legal)


def test_simulations_go_to_the_candidates_only():
    game, _ = _winning_position(3)
    legal = np.flatnonzero(game.legal_mask())
    for considered, sims in [(4, 16), (2, 9), (1, 5)]:
        result = gumbel_search(
            [game], [game.current_player], uniform_evaluator, sims, np.random.default_rng(0),
            considered=considered,
        )  # fmt: skip
        counts = result.counts[0]
        assert counts.sum() == sims and np.count_nonzero(counts) <= considered
        assert counts[result.actions[0]] == counts.max()
        assert set(np.flatnonzero(counts)) <= set(legal)


def test_gumbel_scale_zero_is_deterministic_and_noise_samples():
    game, _ = _winning_position(4)
    seat = [game.current_player]

    def move(scale: float, seed: int) -> int:
        result = gumbel_search(
            [game], seat, uniform_evaluator, 0, np.random.default_rng(seed),
            considered=1, gumbel_scale=scale,
        )  # fmt: skip
        return result.actions[0]

    lowest = int(np.flatnonzero(game.legal_mask())[0])
    assert {move(0.0, s) for s in range(5)} == {lowest}  # uniform prior: ties to the lowest id
    assert len({move(1.0, s) for s in range(20)}) > 1  # one Gumbel draw per search


def test_a_batch_searches_each_root_alone():
    games = [_winning_position(s)[0] for s in (5, 6)]
    seats = [g.current_player for g in games]
    both = gumbel_search(games, seats, uniform_evaluator, 12, np.random.default_rng(0))
    assert both.policies.shape == (2, games[0].spec.num_actions)
    for i, game in enumerate(games):
        assert both.counts[i].sum() == 12
        assert np.isclose(both.policies[i].sum(), 1.0)
        assert game.legal_mask()[both.actions[i]]


def test_bad_arguments_are_refused():
    game, _ = _winning_position(7)
    seat = [game.current_player]
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameterError, match="considered"):
        gumbel_search([game], seat, uniform_evaluator, 4, rng, considered=0)
    with pytest.raises(InvalidParameterError, match="gumbel_scale"):
        gumbel_search([game], seat, uniform_evaluator, 4, rng, gumbel_scale=-1.0)
    with pytest.raises(InvalidParameterError, match="gumbel_scale"):
        gumbel_search([game], seat, uniform_evaluator, 4, rng, gumbel_scale=float("inf"))


@pytest.mark.parametrize("env", ["iris_v0", "isis_osiris_v0", "irk_v0"])
def test_the_expert_plays_with_a_gumbel_root(env):
    agent = make_agent("expert:root=gumbel,simulations=8", env, seed=0)
    assert isinstance(agent, AZAgent) and agent.root == "gumbel"
    game = new_game(env, {}, 3)
    for _ in range(6):
        if game.is_terminal:
            break
        action = agent.act(game, game.current_player)
        assert game.legal_mask()[action]
        game.apply(action)
    assert make_agent("expert", env).root == "puct"  # the packaged files record no root


def test_the_root_option_is_checked():
    with pytest.raises(InvalidParameterError, match="root must be one of puct, gumbel"):
        make_agent("expert:root=best", "iris_v0")
    with pytest.raises(InvalidParameterError, match="considered"):
        make_agent("expert:root=gumbel,considered=0", "iris_v0")


def test_a_network_file_records_its_root(tmp_path):
    with (files("tabletop_envs.agents") / "experts" / "iris_v0.npz").open("rb") as file:
        net = PolicyValueNet.load(file)
    gumbel = PolicyValueNet(dict(net.meta, root="gumbel"), net.arrays)
    assert AZAgent(gumbel).root == "gumbel" and AZAgent(gumbel, root="puct").root == "puct"
    with pytest.raises(NetworkFileError, match="root must be one of puct, gumbel"):
        PolicyValueNet(dict(net.meta, root="best"), net.arrays)
    out = tmp_path / "packaged.npz"
    expert = files("tabletop_envs.agents") / "experts" / "iris_v0.npz"
    script = ROOT / "examples" / "package_expert.py"
    done = subprocess.run(
        [sys.executable, str(script), str(expert), "--env", "iris_v0", "--root", "gumbel",
         "--out", str(out)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "root=gumbel" in done.stdout
    assert PolicyValueNet.load(out).meta["root"] == "gumbel"


def test_training_refuses_sharpened_gumbel_targets():
    with pytest.raises(InvalidParameterError, match="leave target_temperature at 1"):
        AZConfig(root="gumbel", target_temperature=0.5).check()
    AZConfig(root="gumbel").check()
    with pytest.raises(InvalidParameterError, match="root"):
        AZConfig(root="best")
