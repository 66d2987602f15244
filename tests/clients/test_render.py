"""``render_mode="human"`` on every view: PettingZoo's ``render_test`` passes on every env (AEC
and Parallel, two and three players); the text is the ansi text, printed; render returns None."""

from __future__ import annotations

import contextlib
import io
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import render_test
from pettingzoo.utils.conversions import parallel_to_aec

from tabletop_envs.agents.single_agent import SingleAgentEnv, make_single_agent_env
from tabletop_envs.envs.registry import make, make_parallel, registered_envs
from tabletop_envs.testing.api import check_render
from tabletop_envs.testing.play import Case

CASES = [
    *[pytest.param(name, {}, id=name) for name in registered_envs()],
    pytest.param("irk_v0", {"num_players": 3}, id="irk_v0[num_players=3]"),
    pytest.param("isis_osiris_v0", {"num_players": 3}, id="isis_osiris_v0[num_players=3]"),
]


@pytest.mark.parametrize("view", ["aec", "parallel"])
@pytest.mark.parametrize(("name", "params"), CASES)
def test_render_test_passes(name: str, params: dict[str, Any], view: str) -> None:
    """``pettingzoo.test.render_test`` itself, over every mode, human included."""

    def env_fn(render_mode: str | None = None) -> Any:
        if view == "aec":
            return make(name, render_mode=render_mode, **params)
        return parallel_to_aec(make_parallel(name, render_mode=render_mode, **params))

    assert "human" in env_fn().metadata["render_modes"]
    with contextlib.redirect_stdout(io.StringIO()):
        render_test(env_fn)


@pytest.mark.parametrize(("name", "params"), CASES)
def test_conformance_render_check_covers_the_human_mode(name: str, params: dict[str, Any]) -> None:
    check_render(Case.of(name, params))


@pytest.mark.parametrize(("name", "params"), CASES)
def test_gymnasium_view_renders_for_a_human(
    name: str, params: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert "human" in SingleAgentEnv.metadata["render_modes"]
    human = make_single_agent_env(name, render_mode="human", **params)
    ansi = make_single_agent_env(name, render_mode="ansi", **params)
    human.reset(seed=1)
    ansi.reset(seed=1)
    capsys.readouterr()
    assert human.render() is None
    assert capsys.readouterr().out == ansi.render() + "\n"


@pytest.mark.parametrize("view", ["aec", "parallel", "gymnasium"])
@pytest.mark.parametrize(("name", "params"), CASES)
def test_human_mode_shows_every_position_on_its_own(
    name: str, params: dict[str, Any], view: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Gymnasium's and PettingZoo's convention (connect_four_v3, CartPole): "human" renders
    during reset and step, without a call to render(); before, nothing showed."""
    shown: list[str] = []
    monkeypatch.setattr("builtins.print", lambda text, **_: shown.append(text))
    rng = np.random.default_rng(0)
    if view == "aec":
        env = make(name, render_mode="human", **params)
        env.reset(seed=0)
        moves = 0
        for agent in env.agent_iter():
            _, _, term, trunc, _ = env.last()
            mask = env.infos[agent]["action_mask"]
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
            moves += not (term or trunc)
        assert len(shown) == 1 + moves and shown[-1] == env.game.render_text()
    elif view == "parallel":
        par = make_parallel(name, render_mode="human", **params)
        _, infos = par.reset(seed=0)
        steps = 0
        while par.agents:
            masks = {a: infos[a]["action_mask"] for a in par.agents}
            actions = {a: int(rng.choice(np.flatnonzero(m))) for a, m in masks.items() if m.any()}
            *_, infos = par.step(actions)
            steps += 1
        assert len(shown) >= 1 + steps and shown[-1] == par._aec.game.render_text()
    else:
        single = make_single_agent_env(name, render_mode="human", **params)
        _, info = single.reset(seed=0)
        assert shown, "reset showed nothing"
        before = len(shown)
        single.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        assert len(shown) > before
