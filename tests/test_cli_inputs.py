"""What the command line makes of a user's input: ``~`` in paths, agent specs, game parameters,
the number of agents, Ray's address. Each refusal is one line, exit status 2, before any game."""

from __future__ import annotations

import json
import shutil
from importlib.resources import files

import pytest

from tabletop_envs import cli


def run(argv, capsys):
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    try:
        code = cli.main(argv)
    except SystemExit as exit_:  # argparse's own errors
        code = exit_.code
    out = capsys.readouterr()
    return code, out.out, out.err


def refused(argv, capsys) -> str:
    """Run ``argv``, assert it is refused in one line with exit status 2; return the line."""
    code, out, err = run(argv, capsys)
    assert code == 2 and out == "", (code, out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


# ---- ~ in paths the shell leaves alone ---------------------------------------------------------
@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home folder of its own: ``~`` is ``tmp_path/home``."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    return folder


def test_output_paths_after_an_equals_sign_expand_the_tilde(home, capsys):
    argv = ["evaluate", "--param", "board_size=3", "--games", "2", "--quiet", "--json=~/r.json"]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert json.loads((home / "r.json").read_text())["games"] == 2
    argv = ["watch", "--param", "board_size=3", "--gif=~/g.gif", "--record=~/w.json"]
    code, _, err = run([*argv, "--svg=~/frames"], capsys)
    assert code == 0, err
    assert (home / "g.gif").is_file() and (home / "w.json").is_file()
    assert (home / "frames" / "000.svg").is_file()
    code, out, err = run(["replay", "~/w.json"], capsys)
    assert code == 0 and "result:" in out, err


def test_a_missing_folder_under_the_tilde_is_quoted_as_typed(home, capsys):
    err = refused(["evaluate", "--json=~/nowhere/r.json"], capsys)
    assert "--json must go into an existing folder" in err and "got '~/nowhere/r.json'" in err


def test_agent_spec_paths_expand_the_tilde(home, capsys):
    shutil.copy(str(files("tabletop_envs.agents") / "experts" / "iris_v0.npz"), home / "m.npz")
    argv = ["evaluate", "--games", "1", "--quiet", "--agents", "az:~/m.npz,simulations=2"]
    code, _, err = run([*argv, "random"], capsys)
    assert code == 0, err
    err = refused(["evaluate", "--agents", "az:~/missing.npz", "random"], capsys)
    assert "no network file at ~/missing.npz" in err


def test_sb3_paths_expand_the_tilde(home, capsys):
    pytest.importorskip("sb3_contrib")
    err = refused(["evaluate", "--agents", "random", "sb3:~/p.zip"], capsys)
    assert "no SB3 model file '~/p.zip'" in err
    (home / "p.zip").write_bytes(b"not a zip")  # found now: refused as no model instead
    err = refused(["evaluate", "--agents", "random", "sb3:~/p.zip"], capsys)
    assert "cannot load the SB3 model '~/p.zip'" in err


# ---- agent specs -------------------------------------------------------------------------------
def test_sb3_specs_are_quoted_as_typed(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    model = tmp_path / "p.zip"
    model.write_bytes(b"not a zip")
    err = refused(["evaluate", "--agents", "random", f"sb3:{model},foo=1"], capsys)
    assert f"got 'sb3:{model},foo=1'" in err and "threads=1" not in err


def test_sb3_threads_are_an_option_not_a_damaged_file(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    model = tmp_path / "p.zip"
    model.write_bytes(b"not a zip")
    err = refused(["evaluate", "--agents", "random", f"sb3:{model},threads=-2"], capsys)
    assert "threads must be from 0 to 4096, got -2" in err and "cannot load" not in err


def test_spec_options_of_the_wrong_type_say_what_is_valid(capsys):
    err = refused(["evaluate", "--agents", "random", "mcts:iterations=abc"], capsys)
    assert "iterations must be an integer, got 'abc' (agent spec 'mcts:iterations=abc')" in err
    err = refused(["watch", "--agents", "random", "mcts:c=fast"], capsys)
    assert "c must be a number, got 'fast' (agent spec 'mcts:c=fast')" in err


# ---- game parameters and seats -----------------------------------------------------------------
@pytest.mark.parametrize("command", ["evaluate", "watch", "play"])
def test_an_unknown_game_parameter_names_param_and_lists_the_games(command, capsys):
    err = refused([command, "--env", "iris_v0", "--param", "bord_size=5"], capsys)
    assert "--param: iris_v0 has no parameter 'bord_size'; its parameters are board_size," in err
    assert "__init__" not in err and "render_mode" not in err


def test_one_wording_for_an_unknown_parameter_everywhere():
    from tabletop_envs import make
    from tabletop_envs.core.errors import InvalidParameterError
    from tabletop_envs.watch import watch

    wording = "iris_v0 has no parameter 'bord_size'; its parameters are board_size, auto_forced"
    with pytest.raises(InvalidParameterError, match=wording):
        make("iris_v0", bord_size=5)
    with pytest.raises(InvalidParameterError, match=wording):
        watch("iris_v0", ["random"], env_kwargs={"bord_size": 5})


def test_too_many_agents_for_the_seats_names_agents_without_the_parameters(capsys):
    err = refused(["watch", "--env", "irk_v0", "--agents", "planner", "planner", "planner"], capsys)
    assert "--agents: one game of irk_v0 has 2 seats: name 1 to 2 agents, got 3" in err
    assert "IrkParams" not in err and "deck" not in err


# ---- --agents and play's --agent ---------------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [
        ["evaluate", "--agents", "random,,"],
        ["watch", "--agents", "random", ""],
        ["evaluate", "--agents", ",greedy"],
    ],
)
def test_empty_agent_specs_are_refused_naming_agents(argv, capsys):
    assert "error: --agents: empty agent spec in '" in refused(argv, capsys)


def test_play_takes_one_agent_spec_and_says_so(capsys):
    err = refused(["play", "--agent", "random,greedy"], capsys)
    assert "--agent takes one agent spec, played in every other seat; got 2" in err
    assert "--agent: empty agent spec in 'random,,'" in refused(
        ["play", "--agent", "random,,"], capsys
    )


# ---- Ray ---------------------------------------------------------------------------------------
def test_address_without_ray_is_refused_not_ignored(capsys):
    err = refused(["evaluate", "--address", "foo", "--games", "1"], capsys)
    assert "--address needs --ray N" in err


def test_a_bad_ray_address_names_address_and_what_is_valid(capsys):
    pytest.importorskip("ray")
    err = refused(["evaluate", "--ray", "2", "--address", "foo", "--games", "1"], capsys)
    assert "--address 'foo' is no Ray address" in err and "HOST:PORT" in err
