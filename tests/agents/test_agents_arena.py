"""The arena: seat rotation, outcome rule, Wilson intervals, Bradley-Terry Elo, determinism."""

from __future__ import annotations

import json
import math
import time
from collections import Counter

import numpy as np
import pytest

from tabletop_envs.agents import Agent, RandomAgent
from tabletop_envs.evaluation.arena import AgentStats, run_arena, score_game
from tabletop_envs.evaluation.play import lineups
from tabletop_envs.evaluation.stats import bradley_terry, wilson


@pytest.mark.parametrize(("agents", "seats"), [(1, 2), (2, 2), (2, 4), (3, 4), (3, 2), (4, 3)])
def test_every_agent_fills_every_seat_equally_over_a_cycle(agents, seats):
    cycle = lineups(agents, seats)
    per_seat = [Counter(lineup[s] for lineup in cycle) for s in range(seats)]
    for counts in per_seat:
        assert set(counts) == set(range(agents))
        assert len(set(counts.values())) == 1
    if agents > seats:  # distinct agents in one game
        assert all(len(set(lineup)) == seats for lineup in cycle)


def test_wilson_interval_known_values():
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson(5, 10)
    assert (lo, hi) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    assert wilson(0, 0) == (0.0, 1.0)


def test_bradley_terry_recovers_strengths():
    truth = np.array([4.0, 1.0, 0.25])
    games = np.full((3, 3), 1000.0) - np.diag([1000.0] * 3)
    wins = games * truth[:, None] / (truth[:, None] + truth[None, :])
    gamma = bradley_terry(wins, games)
    assert gamma / gamma[1] == pytest.approx(truth, rel=1e-6)


@pytest.mark.parametrize(
    ("returns", "expected"),
    [
        ([1.0, -1.0], ["W", "L"]),
        ([0.0, 0.0], ["D", "D"]),
        ([-1.0, 0.0, 0.0], ["L", "D", "D"]),  # shared win of 3-4 player games
        ([-1.0, 1.0, -1.0, -1.0], ["L", "W", "L", "L"]),
        ([12.0, 30.0, 30.0], ["L", "D", "D"]),  # score mode: highest score wins
    ],
)
def test_outcome_rule(returns, expected):
    n = len(returns)
    stats = [AgentStats(f"a{i}") for i in range(n)]
    wins, games = np.zeros((n, n)), np.zeros((n, n))
    score_game(returns, tuple(range(n)), stats, wins, games)
    got = ["W" if s.wins else "D" if s.draws else "L" for s in stats]
    assert got == expected
    assert games.sum() == n * (n - 1)
    assert wins.sum() == n * (n - 1) / 2


def test_arena_is_deterministic_and_seat_balanced():
    kwargs = {"board_size": 3}
    a = run_arena("iris_v0", ["random", "greedy"], 10, seed=4, env_kwargs=kwargs)
    b = run_arena("iris_v0", ["random", "greedy"], 10, seed=4, env_kwargs=kwargs)
    c = run_arena("iris_v0", ["random", "greedy"], 10, seed=5, env_kwargs=kwargs)
    assert a.to_json(timing=False) == b.to_json(timing=False)
    assert a.to_json(timing=False) != c.to_json(timing=False)
    for s in a.stats:
        assert s.results == 10
        assert sorted(sum(v) for v in s.per_seat.values()) == [5, 5]
        assert s.wins + s.draws + s.losses == s.results


def test_game_results_do_not_depend_on_how_many_games_follow():
    short = run_arena("iris_v0", ["random", "greedy"], 4, seed=8, env_kwargs={"board_size": 3})
    long = run_arena("iris_v0", ["random", "greedy"], 8, seed=8, env_kwargs={"board_size": 3})
    assert long.outcomes[:4] == short.outcomes


def test_three_agents_get_elo_in_strength_order():
    result = run_arena(
        "iris_v0",
        ["random", "greedy", "mcts:iterations=60"],
        12,
        seed=1,
        env_kwargs={"board_size": 3},
    )
    assert result.elo is not None
    assert sum(result.elo) == pytest.approx(0.0, abs=1e-6)
    assert result.elo[0] < result.elo[1]
    assert result.elo[0] < result.elo[2]
    assert "Elo" in result.table()
    two = run_arena("iris_v0", ["random", "greedy"], 2, seed=1, env_kwargs={"board_size": 3})
    assert two.elo is None and "Elo" not in two.table()


def test_multiplayer_arena_counts_one_result_per_seat():
    result = run_arena(
        "isis_osiris_v0", ["greedy", "random"], 4, seed=3, env_kwargs={"num_players": 4}
    )
    assert [s.results for s in result.stats] == [8, 8]
    for s in result.stats:
        assert sorted(s.per_seat) == [0, 1, 2, 3]
    for rets in result.outcomes:
        assert len(rets) == 4


def test_table_and_json_report_rates_and_intervals():
    result = run_arena("iris_v0", ["greedy", "random"], 6, seed=2, env_kwargs={"board_size": 3})
    data = json.loads(result.to_json())
    assert data["env"] == "iris_v0" and data["env_kwargs"] == {"board_size": 3}
    entry = data["agents"][0]
    assert entry["name"] == "greedy"
    assert entry["win_ci95"][0] <= entry["win_rate"] <= entry["win_ci95"][1]
    assert math.isclose(entry["win_rate"] + entry["draw_rate"] + entry["loss_rate"], 1.0)
    assert len(data["games_played"]) == 6
    assert (
        "seconds_per_move" in entry and "seconds_per_move" not in result.to_dict(False)["agents"][0]
    )
    text = result.table()
    assert "greedy" in text and "win% [95% CI]" in text


class _Sleeper(RandomAgent):
    """A random agent that waits 20 ms before each move: elapsed time, no CPU time."""

    name = "sleeper"

    def act(self, game, seat):
        time.sleep(0.02)
        return super().act(game, seat)


class _Spinner(RandomAgent):
    """A random agent that computes for 20 ms of CPU time before each move."""

    name = "spinner"

    def act(self, game, seat):
        start = time.process_time()
        while time.process_time() - start < 0.02:
            pass
        return super().act(game, seat)


def test_time_per_move_is_cpu_time_so_waiting_and_other_programs_do_not_count():
    result = run_arena(
        "iris_v0", [_Sleeper(0), _Spinner(1)], 2, seed=0, env_kwargs={"board_size": 3}
    )
    sleeper, spinner = (entry["seconds_per_move"] for entry in result.to_dict()["agents"])
    assert sleeper < 0.005  # 20 ms asleep each move: elapsed, not CPU
    assert 0.02 <= spinner < 0.2


def test_agent_instances_and_duplicate_names():
    result = run_arena(
        "iris_v0", [RandomAgent(), RandomAgent()], 2, seed=0, env_kwargs={"board_size": 3}
    )
    assert result.agents == ["random", "random#2"]


class Cheater(Agent):
    name = "cheater"

    def act(self, game, seat):
        return int(np.flatnonzero(game.legal_mask() == 0)[0])


def test_illegal_action_names_the_agent():
    with pytest.raises(RuntimeError, match="agent 'cheater' played an illegal action"):
        run_arena("iris_v0", [Cheater(), "random"], 1, env_kwargs={"board_size": 3})


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"agents": [], "games": 1}, "non-empty"),
        ({"agents": "random", "games": 1}, "non-empty"),
        ({"agents": ["random"], "games": 0}, "positive"),
        ({"agents": ["nobody"], "games": 1}, "unknown agent 'nobody'"),
        ({"agents": ["random"], "games": 1, "env_kwargs": {"board_size": 99}}, "board_size"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        run_arena("iris_v0", **kwargs)


def test_unknown_env_lists_the_registered_ones():
    with pytest.raises(ValueError, match=r"registered envs: .*iris_v0"):
        run_arena("chess_v0", ["random"], 1)
