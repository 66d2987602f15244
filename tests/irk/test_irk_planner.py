"""The Irk planner: greedy's margin, counting the hand tiles that will become bets.

Its placement and late-choice scores must equal the game's own scoring (``score_game``) of the
position with the next bet added to the own pile; it must read only what its seat knows, play
only legal moves without touching the state, and beat greedy.
"""

from __future__ import annotations

import numpy as np
import pytest

import tabletop_envs.games.irk.heuristics as heuristic
from tabletop_envs.agents import PlannerAgent, make_agent
from tabletop_envs.agents.greedy import get_heuristic, heuristic_games
from tabletop_envs.envs.registry import env_spec
from tabletop_envs.evaluation import run_arena
from tabletop_envs.games.irk.heuristics import plan_scores
from tabletop_envs.games.irk.rules import CHOOSE, PLACE, IrkState
from tests.agents.helpers import play_checked
from tests.irk.helpers import random_action
from tests.irk.test_irk_greedy_heuristic import laid, margin, with_bet

IRK_CASES = [dict(p) for p in env_spec("irk_v0").test_params]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_planner_scores_equal_the_games_scoring_with_the_next_bet(n, monkeypatch):
    """Placing, and choosing in rounds 2, 3 and 6: the best margin over the next bet's tile."""
    monkeypatch.setattr(heuristic, "CHOOSE_SAMPLE", 10**6)  # every placement, no sample
    checked = {"place": 0, "choose": 0}
    for seed in range(2):
        game = IrkState.new(seed=seed, num_players=n, table_size=13)
        rng = np.random.default_rng(seed)
        while not game.is_terminal:
            seat = game.current_player
            actions = game.legal_actions()
            hand = list(game.hands[seat])
            if len(actions) > 1 and game.phase == PLACE:
                tile, d = game.chosen[seat], game.deck_size
                scores = plan_scores(game, seat, actions, np.random.default_rng(0))
                for a, score in zip(actions, scores, strict=True):
                    grid = laid(game, tile, a - d)
                    best = max(margin(grid, with_bet(game, seat, [z]), seat) for z in hand)
                    assert score == pytest.approx(best), (seed, game.round, a)
                    checked["place"] += 1
            elif len(actions) > 1 and game.phase == CHOOSE and game.round in (1, 2, 5):
                scores = plan_scores(game, seat, actions, np.random.default_rng(0))
                for x, score in zip(actions, scores, strict=True):
                    rest = [t for t in hand if t != x]
                    placements = game.placements_of(x).tolist()
                    best = max(
                        (
                            margin(laid(game, x, p), with_bet(game, seat, [z]), seat)
                            for p in placements
                            for z in rest
                        ),
                        default=-1e6,
                    )
                    assert score == pytest.approx(best), (seed, game.round, x)
                    checked["choose"] += 1
            game.apply(random_action(game, rng))
    assert checked["place"] > 100 and checked["choose"] > 10


def test_planner_scores_the_bets_without_a_plan_as_greedy_does():
    """The first bet and the last (one tile left, nothing after it): greedy's bet scores."""
    greedy = get_heuristic("irk")
    game = IrkState.new(seed=3, num_players=3)
    rng = np.random.default_rng(3)
    rounds = set()
    while not game.is_terminal:
        seat = game.current_player
        if game.phase == CHOOSE and game.round in (0, 6):
            actions = game.legal_actions()
            want = greedy(game, seat, actions, np.random.default_rng(0))
            assert plan_scores(game, seat, actions, np.random.default_rng(0)) == want
            rounds.add(game.round)
        game.apply(random_action(game, rng))
    assert rounds == {0, 6}


@pytest.mark.parametrize("params", IRK_CASES, ids=lambda p: str(p) or "default")
def test_planner_plays_only_legal_actions_and_leaves_the_state(params):
    game = IrkState.new(seed=4, **params)
    agents = [PlannerAgent(seed=s) for s in range(game.num_players)]
    assert play_checked(game, agents).is_terminal


@pytest.mark.parametrize("n", [2, 4])
def test_planner_reads_only_what_its_seat_knows(n):
    """Others' hands and choices and the unused tiles redrawn: the same scores, seed for seed."""
    game = IrkState.new(seed=9, num_players=n)
    rng = np.random.default_rng(9)
    checked = 0
    while not game.is_terminal:
        seat = game.current_player
        actions = game.legal_actions()
        if len(actions) > 1:
            mine = plan_scores(game, seat, actions, np.random.default_rng(1))
            for k in range(2):
                other = game.resample_hidden(seat, np.random.default_rng([k, checked]))
                assert plan_scores(other, seat, actions, np.random.default_rng(1)) == mine
            checked += 1
        game.apply(random_action(game, rng))
    assert checked > 10


def test_planner_beats_greedy():
    # 400 games (seed 4242, seats rotated): 72.0% wins [67.4, 76.2] (docs/agents.md)
    result = run_arena("irk_v0", ["planner", "greedy"], 40, seed=2024)
    assert result.stats[0].score >= 0.6, result.table()


def test_planner_is_built_by_name_and_refused_where_no_game_has_one():
    assert isinstance(make_agent("planner", "irk_v0", seed=1), PlannerAgent)
    assert heuristic_games("planner") == ["irk"]
    with pytest.raises(
        ValueError, match="no planner heuristic for game 'iris'; games with one: irk"
    ):
        make_agent("planner", "iris_v0")
    with pytest.raises(ValueError, match="takes no options"):
        make_agent("planner:deep", "irk_v0")
    with pytest.raises(ValueError, match="unknown heuristic kind 'deep'; kinds: greedy, planner"):
        get_heuristic("irk", "deep")
