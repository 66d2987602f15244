"""The ``tabletop-envs`` command line: help, play (stdin-driven), evaluate, bench, train, list."""

from __future__ import annotations

import argparse
import difflib
import io
import json
import subprocess
import sys

import numpy as np
import pytest

from tabletop_envs import cli
from tabletop_envs.envs.registry import make
from tabletop_envs.games.iris.rules import IrisState
from tests.conformance.cases import CASES

SUBCOMMANDS = ("play", "evaluate", "list")


def run(argv, capsys, stdin: str | None = None, monkeypatch=None):
    """Run the CLI in-process; return (exit code, stdout, stderr)."""
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_top_level_help_lists_every_subcommand(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    for name in ("play", "evaluate", "bench", "train", "list"):
        assert name in text


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_subcommand_help(command, capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main([command, "--help"])
    assert exc.value.code == 0
    assert f"usage: tabletop-envs {command}" in capsys.readouterr().out


def test_list_names_envs_and_agents(capsys):
    code, out, _ = run(["list"], capsys)
    assert code == 0
    assert "iris_v0" in out and "mcts" in out and "greedy" in out


def _cells(side: int) -> list[str]:
    game = IrisState.new(board_size=side)
    return [f"{q} {r}" for q, r in (game.action_to_coord(i) for i in game.tables.board.cells)]


def test_play_answers_bad_input_and_finishes_a_game(capsys, monkeypatch):
    # Bad input first, then every cell over and over: occupied or misplaced cells are refused
    # with a reason and a new prompt, and the game is played to its end.
    lines = ["hello", "9 9", "1 -2", "legal", "#999"] + _cells(3) * 40
    code, out, _ = run(
        ["play", "--env", "iris_v0", "--param", "board_size=3", "--agent", "random", "--seed", "3"],
        capsys,
        stdin="\n".join(lines) + "\n",
        monkeypatch=monkeypatch,
    )
    assert code == 0
    assert "cannot read 'hello' as a move" in out
    assert "cell (q=9, r=9) is off a board of side 3" in out
    assert "illegal move '1 -2': Black's opening stone must go on a gray cell" in out
    assert "legal moves: (0, -1) (#7), (1, -1) (#8)" in out
    assert "illegal move '#999'" in out
    assert "is occupied" in out
    assert "player_0 (you) play" in out and "player_1 (random) plays" in out
    assert "game over:" in out and "final returns: player_0 (you)" in out


def test_play_quits_cleanly_at_end_of_input(capsys, monkeypatch):
    code, out, _ = run(
        ["play", "--env", "iris_v0", "--seat", "1", "--agent", "greedy"],
        capsys,
        stdin="0 0\n",
        monkeypatch=monkeypatch,
    )
    assert code == 0
    assert "player_0 (greedy) plays" in out
    assert out.rstrip().endswith("quit: game abandoned.")


@pytest.mark.parametrize(
    ("env", "lines", "expect"),
    [
        ("isis_osiris_v0", ["z9", "reveal", "tile a1"], "player_0 (you) play tile a1"),
        ("irk_v0", ["place 1 1 up", "choose 2", "choose 1"], "player_0 (you) play choose #1"),
    ],
)
def test_play_other_games_through_their_move_syntax(env, lines, expect, capsys, monkeypatch):
    code, out, _ = run(
        ["play", "--env", env, "--agent", "random"],
        capsys,
        stdin="\n".join(lines) + "\nquit\n",
        monkeypatch=monkeypatch,
    )
    assert code == 0
    assert expect in out
    assert "cannot read" in out


def test_play_rejects_a_seat_that_does_not_exist(capsys, monkeypatch):
    code, _, err = run(["play", "--seat", "2"], capsys, stdin="", monkeypatch=monkeypatch)
    assert code == 2
    assert "--seat must be from 0 to 1" in err


def test_evaluate_prints_a_table_and_writes_json(capsys, tmp_path):
    path = tmp_path / "out.json"
    argv = ["evaluate", "--env", "iris_v0", "--param", "board_size=3", "--games", "4"]
    argv += ["--agents", "random", "greedy", "mcts:iterations=10", "--json", str(path), "--quiet"]
    code, out, _ = run(argv, capsys)
    assert code == 0
    assert "win% [95% CI]" in out and "Elo" in out
    data = json.loads(path.read_text())
    assert [a["name"] for a in data["agents"]] == ["random", "greedy", "mcts:iterations=10"]
    assert data["games"] == 4 and data["env_kwargs"] == {"board_size": 3}


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["evaluate", "--agents", "wizard"], "unknown agent 'wizard'"),
        (["evaluate", "--env", "go_v0"], "unknown env 'go_v0'"),
        (["evaluate", "--param", "board_size=2"], "board_size must be from 3"),
    ],
)
def test_evaluate_errors_are_clear(argv, match, capsys):
    code, _, err = run([*argv, "--games", "1", "--quiet"], capsys)
    assert code == 2
    assert match in err


def test_parse_param_types():
    assert cli.parse_param("board_size=7") == ("board_size", 7)
    assert cli.parse_param("memory=true") == ("memory", True)
    assert cli.parse_param("memory=True") == ("memory", True)
    assert cli.parse_param("reward=score") == ("reward", "score")
    assert cli.parse_param("deck=[1, 2]") == ("deck", (1, 2))
    with pytest.raises(Exception, match="key=value"):
        cli.parse_param("board_size")


def test_bench_passes_arguments_through(capsys):
    if cli.find_bench() is None:
        pytest.skip("not a repository checkout")
    with pytest.raises(SystemExit) as exc:
        cli.main(["bench", "--help"])
    assert exc.value.code == 0
    assert "--seconds" in capsys.readouterr().out


def test_bench_without_the_script_says_where_it_lives(capsys, monkeypatch):
    monkeypatch.setattr(cli, "find_bench", lambda: None)
    code, _, err = run(["bench"], capsys)
    assert code == 2
    assert "benchmarks/bench.py not found" in err


def test_train_without_the_entry_point_says_so(capsys, monkeypatch):
    monkeypatch.setattr(cli, "TRAIN_ENTRY", "tabletop_envs.training.no_such_module")
    code, _, err = run(["train"], capsys)
    assert code == 2
    assert "training entry point" in err


def test_console_module_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "tabletop_envs.cli", "list"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "iris_v0" in proc.stdout


# ---- play shows the human only what its seat may see -------------------------------------------
def _play_transcript(monkeypatch, name, params, seat, resample_seed, agent="greedy", decisions=8):
    """Play ``name`` through ``cli.play`` with a scripted human at ``seat``; return its steps.

    The human plays its first legal move and quits after ``decisions`` decisions. With
    ``resample_seed`` the game starts from ``resample_hidden(seat)`` of the dealt position: what
    the other seats hold is redrawn, everything ``seat`` knows stays. Returns one
    ``(text printed up to the end of the step, seat's observation after it)`` per env step,
    then ``(the rest of the text, None)``.
    """
    from tabletop_envs.agents.human import HumanAgent, QuitGame
    from tabletop_envs.envs.aec import TabletopEnv

    reset, step = TabletopEnv.reset, TabletopEnv.step
    out = io.StringIO()
    steps = []
    made = []

    def resampled_reset(env, seed=None, options=None):
        reset(env, seed=seed, options=options)
        if resample_seed is not None:
            env.load_state(env.game.resample_hidden(seat, np.random.default_rng(resample_seed)))

    def recorded_step(env, action):
        step(env, action)
        steps.append((out.getvalue(), env.game.observation(seat)))

    def scripted(human, game, s):
        made.append(s)
        if len(made) > decisions:
            raise QuitGame("scripted")
        return int(np.flatnonzero(game.legal_mask())[0])

    monkeypatch.setattr(TabletopEnv, "reset", resampled_reset)
    monkeypatch.setattr(TabletopEnv, "step", recorded_step)
    monkeypatch.setattr(HumanAgent, "act", scripted)
    cli.play(name, params, agent=agent, seat=seat, seed=4, stdin=io.StringIO(), stdout=out)
    return [*steps, (out.getvalue(), None)]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_play_transcript_shows_only_what_the_humans_seat_may_see(name, params, monkeypatch):
    """Redrawing the other seats' hidden information changes no line printed for the human...

    ...until the human's observation itself differs (a revealed tile, a placed choice): every
    line is a function of what the human's seat has seen so far.
    """
    seat = len(make(name, **params).possible_agents) - 1  # the others move before the human
    truth = _play_transcript(monkeypatch, name, params, seat, resample_seed=None)
    compared = 0
    for resample_seed in (1, 2, 3):
        other = _play_transcript(monkeypatch, name, params, seat, resample_seed)
        for (text, obs), (other_text, other_obs) in zip(truth, other, strict=False):
            same_view = (obs is None) == (other_obs is None) and (
                obs is None or np.array_equal(obs, other_obs)
            )
            if not same_view:
                break
            assert other_text == text, (
                f"the transcript differs while player_{seat} saw the same:\n"
                + "\n".join(difflib.unified_diff(text.splitlines(), other_text.splitlines()))
            )
            compared += 1
    assert compared >= 3  # at least the first step of each redraw


# ---- the options, generated from the declared configs ------------------------------------------
OPTIONS = {  # every option each subcommand had before its options were declared as configs
    "play": {"--env", "--param", "--seed", "--agent", "--seat"},
    "evaluate": {
        "--env",
        "--param",
        "--seed",
        "--agents",
        "--threads",
        "--games",
        "--json",
        "--quiet",
        "--ray",
        "--address",
    },
    "watch": {"--env", "--param", "--seed", "--agents", "--gif", "--svg", "--delay", "--record"},
    "replay": {"--gif", "--svg", "--delay", "--step"},
    "list": set(),
}


def _subparser(name: str):
    parser = cli.build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[name]


@pytest.mark.parametrize("command", sorted(OPTIONS))
def test_every_option_of_before_is_still_there(command):
    flags = {f for a in _subparser(command)._actions for f in a.option_strings}
    assert OPTIONS[command] <= flags - {"-h", "--help"}


def test_options_keep_their_defaults_and_meanings():
    args = cli.build_parser().parse_args(["evaluate"])
    assert (args.env, args.params, args.seed) == ("iris_v0", None, 0)
    assert (args.games, args.threads) == (20, 1)
    assert (tuple(args.agents), args.json, args.quiet, args.ray, args.address) == (
        ("random", "greedy"),
        None,
        False,
        0,
        None,
    )
    assert cli.build_parser().parse_args(["evaluate", "--ray"]).ray == 2  # alone: 2 workers
    assert cli.build_parser().parse_args(["evaluate", "--ray", "3"]).ray == 3
    args = cli.build_parser().parse_args(["watch", "--param", "board_size=3", "--param", "x=[1]"])
    assert args.params == [("board_size", 3), ("x", (1,))]
    assert (tuple(args.agents), args.delay) == (("greedy",), 600)
    args = cli.build_parser().parse_args(["replay", "g.json", "--step"])
    assert (args.record, args.step, args.delay) == ("g.json", True, 600)
    args = cli.build_parser().parse_args(["play"])
    assert (args.agent, args.seat) == ("greedy", 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "--games", "0"], "--games must be an integer >= 1, got 0"),
        (["evaluate", "--threads", "-1"], "--threads must be 0 (torch's default) or more"),
        (["evaluate", "--ray", "-2"], "--ray must be an integer >= 0"),
        (["evaluate", "--games", "x"], "argument --games: expected an integer, got 'x'"),
        (["evaluate", "--param", "board_size"], "expected key=value, got 'board_size'"),
        (["watch", "--delay", "0"], "--delay must be an integer from 1 to 60000"),
        (["evaluate", "--bogus"], "unrecognized arguments: --bogus"),
        (["play", "--seed", "-1"], "play: error: --seed must be an integer >= 0, got -1"),
        (["evaluate", "--seed", "-1"], "evaluate: error: --seed must be an integer >= 0, got -1"),
        (["watch", "--seed", "-1"], "watch: error: --seed must be an integer >= 0, got -1"),
        (["bench", "--seed", "-1"], "bench: error: --seed must be an integer >= 0, got -1"),
    ],
)
def test_bad_values_are_one_line_errors(argv, message, capsys):
    if argv[0] == "bench" and cli.find_bench() is None:
        pytest.skip("benchmarks/bench.py ships with the source repository only")
    try:
        code = cli.main(argv)
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def _no_games(monkeypatch):
    """Make playing any game fail the test: outputs must be checked before."""
    from tabletop_envs.evaluation import arena
    from tabletop_envs.evaluation import play as play_module

    def never(*args, **kwargs):
        raise AssertionError("a game was played before the outputs were checked")

    monkeypatch.setattr(arena, "play_games", never)
    monkeypatch.setattr(play_module, "play_game", never)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["evaluate", "--json", "{missing}/out.json"], "--json must go into an existing folder"),
        (["evaluate", "--json", "{tmp}"], "--json is a folder, not a file"),
        (["watch", "--gif", "{missing}/g.gif"], "--gif must go into an existing folder"),
        (["watch", "--record", "{file}/g.json"], "--record must go into a folder"),
        (["watch", "--svg", "{file}"], "--svg is a file, not a folder"),
        (["replay", "{record}", "--gif", "{tmp}"], "--gif is a folder, not a file"),
        (["watch", "--record", "{tmp}/w.json", "--gif", "{tmp}/x.jpg"], "--gif must end in .gif"),
        (["replay", "{record}", "--gif", "{tmp}/x.bmp"], "--gif must end in .gif, got '"),
        (["replay", "{record}", "--gif", "{tmp}/x.png"], "--gif must end in .gif"),
        (["watch", "--gif", "g.txt"], "--gif must end in .gif, got 'g.txt'"),
    ],
)
def test_output_paths_are_checked_before_any_game(argv, message, tmp_path, capsys, monkeypatch):
    (tmp_path / "file").write_text("x")
    record = tmp_path / "g.json"
    assert cli.main(["watch", "--param", "board_size=3", "--record", str(record)]) == 0
    capsys.readouterr()
    _no_games(monkeypatch)
    names = {"missing": tmp_path / "missing", "tmp": tmp_path, "file": tmp_path / "file"}
    names["record"] = record
    code, out, err = run([a.format(**names) for a in argv], capsys)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "w.json").exists()  # a refused command writes nothing


def test_gif_names_are_case_insensitive(tmp_path, capsys):
    path = tmp_path / "G.GIF"
    code, _, _ = run(["watch", "--param", "board_size=3", "--gif", str(path)], capsys)
    assert code == 0 and path.read_bytes()[:3] == b"GIF"


def test_seeds_of_any_size_play(capsys):
    # every seed the library takes (SeedSequence: any integer >= 0) the command takes
    code, out, _ = run(["watch", "--param", "board_size=3", "--seed", str(10**30)], capsys)
    assert code == 0 and "result:" in out


def test_parse_param_reads_as_the_config_reader_does():
    from tabletop_envs.core.config import parse_assignment

    for text in ("board_size=7", "memory=true", "reward=score", "deck=[1, 2]", "k= none "):
        assert cli.parse_param(text) == parse_assignment(text)
    with pytest.raises(argparse.ArgumentTypeError, match="key=value"):
        cli.parse_param("=3")
