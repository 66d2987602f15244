"""Every baseline agent plays only legal actions, and never changes the state it is shown,
on every registered env and every parameter set the conformance suite runs."""

from __future__ import annotations

import pytest

from tabletop_envs.agents import make_agent
from tests.agents.helpers import case_id, env_cases, new_game, play_checked

AGENT_SPECS = ("random", "greedy", "mcts:iterations=6")
CASES = env_cases()
#: The defaults of each env: the greedy-playout MCTS is slow, so it runs there only.
DEFAULT_CASES = [c for c in CASES if not c[1]]


@pytest.mark.parametrize("spec", AGENT_SPECS)
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_agent_plays_only_legal_actions(case, spec):
    name, params = case
    game = new_game(name, params, seed=11)
    agents = [make_agent(spec, name, seed=100 + s) for s in range(game.num_players)]
    final = play_checked(game, agents)
    assert final.is_terminal


@pytest.mark.parametrize("case", DEFAULT_CASES, ids=[case_id(c) for c in DEFAULT_CASES])
def test_greedy_playout_mcts_plays_only_legal_actions(case):
    name, params = case
    game = new_game(name, params, seed=3)
    agents = [make_agent("mcts:iterations=1,playout=greedy", name, seed=s) for s in range(2)]
    agents += [make_agent("random", name, seed=s) for s in range(2, game.num_players)]
    assert play_checked(game, agents).is_terminal


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_mixed_table_plays_to_the_end(case):
    name, params = case
    game = new_game(name, params, seed=5)
    specs = ["greedy", "random", "mcts:iterations=4", "greedy"]
    agents = [make_agent(specs[s % 4], name, seed=s) for s in range(game.num_players)]
    assert play_checked(game, agents).returns().shape == (game.num_players,)
