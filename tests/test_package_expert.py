"""``examples/package_expert.py`` sets an expert's play settings and writes a loadable file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs.agents import make_agent
from tabletop_envs.agents.az import PolicyValueNet
from tabletop_envs.games.iris.rules import IrisState
from tabletop_envs.games.irk.rules import IrkState

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "package_expert.py"


def _script():
    spec = importlib.util.spec_from_file_location("package_expert", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_packaging_sets_the_defaults_and_keeps_the_weights(tmp_path, capsys):
    net = PolicyValueNet.initial(IrkState.new(seed=0), hidden=(8,), seed=0, simulations=16)
    net.save(tmp_path / "best.npz")
    out = tmp_path / "expert.npz"
    argv = [str(tmp_path / "best.npz"), "--env", "irk_v0", "--rollout-weight", "0.5"]
    assert _script().main([*argv, "--dtype", "float16", "--out", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out
    packaged = PolicyValueNet.load(out)
    assert packaged.meta["env"] == "irk_v0"
    assert packaged.meta["simulations"] == 16  # left out: the file's own
    assert packaged.meta["rollout_weight"] == 0.5
    for key, value in net.arrays.items():
        np.testing.assert_array_equal(packaged.arrays[key], value.astype(np.float16))
    agent = make_agent(f"az:{out}", "irk_v0")
    assert (agent.simulations, agent.playout_weight, agent.playout) == (16, 0.5, "random")
    # the new spellings of the two options (the file keeps its format's meta keys)
    argv = [str(tmp_path / "best.npz"), "--env", "irk_v0", "--out", str(out)]
    assert _script().main([*argv, "--playout-weight", "0.25", "--playout", "greedy"]) == 0
    meta = PolicyValueNet.load(out).meta
    assert (meta["rollout_weight"], meta["rollout_policy"]) == (0.25, "greedy")
    assert "value_target" not in meta  # left out, and the file records none


def test_packaging_sets_the_scale_the_search_plays_on(tmp_path):
    """A network trained on score margins, packaged to back up results (as Isis & Osiris's)."""
    net = PolicyValueNet.initial(IrkState.new(seed=0), hidden=(8,), seed=0)
    trained = PolicyValueNet({**net.meta, "value_target": "score", "score_scale": 5.0}, net.arrays)
    trained.save(tmp_path / "best.npz")
    out = tmp_path / "expert.npz"
    argv = [str(tmp_path / "best.npz"), "--env", "irk_v0", "--out", str(out)]
    assert _script().main([*argv, "--value-target", "result"]) == 0
    agent = make_agent(f"az:{out}", "irk_v0")
    assert agent.value_target == "result"
    assert _script().main(argv) == 0  # left out: the file's own
    assert make_agent(f"az:{out}", "irk_v0").value_target == "score"
    with pytest.raises(SystemExit):
        _script().main([*argv, "--value-target", "margin"])


def test_packaging_refuses_a_network_of_another_game_or_bad_settings(tmp_path, capsys):
    PolicyValueNet.initial(IrisState.new(seed=0), hidden=(8,)).save(tmp_path / "iris.npz")
    script = _script()
    with pytest.raises(SystemExit):
        script.main([str(tmp_path / "iris.npz"), "--env", "irk_v0", "--out", str(tmp_path / "x")])
    assert "this network plays 'iris', not 'irk'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        script.main([str(tmp_path / "iris.npz"), "--env", "iris_v0", "--rollout-weight", "2"])
    assert "rollout_weight must be a number in [0, 1]" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_packaging_sets_tree_reuse(tmp_path, capsys):
    PolicyValueNet.initial(IrisState.new(seed=0), hidden=(8,)).save(tmp_path / "best.npz")
    out = tmp_path / "expert.npz"
    argv = [str(tmp_path / "best.npz"), "--env", "iris_v0", "--out", str(out)]
    assert _script().main([*argv, "--reuse", "on"]) == 0
    assert "reuse=on" in capsys.readouterr().out
    assert PolicyValueNet.load(out).meta["reuse"] is True
    assert make_agent(f"az:{out}", "iris_v0").reuse  # type: ignore[attr-defined]
    assert not make_agent(f"az:{out},reuse=off", "iris_v0").reuse  # type: ignore[attr-defined]
    assert _script().main([*argv, "--reuse", "off"]) == 0
    assert not make_agent(f"az:{out}", "iris_v0").reuse  # type: ignore[attr-defined]


def test_packaging_sets_the_root_guide(tmp_path, capsys):
    PolicyValueNet.initial(IrkState.new(seed=0), hidden=(8,)).save(tmp_path / "best.npz")
    out = tmp_path / "expert.npz"
    argv = [str(tmp_path / "best.npz"), "--env", "irk_v0", "--out", str(out)]
    assert _script().main([*argv, "--guide", "planner", "--guide-weight", "0.75"]) == 0
    assert "guide=planner (weight 0.75, temperature 1.0)" in capsys.readouterr().out
    agent = make_agent(f"az:{out}", "irk_v0")
    assert (agent.guide, agent.guide_weight, agent.guide_temperature) == ("planner", 0.75, 1.0)  # type: ignore[attr-defined]
    assert make_agent(f"az:{out},guide_weight=0", "irk_v0").guide_weight == 0  # type: ignore[attr-defined]
    with pytest.raises(SystemExit):
        _script().main([*argv, "--guide-temperature", "-1"])
    assert "guide_temperature must be a finite number > 0, got -1.0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _script().main([*argv, "--guide", "random"])


def test_packaging_a_network_of_other_players_names_its_file_by_them(tmp_path, capsys, monkeypatch):
    net = PolicyValueNet.initial(IrkState.new(seed=0, num_players=3), hidden=(8,))
    net.save(tmp_path / "best.npz")
    script = _script()
    monkeypatch.setattr(script, "EXPERTS", tmp_path / "experts")
    with pytest.raises(SystemExit):  # without --param: made for other parameters
        script.main([str(tmp_path / "best.npz"), "--env", "irk_v0"])
    assert "differing: num_players" in capsys.readouterr().err
    argv = [str(tmp_path / "best.npz"), "--env", "irk_v0", "--param", "num_players=3"]
    assert script.main(argv) == 0
    out = tmp_path / "experts" / "irk_v0.3p.npz"
    assert f"wrote {out}" in capsys.readouterr().out
    assert PolicyValueNet.load(out).meta["params"]["num_players"] == 3
    scored = PolicyValueNet.initial(
        IrkState.new(seed=0, num_players=3, reward="score"), hidden=(8,)
    )
    scored.save(tmp_path / "scored.npz")
    with pytest.raises(SystemExit):  # no default name for other parameters
        script.main([str(tmp_path / "scored.npz"), *argv[1:], "--param", "reward=score"])
    assert "give --out for a network of parameters" in capsys.readouterr().err
    two = PolicyValueNet.initial(IrkState.new(seed=0), hidden=(8,))
    two.save(tmp_path / "two.npz")  # the default player count named: the default file name
    assert (
        script.main([str(tmp_path / "two.npz"), "--env", "irk_v0", "--param", "num_players=2"]) == 0
    )
    assert (tmp_path / "experts" / "irk_v0.npz").is_file()
    with pytest.raises(SystemExit):
        script.main([*argv, "--param", "players"])
    assert "a parameter is KEY=VALUE" in capsys.readouterr().err
