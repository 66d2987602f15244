"""The greedy baseline: one heuristic per registered game, clearly better than random."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.agents import GreedyAgent, make_agent
from tabletop_envs.agents.greedy import get_heuristic, heuristic_games, register_heuristic
from tabletop_envs.envs.registry import env_spec, registered_envs
from tabletop_envs.evaluation import run_arena
from tabletop_envs.games.iris.rules import IrisState


@pytest.mark.parametrize("env_name", registered_envs())
def test_every_registered_game_has_a_heuristic(env_name):
    game_name = env_spec(env_name).load_game().game_name
    assert game_name in heuristic_games()
    assert callable(get_heuristic(game_name))


# (env, params, games, minimum score of greedy): two agents, seats rotated; with more seats
# than agents the lineup alternates (greedy fills about half of the seats).
STRENGTH = [
    ("iris_v0", {}, 40, 0.9),
    ("iris_v0", {"board_size": 3}, 40, 0.7),
    ("isis_osiris_v0", {}, 40, 0.9),
    ("irk_v0", {}, 40, 0.7),
]


@pytest.mark.parametrize(("env_name", "params", "games", "minimum"), STRENGTH)
def test_greedy_beats_random(env_name, params, games, minimum):
    result = run_arena(env_name, ["greedy", "random"], games, seed=2024, env_kwargs=params)
    greedy = result.stats[0]
    assert greedy.results == games
    assert greedy.score >= minimum, result.table()


@pytest.mark.parametrize("env_name", ["isis_osiris_v0", "irk_v0"])
@pytest.mark.parametrize("num_players", [3, 4])
def test_greedy_wins_most_often_among_randoms(env_name, num_players):
    agents = ["greedy"] + ["random"] * (num_players - 1)
    result = run_arena(env_name, agents, 24, seed=7, env_kwargs={"num_players": num_players})
    greedy, randoms = result.stats[0], result.stats[1:]
    assert greedy.rate("wins") > 1.5 / num_players, result.table()
    assert all(greedy.rate("wins") > r.rate("wins") for r in randoms), result.table()


def test_iris_heuristic_takes_the_join():
    # White to move holds the colored pairs (0,-2)/(0,2) and (2,-2)/(-2,2): the pair
    # (1,-2)/(-1,2) joins them into two groups of 3, the best gain on the board.
    game = IrisState.from_position(
        board_size=3,
        black=[(0, 0)],
        white=[(2, -2), (-2, 2), (0, -2), (0, 2)],
        to_move=1,
    )
    scores = get_heuristic("iris")(game, 1, game.legal_actions(), np.random.default_rng(0))
    best = game.legal_actions()[int(np.argmax(scores))]
    assert best == game.coord_to_action(1, -2)


def test_greedy_is_seeded():
    def moves(seed):
        game = IrisState.new(seed=0, board_size=4)
        agent = GreedyAgent(seed)
        out = []
        while not game.is_terminal:
            a = agent.act(game, game.current_player)
            out.append(a)
            game.apply(a)
        return out

    assert moves(1) == moves(1)
    assert moves(1) != moves(2)


def test_unknown_game_is_named():
    with pytest.raises(ValueError, match="no greedy heuristic for game 'nope'"):
        get_heuristic("nope")


def test_register_heuristic_plugs_in_a_game(monkeypatch):
    import tabletop_envs.envs.registry as registry

    monkeypatch.setattr(registry, "_HEURISTICS", {})
    register_heuristic("iris", lambda game, seat, actions, rng: [float(a) for a in actions])
    game = IrisState.new(seed=0, board_size=3)
    game.apply(game.legal_actions()[0])
    assert make_agent("greedy").act(game, 1) == max(game.legal_actions())


def test_best_actions_are_the_tied_top_scores_and_act_plays_one(monkeypatch):
    import tabletop_envs.envs.registry as registry

    monkeypatch.setattr(registry, "_HEURISTICS", {})
    # score = action id modulo 4: every legal id that is 3 mod 4 ties at the top
    register_heuristic("iris", lambda game, seat, actions, rng: [float(a % 4) for a in actions])
    game = IrisState.new(seed=0, board_size=3)
    legal = game.legal_actions()
    top = [a for a in legal if a % 4 == 3]
    agent = make_agent("greedy", seed=1)
    assert agent.best_actions(game, 0) == top
    played = {agent.act(game, 0) for _ in range(200)}
    assert played == set(top)  # the tie-break is uniform over exactly the tied actions


def test_best_actions_default_is_the_single_move_act_plays():
    agent = make_agent("random", "iris_v0", seed=3)
    twin = make_agent("random", "iris_v0", seed=3)
    game = IrisState.new(seed=0, board_size=3)
    assert agent.best_actions(game, 0) == [twin.act(game, 0)]


def test_action_scores_are_the_heuristics_and_their_top_is_best_actions(monkeypatch):
    import tabletop_envs.envs.registry as registry

    monkeypatch.setattr(registry, "_HEURISTICS", {})
    register_heuristic("iris", lambda game, seat, actions, rng: [float(a % 4) for a in actions])
    game = IrisState.new(seed=0, board_size=3)
    agent = make_agent("greedy", seed=1)
    actions, scores = agent.action_scores(game, 0)
    assert actions == game.legal_actions() and scores == [float(a % 4) for a in actions]
    assert agent.best_actions(game, 0) == [a for a in actions if a % 4 == 3]
    assert make_agent("random", "iris_v0", seed=3).action_scores(game, 0) is None  # default
