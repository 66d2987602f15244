"""A heuristic guide at the root (``guide=greedy|planner``): its prior, the agent option, the file
keys."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.search.evaluator import uniform_evaluator
from tabletop_envs.search.guide import guide_prior, guide_settings
from tabletop_envs.search.network_file import NetworkFileError, check_meta
from tabletop_envs.search.playouts import HeuristicChoice
from tabletop_envs.search.puct import SearchOptions, puct_select, search_trees
from tests.agents.helpers import choice_positions

OPTIONS = SearchOptions(1.5, (None, 0.0), (0.0, "w"), ("random", "p"), (None, 10.0))


@pytest.mark.parametrize("env, kind", [("isis_osiris_v0", "greedy"), ("irk_v0", "planner")])
def test_the_guide_prior_is_a_softmax_of_the_heuristic_s_scores(env, kind):
    choice = HeuristicChoice(kind)
    for game in choice_positions(env, {}, 3)[:6]:
        seat = game.current_player
        actions, scores = choice.scores(game, seat, np.random.default_rng(1))
        prior = guide_prior(choice, game, seat, 2.0, np.random.default_rng(1))
        assert prior.shape == (game.spec.num_actions,)
        assert prior.sum() == pytest.approx(1.0) and prior[np.setdiff1d(
            np.arange(len(prior)), actions)].sum() == 0.0  # fmt: skip
        if scores is None:
            assert prior[actions[0]] == 1.0
            continue
        # a softmax at temperature 2: log-prior differences are half the score differences
        logs = np.log(prior[actions])
        assert np.allclose(logs - logs[0], (np.array(scores) - scores[0]) / 2.0)
        cold = guide_prior(choice, game, seat, 1e-6, np.random.default_rng(1))
        best = [a for a, s in zip(actions, scores, strict=True) if s == max(scores)]
        assert cold[best].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("network", ["on", "off"])
@pytest.mark.parametrize("env, kind", [("isis_osiris_v0", "greedy"), ("irk_v0", "greedy")])
def test_a_fully_weighted_cold_guide_plays_the_heuristic_s_best_move(env, kind, network):
    # one simulation visits the child of the highest prior: the guide's best (whatever the
    # network thinks, and without it)
    spec = f"expert:simulations=1,guide={kind},guide_temperature=0.0001,network={network}"
    agent: Any = make_agent(spec, env, seed=0)
    choice = HeuristicChoice(kind)
    for k, game in enumerate(choice_positions(env, {}, 5)[:8]):
        seat = game.current_player
        agent.reset(k)
        action = agent.act(game, seat)
        best, _ = choice.top(game, seat, np.random.default_rng(k))
        if env == "irk_v0" and game.phase == 0:  # Irk samples the placements of a tile
            assert action in game.legal_actions()
        else:
            assert action in best


def test_an_unguided_agent_is_unchanged_and_a_zero_weight_switches_the_guide_off():
    positions = choice_positions("irk_v0", {}, 2)[:5]
    plain = [make_agent("expert:simulations=8", "irk_v0", seed=4) for _ in range(2)]
    off: Any = make_agent("expert:simulations=8,guide=planner,guide_weight=0", "irk_v0", seed=4)
    guided: Any = make_agent("expert:simulations=8,guide=planner", "irk_v0", seed=4)
    assert plain[0].guide is None and off.guide == "planner" and off.guide_weight == 0  # type: ignore[attr-defined]
    moves = [[a.act(g, g.current_player) for g in positions] for a in (*plain, off, guided)]
    assert moves[0] == moves[1] == moves[2]
    assert plain[0].rng.integers(2**63) == off.rng.integers(2**63)  # the same stream used
    assert guided.guide_weight == 1.0 and guided.guide_temperature == 1.0


def test_the_guide_is_mixed_into_the_root_priors_before_the_search():
    game = choice_positions("irk_v0", {}, 1)[2]
    seat = game.current_player
    legal = game.legal_actions()
    target = np.zeros(game.spec.num_actions)
    target[legal[-1]] = 1.0
    for weight in (0.0, 0.5, 1.0):
        _, priors = search_trees(
            [game], [seat], uniform_evaluator, 4, np.random.default_rng(0), OPTIONS,
            [puct_select], None, [(target, weight)],
        )  # fmt: skip
        uniform = 1.0 / len(legal)
        assert priors[0, legal[0]] == pytest.approx((1 - weight) * uniform)
        assert priors[0, legal[-1]] == pytest.approx((1 - weight) * uniform + weight)
    with pytest.raises(ValueError, match="search_trees got 2 guides for 1 roots"):
        search_trees([game], [seat], uniform_evaluator, 4, np.random.default_rng(0), OPTIONS,
                     [puct_select], None, [None, None])  # fmt: skip


def test_guide_options_and_file_keys_are_checked():
    for spec, message in (
        ("expert:guide=random", r"guide must be one of greedy, planner, got 'random'"),
        ("expert:guide_weight=1.5", r"guide_weight must be in \[0, 1\], got 1.5"),
        ("expert:guide_temperature=0", "guide_temperature must be a finite number > 0, got 0.0"),
        ("expert:guide=planner,root=gumbel", "a guide needs root=puct"),
    ):
        with pytest.raises(InvalidParameterError, match=message):
            make_agent(spec, "irk_v0")
    with pytest.raises(ValueError, match="no planner heuristic for game 'iris'"):
        make_agent("expert:guide=planner", "iris_v0")
    net = make_agent("expert", "irk_v0").net  # type: ignore[attr-defined]
    meta = dict(net.meta, guide="planner", guide_weight=0.75, guide_temperature=0.5)
    agent = AZAgent(type(net)(meta, net.arrays))
    assert (agent.guide, agent.guide_weight, agent.guide_temperature) == ("planner", 0.75, 0.5)
    assert guide_settings(meta, "greedy", None, 2) == ("greedy", 0.75, 2.0)
    assert guide_settings(net.meta, None, None, None) == (None, 1.0, 1.0)
    for key, bad, message in (
        ("guide", "random", "guide must be one of greedy, planner, got 'random'"),
        ("guide_weight", -0.5, r"guide_weight must be a number in \[0, 1\], got -0.5"),
        ("guide_weight", True, r"guide_weight must be a number in \[0, 1\], got True"),
        ("guide_temperature", 0, "guide_temperature must be a finite number > 0, got 0"),
        ("guide_temperature", float("inf"), "guide_temperature must be a finite number > 0"),
    ):
        with pytest.raises(NetworkFileError, match=message):
            check_meta(dict(net.meta, **{key: bad}))


def test_without_search_the_guide_is_mixed_into_the_prior_the_move_is_read_from():
    choice = HeuristicChoice("greedy")
    game, best = next(
        (g, best)
        for seed in range(4, 20)
        for g in choice_positions("isis_osiris_v0", {}, seed)
        for best in [choice.top(g, g.current_player, np.random.default_rng(0))[0]]
        if g.legal_actions()[0] not in best  # the unguided choice is not the guide's
    )
    seat = game.current_player
    for network in ("on", "off"):
        spec = f"expert:simulations=0,network={network}"
        guided: Any = make_agent(f"{spec},guide=greedy,guide_temperature=0.0001", "isis_osiris_v0")
        assert guided.act(game, seat) in best
    plain: Any = make_agent("expert:simulations=0,network=off", "isis_osiris_v0")
    assert plain.act(game, seat) == game.legal_actions()[0]
