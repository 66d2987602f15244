"""``network=off``: the ``az``/``expert`` search with a uniform prior and value 0 (issue 21)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import AZAgent
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.search.evaluator import uniform_evaluator
from tabletop_envs.search.network import PolicyValueNet
from tests.agents.helpers import choice_positions


def _zeroed(net: PolicyValueNet) -> PolicyValueNet:
    """The same file with every weight 0: a uniform prior and tanh(0) = 0 everywhere."""
    return PolicyValueNet(net.meta, {k: np.zeros_like(v) for k, v in net.arrays.items()})


@pytest.mark.parametrize("env", ["iris_v0", "isis_osiris_v0", "irk_v0"])
def test_network_off_is_the_same_search_without_what_was_learnt(env):
    off: Any = make_agent("expert:network=off", env, seed=0)
    on: Any = make_agent("expert", env, seed=0)
    assert isinstance(off, AZAgent) and not off.network and on.network
    for key in ("simulations", "playout_weight", "playout", "c_puct", "value_target"):
        assert getattr(off, key) == getattr(on, key), key
    # it plays exactly as the file with every weight zeroed would
    zero = AZAgent(_zeroed(on.net), seed=0)
    for game in choice_positions(env, {}, 1)[:2]:
        seat = game.current_player
        assert off.act(game, seat) == zero.act(game, seat)


def test_network_off_never_asks_the_network(monkeypatch):
    agent: Any = make_agent("expert:network=off,simulations=16", "isis_osiris_v0", seed=1)

    def refuse(*args: object) -> None:
        raise AssertionError("the network was asked")

    monkeypatch.setattr(PolicyValueNet, "__call__", refuse)
    for game in choice_positions("isis_osiris_v0", {}, 2)[:3]:
        assert game.legal_mask()[agent.act(game, game.current_player)]
    agent = make_agent("expert:network=off,simulations=0", "iris_v0", seed=1)
    game = choice_positions("iris_v0", {}, 2)[0]
    assert agent.act(game, game.current_player) == game.legal_actions()[0]


def test_network_on_is_the_default_and_bad_values_are_named():
    assert make_agent("expert:network=on", "iris_v0").network  # type: ignore[attr-defined]
    with pytest.raises(InvalidParameterError, match=r"network .* on or off"):
        make_agent("expert:network=maybe", "iris_v0")
    with pytest.raises(InvalidParameterError, match="network must be True or False"):
        AZAgent(make_agent("expert", "iris_v0").net, network="off")  # type: ignore[arg-type,attr-defined]


def test_the_uniform_evaluator():
    mask = np.array([[1, 0, 1, 1], [0, 0, 0, 0]], dtype=bool)
    priors, values = uniform_evaluator(np.zeros((2, 3), dtype=np.float32), mask)
    assert priors.tolist() == [[1 / 3, 0, 1 / 3, 1 / 3], [0, 0, 0, 0]]
    assert values.tolist() == [0.0, 0.0]
