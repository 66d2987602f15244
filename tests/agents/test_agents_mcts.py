"""UCT search: strength on Iris, determinism, and no peeking at hidden information."""

from __future__ import annotations

import numpy as np
import pytest

from tabletop_envs.agents import MCTSAgent, make_agent
from tabletop_envs.core.game import GameState
from tabletop_envs.envs.registry import env_spec, registered_envs
from tabletop_envs.evaluation import run_arena
from tabletop_envs.games.iris.rules import FIRST, IrisState
from tests.agents.helpers import advance, new_game

# the former rollout spellings are still exercised here: their DeprecationWarnings are expected
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: Registered envs whose game overrides ``resample_hidden`` (hidden information).
HIDDEN = [
    name
    for name in registered_envs()
    if env_spec(name).load_game().resample_hidden is not GameState.resample_hidden
]


def test_hidden_information_games_are_found():
    assert "isis_osiris_v0" in HIDDEN
    assert "irk_v0" in HIDDEN
    assert "iris_v0" not in HIDDEN


def test_mcts_beats_random_on_small_iris():
    result = run_arena(
        "iris_v0",
        ["mcts:iterations=100", "random"],
        24,
        seed=31,
        env_kwargs={"board_size": 3},
    )
    mcts = result.stats[0]
    assert mcts.per_seat[0][0] + mcts.per_seat[0][1] + mcts.per_seat[0][2] == 12  # both seats
    assert mcts.rate("wins") >= 0.8, result.table()


@pytest.mark.slow
def test_mcts_beats_random_on_iris_side_5():
    result = run_arena("iris_v0", ["mcts:iterations=300", "random"], 30, seed=5)
    assert result.stats[0].rate("wins") >= 0.9, result.table()


@pytest.mark.slow
def test_mcts_beats_greedy_on_iris_side_5():
    result = run_arena("iris_v0", ["mcts:iterations=400", "greedy"], 20, seed=5)
    assert result.stats[0].score >= 0.5, result.table()


def _minimax(game: IrisState, seat: int, memo: dict) -> float:
    """Return ``seat``'s game value of ``game`` by exhaustive search (tiny endgames only)."""
    if game.is_terminal:
        return float(game.returns()[seat])
    key = (tuple(game.board), game.phase, game.pending, game.to_move, game.passed_last)
    if key not in memo:
        values = []
        for action in game.legal_actions():
            child = game.clone()
            child.apply(action)
            values.append(_minimax(child, seat, memo))
        memo[key] = max(values) if game.current_player == seat else min(values)
    return memo[key]


def _endgames(count: int) -> list[tuple[IrisState, set[int]]]:
    """Return side-3 turn starts with <= 7 empty cells where at most a third of moves win."""
    out = []
    for seed in range(100):
        game = IrisState.new(seed=seed, board_size=3)
        rng = np.random.default_rng(seed)
        while not game.is_terminal and not (game.empty_left <= 7 and game.phase == FIRST):
            moves = [a for a in game.legal_actions() if a != game.pass_action]
            game.apply(int(rng.choice(moves or game.legal_actions())))
        if game.is_terminal:
            continue
        seat = game.current_player
        values = {}
        memo: dict = {}
        for action in game.legal_actions():
            child = game.clone()
            child.apply(action)
            values[action] = _minimax(child, seat, memo)
        best = max(values.values())
        winning = {a for a, v in values.items() if v == best}
        if best > 0 and len(winning) <= len(values) / 3:
            out.append((game, winning))
        if len(out) == count:
            break
    return out


def test_mcts_finds_the_winning_moves_of_solved_endgames():
    endgames = _endgames(6)
    assert len(endgames) == 6
    for k, (game, winning) in enumerate(endgames):
        action = MCTSAgent(iterations=300, seed=k).act(game, game.current_player)
        assert action in winning, f"{game.render_text()}\nchose {game.action_to_string(action)}"


def test_mcts_is_deterministic_for_a_seed():
    game = advance(IrisState.new(seed=0, board_size=4), 5, seed=1)
    seat = game.current_player
    picks = {MCTSAgent(iterations=50, seed=9).act(game, seat) for _ in range(3)}
    assert len(picks) == 1
    agent = MCTSAgent(iterations=50, seed=9)
    first = agent.act(game, seat)
    agent.reset(9)
    assert agent.act(game, seat) == first


def test_single_legal_action_is_played_without_search():
    game = IrisState.new(seed=0, board_size=3)
    game.apply(game.legal_actions()[0])  # Black's opening stone
    colored = game.tables.colored_cells[0]
    game.apply(colored)  # White's first stone on a colored cell: the opposite is forced
    agent = MCTSAgent(iterations=1, seed=0)
    agent.search = None  # any search would fail
    assert agent.act(game, 1) == game.tables.opposite[colored]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"iterations": 0}, "iterations"),
        ({"exploration": -1.0}, "exploration"),
        ({"rollout": "smart"}, "rollout"),
    ],
)
def test_bad_parameters_are_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MCTSAgent(**kwargs)


def test_spec_options_reach_the_agent():
    agent = make_agent("mcts:iterations=12,c=0.5,rollout=greedy", "iris_v0", seed=1)
    assert (agent.iterations, agent.exploration, agent.rollout) == (12, 0.5, "greedy")
    with pytest.raises(ValueError, match="options are"):
        make_agent("mcts:depth=3", "iris_v0")


class PeekingMCTS(MCTSAgent):
    """A cheating searcher: it plays on the true state instead of a determinization."""

    def determinize(self, game, seat, rng):
        return game.clone()


def _positions(env_name: str, params: dict, count: int) -> list:
    """Return mid-game positions (varied seeds and depths) where the mover has a choice."""
    out = []
    for k in range(count * 4):
        game = advance(new_game(env_name, params, seed=k), 3 + 5 * (k % 6), seed=k)
        if not game.is_terminal and len(game.legal_actions()) > 1:
            out.append(game)
        if len(out) == count:
            break
    return out


@pytest.mark.parametrize("env_name", HIDDEN)
def test_mcts_acts_identically_on_a_resampled_state(env_name):
    """The search cannot see hidden tiles: redrawing them (mover's view) changes nothing."""
    for k, game in enumerate(_positions(env_name, {}, 6)):
        seat = game.current_player
        other = game.resample_hidden(seat, np.random.default_rng(1000 + k))
        assert np.array_equal(other.observation(seat), game.observation(seat))
        a = MCTSAgent(iterations=30, seed=k).act(game, seat)
        b = MCTSAgent(iterations=30, seed=k).act(other, seat)
        assert a == b, f"position {k}: {game.action_to_string(a)} != {other.action_to_string(b)}"


@pytest.mark.parametrize("env_name", HIDDEN)
def test_the_resample_check_catches_a_peeking_search(env_name):
    """The check above has teeth: a searcher reading the true state fails it somewhere."""
    differs = 0
    for k, game in enumerate(_positions(env_name, {}, 12)):
        seat = game.current_player
        other = game.resample_hidden(seat, np.random.default_rng(1000 + k))
        a = PeekingMCTS(iterations=30, seed=k).act(game, seat)
        b = PeekingMCTS(iterations=30, seed=k).act(other, seat)
        differs += a != b
    assert differs > 0
