"""The search package: figures unchanged by the move, the shared pieces, the layering."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.agents.greedy import GreedyAgent
from tabletop_envs.agents.mcts import MCTSAgent
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.search.network import PolicyValueNet
from tabletop_envs.search.node import Node
from tabletop_envs.search.playouts import heuristic_mover
from tabletop_envs.search.puct import puct_search, puct_select
from tests.agents.helpers import advance, choice_positions, new_game
from tests.behaviour.figures import compare

SRC = Path(__file__).resolve().parents[2] / "src" / "tabletop_envs"
#: Figures recorded with the code before the search package existed (same seeds, same calls);
#: visit counts and moves compare exactly, priors and values within float32 noise of another
#: CPU (``compare``).
FIGURES = json.loads((Path(__file__).parent / "search_figures.json").read_text())


def _case(case: str) -> tuple[str, dict[str, Any]]:
    name, _, params = case.partition("{")
    return name, json.loads("{" + params)


def _net(name: str, params: dict[str, Any]) -> PolicyValueNet:
    """The packaged expert for the default parameters, else a small random network."""
    if not params:
        with (files("tabletop_envs.agents") / "experts" / f"{name}.npz").open("rb") as file:
            return PolicyValueNet.load(file)
    return PolicyValueNet.initial(new_game(name, params, 0), hidden=(32,), seed=0)


def _puct(game: Any, net: PolicyValueNet, sims: int, seed: int, **kwargs: Any) -> dict[str, list]:
    """Search ``game`` alone; return its nonzero visit counts and priors by action."""
    seat = [game.current_player]
    counts, priors = puct_search([game], seat, net, sims, np.random.default_rng(seed), **kwargs)
    return {
        str(a): [int(c), float(p)]
        for a, (c, p) in enumerate(zip(counts[0].tolist(), priors[0].tolist(), strict=True))
        if c or p
    }


def _mcts_root(game: Any, iterations: int, playout: str, seed: int) -> list:
    agent = MCTSAgent(iterations=iterations, playout=playout, seed=seed)
    root = agent.search(game, game.current_player)
    stats = sorted([a, ch.n, ch.w, ch.avail] for a, ch in root.children.items())
    return [root.n, stats, agent.act(game, game.current_player)]


def shallow_figures(case: str, keys: Iterable[str]) -> dict[str, Any]:
    """The shallow figures of ``case`` today (``keys``: the recorded ones, for the agents' moves).

    Re-recording after an intended change (a new packaged network): ``{case:
    shallow_figures(case, FIGURES["shallow"][case]) for case in FIGURES["shallow"]}``.
    """
    name, params = _case(case)
    games = choice_positions(name, params, 0)[:3]
    net = _net(name, params)
    sims = 12 if name == "irk_v0" else 24
    found: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # the new spellings do not warn
        for k, game in enumerate(games):
            found[f"plain{k}"] = _puct(game, net, sims, k)
            found[f"noise{k}"] = _puct(game, net, sims, k, dirichlet_alpha=0.3)
            found[f"rand{k}"] = _puct(game, net, sims, k, playout_weight=0.5)
            if k % 2 == 0:
                found[f"greedy{k}"] = _puct(game, net, 4, k, playout_weight=0.5, playout="greedy")
            found[f"mcts_r{k}"] = _mcts_root(game, 40, "random", k)
            if k % 2 == 1:
                found[f"mcts_g{k}"] = _mcts_root(game, 4 if name == "irk_v0" else 8, "greedy", k)
        for key in keys:
            kind, _, spec = key.partition(" ")
            if kind == "fresh":
                agents = [make_agent(spec, name, seed=k) for k in range(len(games))]
                found[key] = [
                    a.act(g, g.current_player) for a, g in zip(agents, games, strict=True)
                ]
            elif kind == "stream":
                agent = make_agent(spec, name, seed=5)
                found[key] = [agent.act(g, g.current_player) for g in games]
        az = AZAgent(net, simulations=8, seed=3, playout_weight=0.5)
        found["az"] = [az.act(g, g.current_player) for g in games]
    return json.loads(json.dumps(found))  # tuples to lists, as recorded


@pytest.mark.parametrize("case", sorted(FIGURES["shallow"]))
def test_searches_and_agents_reproduce_the_figures_recorded_before_the_move(case):
    """PUCT visit counts and priors, UCT root statistics and agents' moves (floats to 1e-4)."""
    expected = FIGURES["shallow"][case]
    found = shallow_figures(case, expected)
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert not compare(found[key], value), (key, compare(found[key], value))


@pytest.mark.parametrize("case", sorted(FIGURES["deep"]))
def test_longer_searches_reproduce_the_figures_recorded_before_the_move(case):
    """Small games searched longer: selection, not only expansion, decides the figures."""
    name, params = _case(case)
    expected = FIGURES["deep"][case]
    net = PolicyValueNet.initial(new_game(name, params, 0), hidden=(16,), seed=1)
    found: dict[str, Any] = {}
    for k, game in enumerate(choice_positions(name, params, 0)[:3]):
        found[f"plain{k}"] = _puct(game, net, 150, k)
        found[f"rand{k}"] = _puct(game, net, 150, k, playout_weight=0.5)
        found[f"greedy{k}"] = _puct(game, net, 150, k, playout_weight=0.5, playout="greedy")
        found[f"mcts_r{k}"] = _mcts_root(game, 300, "random", k)
        found[f"mcts_g{k}"] = _mcts_root(game, 60, "greedy", k)
    found = json.loads(json.dumps(found))
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert not compare(found[key], value), (key, compare(found[key], value))


def test_greedy_agent_and_greedy_playouts_choose_alike():
    """One move choice: the greedy playout plays GreedyAgent's moves from the same seed."""
    game = advance(new_game("isis_osiris_v0", {}, 3), 4, seed=3)
    agent = GreedyAgent(seed=7)
    mover = heuristic_mover("greedy", np.random.default_rng(7))
    a, b = game.clone(), game.clone()
    while not a.is_terminal:
        move = agent.act(a, a.current_player)
        assert mover(b) == move
        a.apply(move)
        b.apply(move)


def test_mcts_searches_the_one_node_type():
    game = advance(new_game("iris_v0", {"board_size": 3}, 0), 3, seed=0)
    root = MCTSAgent(iterations=20, seed=0).search(game, game.current_player)
    assert isinstance(root, Node) and root.n == 20
    assert all(isinstance(child, Node) for child in root.children.values())


def test_the_root_selection_seam():
    """The default root rule is puct_select; another rule decides where the root's visits go."""
    game = choice_positions("isis_osiris_v0", {}, 1)[2]
    net = _net("isis_osiris_v0", {})
    seat = [game.current_player]
    default = puct_search([game], seat, net, 16, np.random.default_rng(2))
    same = puct_search([game], seat, net, 16, np.random.default_rng(2), root_selection=puct_select)
    assert all(np.array_equal(x, y) for x, y in zip(default, same, strict=True))

    def lowest(node: Node, c_puct: float) -> int:
        return min(node.legal_set)

    counts, _ = puct_search([game], seat, net, 16, np.random.default_rng(2), root_selection=lowest)
    lowest_action = int(np.flatnonzero(game.legal_mask())[0])
    assert counts[0, lowest_action] == 16 == counts[0].sum()


def test_planner_playouts_in_both_searches():
    game = advance(IrkState.new(seed=4), 9, seed=4)
    seat = game.current_player
    mcts = MCTSAgent(iterations=4, playout="planner", seed=0)
    assert game.legal_mask()[mcts.act(game, seat)]
    net = PolicyValueNet.initial(game, hidden=(8,), seed=0)
    counts, _ = puct_search(
        [game], [seat], net, 3, np.random.default_rng(0), playout="planner", playout_weight=1.0
    )
    assert counts.sum() == 3
    assert make_agent("mcts:iterations=2,playout=planner", "irk_v0").playout == "planner"
    with pytest.raises(ValueError, match="no planner heuristic for game 'iris'"):
        make_agent("mcts:playout=planner", "iris_v0")


# ---- the old spellings -------------------------------------------------------------------------
def test_old_spellings_warn_and_mean_the_same():
    game = advance(new_game("iris_v0", {"board_size": 4}, 0), 4, seed=0)
    seat = [game.current_player]
    net = PolicyValueNet.initial(game, hidden=(8,), seed=0)
    new = puct_search(
        [game], seat, net, 10, np.random.default_rng(1), playout_weight=0.5, playout="greedy"
    )
    with pytest.warns(DeprecationWarning) as caught:
        old = puct_search(
            [game],
            seat,
            net,
            10,
            np.random.default_rng(1),
            rollout_weight=0.5,
            rollout_policy="greedy",
        )
    assert [str(w.message) for w in caught] == [
        "puct_search: rollout_weight is deprecated, use playout_weight (removed in 0.3)",
        "puct_search: rollout_policy is deprecated, use playout (removed in 0.3)",
    ]
    assert all(np.array_equal(x, y) for x, y in zip(new, old, strict=True))
    with pytest.raises(TypeError, match="both playout and its former name rollout_policy"):
        puct_search(
            [game],
            seat,
            net,
            1,
            np.random.default_rng(1),
            playout="greedy",
            rollout_policy="random",
        )
    with pytest.warns(DeprecationWarning, match="MCTSAgent: rollout is deprecated"):
        assert MCTSAgent(rollout="greedy").playout == "greedy"
    with pytest.warns(DeprecationWarning, match="AZAgent: rollout_weight is deprecated"):
        agent = AZAgent(net, rollout_weight=0.25)
    with pytest.warns(DeprecationWarning, match="AZAgent.rollout_weight is deprecated"):
        assert agent.rollout_weight == agent.playout_weight == 0.25


def test_old_spec_options_warn_and_mean_the_same(tmp_path):
    with pytest.warns(DeprecationWarning, match="option rollout of agent spec .* use playout"):
        assert make_agent("mcts:rollout=greedy", "iris_v0").playout == "greedy"
    path = tmp_path / "net.npz"
    PolicyValueNet.initial(new_game("iris_v0", {}, 0), hidden=(8,), seed=0).save(path)
    with pytest.warns(DeprecationWarning, match="use playout_weight"):
        agent = make_agent(f"az:{path},rollout=0.5,playout=greedy", "iris_v0")
    assert (agent.playout_weight, agent.playout) == (0.5, "greedy")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_agent(f"az:{path},playout_weight=0.5,playout=random", "iris_v0")
        make_agent("mcts:playout=random", "iris_v0")


# ---- the layers (tests/test_architecture.py checks every import; this the registry's words)
def test_the_agent_registry_names_no_training_module():
    assert "tabletop_envs.training" not in (SRC / "agents" / "registry.py").read_text()
