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
    assert "--rollout-weight must be a number in [0, 1], got 2.0" in capsys.readouterr().err
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
    assert "--guide-temperature must be a finite number > 0, got -1.0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        _script().main([*argv, "--guide", "random"])


def test_packaging_a_network_of_other_players_names_its_file_by_them(tmp_path, capsys, monkeypatch):
    net = PolicyValueNet.initial(IrkState.new(seed=0, num_players=3), hidden=(8,))
    net.save(tmp_path / "best.npz")
    script = _script()
    monkeypatch.setattr(script, "EXPERTS", tmp_path / "experts")
    (tmp_path / "experts").mkdir()  # a checkout's experts folder
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


def _refused(argv: list[str], capsys, script=None) -> str:
    """Run the script, expect exit status 2; return its one line on stderr."""
    with pytest.raises(SystemExit) as info:
        (script or _script()).main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("package_expert.py: error: ") and err.count("\n") == 1
    return err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--playout-weight", "5"], "--playout-weight must be a number in [0, 1], got 5.0"),
        (["--simulations", "-1"], "--simulations must be an int in 0..10000000, got -1"),
        (["--guide-weight", "3"], "--guide-weight must be a number in [0, 1], got 3.0"),
        (["--param", "bord=3"], "--param: iris_v0 has no parameter 'bord'; its parameters"),
        (["--param", "board_size=2"], "--param: board_size must be from 3 to 16, got 2"),
        (["--param", "board_size=3"], "--env and --param KEY=VALUE name the game it was trained"),
    ],
)
def test_bad_settings_name_the_option_typed_and_write_nothing(tmp_path, capsys, extra, message):
    PolicyValueNet.initial(IrisState.new(seed=0), hidden=(8,)).save(tmp_path / "best.npz")
    out = tmp_path / "expert.npz"
    argv = [str(tmp_path / "best.npz"), "--env", "iris_v0", "--out", str(out)]
    assert message in _refused([*argv, *extra], capsys)
    assert "network meta" not in message
    assert not out.exists()


def test_an_out_that_cannot_be_written_is_refused_before_anything_is_written(tmp_path, capsys):
    PolicyValueNet.initial(IrisState.new(seed=0), hidden=(8,)).save(tmp_path / "best.npz")
    argv = [str(tmp_path / "best.npz"), "--env", "iris_v0", "--out"]
    assert "--out is a folder, not a file" in _refused([*argv, str(tmp_path)], capsys)
    blocked = tmp_path / "best.npz" / "expert.npz"
    assert "--out cannot be written: its folder is a file" in _refused(
        [*argv, str(blocked)], capsys
    )
    assert "--out must name a file, got ''" in _refused([*argv, ""], capsys)
    made = tmp_path / "new" / "expert.npz"  # a missing folder is made
    assert _script().main([*argv, str(made)]) == 0 and made.is_file()


def test_the_default_out_is_only_a_source_checkout_s_experts(tmp_path, capsys, monkeypatch):
    """Without --out the script replaces the checkout's packaged expert; a copy of the script
    outside a checkout has no such folder and needs --out (it never makes one up)."""
    PolicyValueNet.initial(IrisState.new(seed=0), hidden=(8,)).save(tmp_path / "best.npz")
    script = _script()
    monkeypatch.setattr(
        script, "EXPERTS", tmp_path / "src" / "tabletop_envs" / "agents" / "experts"
    )
    err = _refused([str(tmp_path / "best.npz"), "--env", "iris_v0"], capsys, script)
    assert "give --out: the default replaces the packaged expert of the source checkout" in err
    assert not (tmp_path / "src").exists()
    assert script.EXPERTS.parent.parent.parent == tmp_path / "src"
    assert Path(script.__file__).parent.name == "examples"
    # the real default is this checkout's packaged experts folder, which exists
    assert _script().EXPERTS.is_dir() and (_script().EXPERTS / "iris_v0.npz").is_file()
