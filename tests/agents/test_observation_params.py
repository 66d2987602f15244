"""Observation parameters: a position read under other values of them, and the agents made for them.

Irk's ``group_planes`` and ``action_values`` change what the observation holds, never the rules:
``GameState.with_observation`` re-reads a position under other values, and a network or an SB3
model trained with them plays the game without them (and the other way round).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.games.iris.rules import IrisState
from tabletop_envs.games.irk.rules import IrkState
from tabletop_envs.games.isis_osiris.rules import IsisOsirisState
from tabletop_envs.search.network import PolicyValueNet
from tests.agents.helpers import advance

EXTRA = {"group_planes": True, "action_values": True}


@pytest.mark.parametrize("seed", range(4))
def test_a_position_read_with_other_observation_parameters_plays_on_identically(seed):
    game = advance(IrkState.new(seed=seed), 6, seed)
    read = game.with_observation(**EXTRA)
    assert read.params.group_planes and read.params.action_values
    assert (read.seed, read.actions) == (game.seed, game.actions)
    assert read.current_player == game.current_player
    size = game.observation(game.current_player).size
    assert read.observation(read.current_player).size > size
    back = read.with_observation(group_planes=False, action_values=False)
    assert back == game  # the same position, parameters and RNG included
    for seat in range(game.num_players):
        assert np.array_equal(back.observation(seat), game.observation(seat))
    rng = np.random.default_rng(seed)
    while not game.is_terminal:  # the same rules: same legal moves, same chance, same end
        assert np.array_equal(read.legal_mask(), game.legal_mask())
        action = int(rng.choice(game.legal_actions()))
        game.apply(action)
        read.apply(action)
    assert read.is_terminal and np.array_equal(read.returns(), game.returns())
    assert read.result_info() == game.result_info()


def test_with_observation_changes_only_observation_parameters_and_loses_nothing():
    game = advance(IrkState.new(seed=5), 5, 5)
    before = game.to_json()
    for bad in ({"num_players": 3}, {"table_size": 9}, {"nope": 1}):
        with pytest.raises(InvalidParameterError, match="action_values, group_planes"):
            game.with_observation(**bad)
    with pytest.raises(InvalidParameterError, match="group_planes"):
        game.with_observation(group_planes="yes")
    assert game.to_json() == before  # nothing changed by a refused call
    same = game.with_observation(group_planes=False)
    assert same == game and same is not game  # an independent copy
    same.apply(same.legal_actions()[0])
    assert game.to_json() == before
    iris = IrisState.new(seed=0)
    assert iris.observation_params == frozenset()
    with pytest.raises(InvalidParameterError, match=r"\(iris: none\), not board_size"):
        iris.with_observation(board_size=3)
    with pytest.raises(InvalidParameterError, match=r"\(isis_osiris: memory\), not reward"):
        IsisOsirisState.new(seed=0).with_observation(reward="score")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_memory_variant_read_with_perfect_recall_is_the_perfect_recall_game(players):
    """Every board tile was shown to all when placed: ``memory`` changes only what is shown."""
    for seed in range(3):
        kept = IsisOsirisState.new(seed=seed, num_players=players, memory=True)
        recall = IsisOsirisState.new(seed=seed, num_players=players, memory=False)
        rng = np.random.default_rng(seed)
        while True:  # both ways, at every step (the game's end included), for every seat
            for source, other in ((kept, recall), (recall, kept)):
                read = source.with_observation(memory=other.params.memory)
                assert read == other
                for seat in range(players):
                    assert np.array_equal(read.observation(seat), other.observation(seat))
            if kept.is_terminal:
                break
            action = int(rng.choice(kept.legal_actions()))
            kept.apply(action)
            recall.apply(action)


def test_the_packaged_isis_osiris_expert_plays_the_memory_variant():
    game = advance(IsisOsirisState.new(seed=4, memory=True), 5, seed=1)
    agent = make_agent("expert:simulations=8", "isis_osiris_v0", seed=0)
    assert agent.net.check_game(game) == {"memory": False}
    assert game.legal_mask()[agent.act(game, game.current_player)]


def _irk_net(**params: object) -> PolicyValueNet:
    return PolicyValueNet.initial(IrkState.new(seed=0, **params), hidden=(8,), seed=1)


def test_a_network_made_with_group_planes_plays_the_default_game_as_it_would_its_own(tmp_path):
    net = _irk_net(group_planes=True)
    plain = advance(IrkState.new(seed=2), 4, 2)
    assert net.check_game(plain) == {"group_planes": True}
    assert net.check_game(plain.with_observation(group_planes=True)) == {}
    assert _irk_net().check_game(plain) == {}
    picks = []
    for game in (plain, plain.with_observation(group_planes=True)):
        agent = AZAgent(net, simulations=12, seed=3)
        picks.append(agent.act(game.clone(), game.current_player))
    assert picks[0] == picks[1]  # it read the default game exactly as a group-planes one
    path = tmp_path / "gp.npz"
    net.save(path)
    agent = make_agent(f"az:{path},simulations=8", "irk_v0", seed=0)
    assert plain.legal_mask()[agent.act(plain.clone(), plain.current_player)]
    off = AZAgent(net, simulations=8, network=False, seed=0)  # no network: nothing to re-read
    assert plain.legal_mask()[off.act(plain.clone(), plain.current_player)]


def test_a_network_of_other_rules_is_still_refused_naming_what_differs():
    game = IrkState.new(seed=0)
    with pytest.raises(ValueError, match=r"other parameters \(differing: num_players"):
        _irk_net(num_players=3, group_planes=True).check_game(game)
    net = _irk_net(group_planes=True)
    net.meta["params"] = {**net.meta["params"], "group_planes": "yes"}  # an untrusted file's
    with pytest.raises(ValueError, match="not valid: group_planes must be True or False"):
        net.check_game(game)
    net.meta["params"] = {k: v for k, v in net.meta["params"].items() if k != "group_planes"}
    with pytest.raises(ValueError, match="differing: group_planes"):
        net.check_game(IrkState.new(seed=0, group_planes=True))
    json.dumps(net.meta)  # the meta stays JSON data


def test_the_packaged_irk_expert_plays_a_game_with_the_extra_observation():
    game = advance(IrkState.new(seed=4, **EXTRA), 3, seed=1)
    agent = make_agent("expert:simulations=8", "irk_v0", seed=0)
    assert agent.net.check_game(game) == {"group_planes": False, "action_values": False}
    assert game.legal_mask()[agent.act(game, game.current_player)]
