"""Irk's Parallel view: a choose round is one joint step, a place step is the placer's alone.

The AEC agreement (same observations, masks, rewards, outcome) is the differential test of
``tests/conformance/test_conformance_parallel.py`` over every Irk case; here: the shape of the
steps, and that no seat ever observes another's choice before the reveal.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tabletop_envs import irk_v0
from tabletop_envs.games.irk.rules import CHOOSE, NUM_ROUNDS, PLACE, ROUND_KINDS, IrkState

Views = dict[str, dict[str, np.ndarray]]


def _play(n: int, seed: int, table_size: int = 15):
    """Yield ``(env, observations)`` before every step of a seeded random Parallel game."""
    env = irk_v0.parallel_env(num_players=n, table_size=table_size)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    while env.agents:
        yield env, obs
        actions = {}
        for agent in env.agents:
            legal = np.flatnonzero(obs[agent]["action_mask"])
            if len(legal):
                actions[agent] = int(legal[rng.integers(len(legal))])
        obs, *_ = env.step(actions)
    yield env, obs


@pytest.mark.parametrize("n", [2, 3, 4])
def test_a_choose_round_is_one_joint_step_and_a_place_step_the_placers(n: int) -> None:
    choose_steps = place_steps = 0
    for env, obs in _play(n, seed=n):
        game = env.game
        acting = [a for a in env.possible_agents if obs[a]["action_mask"].any()]
        if game.is_terminal:
            assert acting == []
        elif game.phase == CHOOSE:
            choose_steps += 1
            assert acting == env.possible_agents  # every seat submits its tile at once
            assert not any(c >= 0 for c in game.chosen), "a choice before the joint step"
            for seat, agent in enumerate(env.possible_agents):
                assert np.flatnonzero(obs[agent]["action_mask"]).tolist() == game.hands[seat]
        else:
            assert game.phase == PLACE
            place_steps += 1
            assert acting == [env.possible_agents[game.to_move]]
    assert choose_steps == NUM_ROUNDS
    placed = len(game.placements) - (5 if n <= 3 else 2)
    assert place_steps == placed
    assert placed + len(game.discards) == n * ROUND_KINDS.count("table")


def test_a_joint_step_applies_the_choices_from_the_box_holder() -> None:
    env = irk_v0.parallel_env(num_players=3)
    obs, _ = env.reset(seed=4)
    choice = {a: int(np.flatnonzero(obs[a]["action_mask"])[-1]) for a in env.agents}
    env.step(choice)  # a bet round: the chosen tiles go to their owners' piles
    assert [pile[-1] for pile in env.game.piles] == [choice[a] for a in env.possible_agents]


def test_a_round_loaded_half_chosen_lets_the_remaining_seats_act() -> None:
    game = IrkState.new(seed=8, num_players=4)
    game.apply(game.hands[0][0])  # player_0 (the box holder) has chosen
    assert game.acting_seats() == (1, 2, 3)
    assert not game.legal_mask_of(0).any()
    env = irk_v0.parallel_env(num_players=4)
    obs, _ = env.load_state(game)
    acting = [a for a in env.possible_agents if obs[a]["action_mask"].any()]
    assert acting == ["player_1", "player_2", "player_3"]
    env.step({a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in acting})
    assert all(len(pile) == 1 for pile in env.game.piles)  # the bet round is complete


def _loaded_view(game: IrkState) -> Views:
    """Return the Parallel observations of a fresh env continuing from ``game``."""
    p = game.params
    env = irk_v0.parallel_env(num_players=p.num_players, table_size=p.table_size)
    obs, _ = env.load_state(game)
    return obs


def _leaks(env: Any, obs: Views, view: Callable[[IrkState], Views], draws: int, rng) -> list:
    """Return (agent, what) for every resample of an agent's hidden world that changed its view."""
    found = []
    for seat, agent in enumerate(env.possible_agents):
        for _ in range(draws):
            other = view(env.game.resample_hidden(seat, rng))[agent]
            for key in ("observation", "action_mask"):
                if not np.array_equal(other[key], obs[agent][key]):
                    found.append((agent, key))
    return found


@pytest.mark.parametrize("n", [2, 3, 4])
def test_no_seat_observes_another_choice_before_the_reveal(n: int) -> None:
    """Resampling what a seat cannot know (others' hands and unrevealed choices) changes neither
    its observation nor its mask, at every step of the Parallel view."""
    rng = np.random.default_rng(n)
    hidden_choices = 0
    for env, obs in _play(n, seed=10 + n):
        assert _leaks(env, obs, _loaded_view, 2, rng) == []
        game = env.game
        if game.phase == PLACE:  # others' chosen tiles still wait for their reveal
            hidden_choices += sum(c >= 0 for s, c in enumerate(game.chosen) if s != game.to_move)
    assert hidden_choices > 0


def test_the_leak_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """A view that shows every seat the others' chosen tiles is caught."""
    honest = IrkState.observation

    def leaky(self: IrkState, seat: int) -> np.ndarray:
        return np.concatenate([honest(self, seat), np.array(self.chosen, dtype=np.int8)])

    rng = np.random.default_rng(0)
    for env, _ in _play(3, seed=2):
        if env.game.phase == PLACE and sum(c >= 0 for c in env.game.chosen) > 1:
            break
    monkeypatch.setattr(IrkState, "observation", leaky)
    obs = _loaded_view(env.game)
    found = _leaks(env, obs, _loaded_view, 3, rng)
    assert found and all(key == "observation" for _, key in found)
