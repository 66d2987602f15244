"""Bundled agents decide from what their seat may know: resampling the hidden part changes nothing.

For the hidden-information games, an agent acting for seat ``s`` in a state and in
``state.resample_hidden(s, rng)`` (others' hands, stack orders, unrevealed choices redrawn
consistently with what ``s`` knows) must choose the same action when seeded the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.agents.registry import make_agent
from tests.agents.helpers import case_id, choice_positions, env_cases

# the former mcts:rollout= spelling is still exercised here: their DeprecationWarnings are expected
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: Envs with hidden information, each with every parameter set of its registry entry.
HIDDEN_CASES = [case for case in env_cases() if case[0] in ("isis_osiris_v0", "irk_v0")]
#: Agent specs checked on every case (``planner`` exists for Irk only).
AGENTS = ("greedy", "planner", "mcts:iterations=24", "mcts:iterations=8,rollout=greedy")


@pytest.mark.parametrize("spec", AGENTS)
@pytest.mark.parametrize("case", HIDDEN_CASES, ids=case_id)
def test_agents_choose_the_same_after_resampling_what_they_cannot_see(
    case: tuple[str, dict[str, Any]], spec: str
) -> None:
    name, params = case
    if spec == "planner" and name != "irk_v0":
        pytest.skip("planner is an Irk heuristic")
    if "rollout=greedy" in spec and (name == "irk_v0" or params.get("num_players", 2) > 2):
        pytest.skip("slow; the rollouts play on determinizations, as the random ones checked here")
    rng = np.random.default_rng(11)
    for seed in (1, 2):
        for k, game in enumerate(choice_positions(name, params, seed)):
            seat = game.current_player
            expected = make_agent(spec, name, seed=100 + k).act(game, seat)
            for _ in range(3):
                other = game.resample_hidden(seat, rng)
                assert np.array_equal(other.legal_mask(), game.legal_mask())
                action = make_agent(spec, name, seed=100 + k).act(other, seat)
                assert action == expected, (
                    f"{spec} for seat {seat} chose {game.action_to_string(expected)} but "
                    f"{other.action_to_string(action)} once hidden information was resampled:\n"
                    f"{game.render_text()}"
                )


@pytest.mark.parametrize("spec", ["greedy", "planner"])
@pytest.mark.parametrize("case", HIDDEN_CASES, ids=case_id)
def test_heuristic_scores_ignore_what_the_seat_cannot_see(
    case: tuple[str, dict[str, Any]], spec: str
) -> None:
    """Stronger than the chosen action: every legal action keeps its heuristic score."""
    name, params = case
    if spec == "planner" and name != "irk_v0":
        pytest.skip("planner is an Irk heuristic")
    rng = np.random.default_rng(5)
    for k, game in enumerate(choice_positions(name, params, seed=3)):
        seat = game.current_player
        expected = make_agent(spec, name, seed=k).action_scores(game, seat)
        for _ in range(3):
            other = game.resample_hidden(seat, rng)
            assert make_agent(spec, name, seed=k).action_scores(other, seat) == expected
