"""The command line is untrusted: generated arguments, output paths and record files.

``tabletop_envs.cli.main(argv)`` runs in-process on generated argument lists for every
subcommand; each run must end with exit status 0 or 2, never an exception, a traceback or a
hang, and a status 2 must print exactly one short line on stderr. Runs stay cheap and local:
arenas play at most two games and never start Ray, ``bench`` measures nothing and ``train``
stops once its configuration is checked (the option checks all run). The slow run tries a few
thousand command lines per group (``python -m pytest -q -m slow tests/trust/test_trust_cli.py``).
"""

from __future__ import annotations

import io
import json
import os
import runpy
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tabletop_envs import cli
from tabletop_envs.evaluation import arena
from tabletop_envs.watch import watch
from tests.extras import train_extra_missing
from tests.trust.hostile_inputs import (
    CI_EXAMPLES,
    MESSAGE_LIMIT,
    SLOW_EXAMPLES,
    TRICKY_TEXT,
    run_settings,
    time_limit,
)

#: Output paths, relative to the sandbox folder: fresh, in a missing folder, onto a folder or a
#: file, under a file, empty, too long, with a NUL character.
PATHS = st.one_of(
    st.sampled_from(
        [
            "out.json",
            "out.gif",
            "frames",
            "adir",
            "afile",
            "missing/out.json",
            "afile/x",
            "adir/new",
            "",
            " ",
            "x" * 300,
            "a\0b",
            "-",
        ]
    ),
    st.text(alphabet="abcxyz019-_", min_size=1, max_size=8),
)
#: Record files prepared in the sandbox (see :func:`sandbox`), and paths that are none.
# fmt: off
RECORDS = st.sampled_from(
    ["game.json", "cut.json", "edited.json", "deep.json", "latin.json", "empty.json", "adir",
     "afile", "missing.json", "", "x" * 300, "a\0b"]
)
INTS = st.one_of(
    st.sampled_from(["0", "1", "2", "3", "-1", "1.5", "1e3", "nan", "x", "", "2**8"]),
    st.sampled_from(["99999999999999999999", "9" * 5000, " 2", "0x10", "True"]),
)
NUMBERS = st.one_of(INTS, st.sampled_from(["0.5", "inf", "-inf", "1e-9", "1e400", "-0.0"]))
ENVS = st.one_of(
    st.sampled_from(["iris_v0", "iris_v0", "irk_v0", "isis_osiris_v0", "nope", "iris", ""]),
    TRICKY_TEXT,
)
PARAMS = st.one_of(
    st.sampled_from(
        ["board_size=3", "board_size=4", "num_players=3", "num_players=2", "board_size=99",
         "board_size=x", "size=5", "=", "board_size", "num_players=[3]", "auto_forced=true"]
    ),
    TRICKY_TEXT,
)
#: Cheap agents (a game is over in moments) and refused ones.
AGENTS = st.one_of(
    st.sampled_from(
        ["random", "greedy", "mcts:iterations=2", "random,greedy", "greedy,mcts:iterations=3,c=2",
         "planner", "expert:simulations=0", "nope", "mcts:c=nan", "mcts:iterations=0",
         "sb3:/missing.zip", "az:missing.npz", "rllib:/missing", "mcts:", ":", ","]
    ),
    TRICKY_TEXT,
)
# fmt: on
#: Typed lines that once broke the replay browser: digits int() refuses, 5000 digits.
ODD_LINES = ["\u00b2", "1\u00b2", "#\u00b2", "\u0663", "99", "9" * 5000, "#" + "9" * 5000]
MOVES = st.one_of(
    st.sampled_from(["quit", "legal", "pass", "#0", "#17", "#-1", "#999", "a1", "1 1", "", "q"]),
    st.sampled_from(ODD_LINES),
    st.text(max_size=8),
)

#: Option -> values, per subcommand (a value of None: a flag without a value).
OPTIONS: dict[str, dict[str, Any]] = {
    "common": {"--env": ENVS, "--param": PARAMS, "--seed": INTS},
    "play": {"--agent": AGENTS, "--seat": INTS},
    "evaluate": {
        "--agents": AGENTS,
        "--threads": INTS,
        "--games": INTS,
        "--json": PATHS,
        "--quiet": None,
        "--no-quiet": None,
        "--ray": INTS,
        "--address": st.sampled_from(["localhost:1", "", "auto"]),
    },
    "watch": {
        "--agents": AGENTS,
        "--gif": PATHS,
        "--svg": PATHS,
        "--delay": INTS,
        "--record": PATHS,
    },
    "replay": {"--gif": PATHS, "--svg": PATHS, "--delay": INTS, "--step": None},
    "bench": {
        "--env": ENVS,
        "--seconds": NUMBERS,
        "--rounds": INTS,
        "--json": PATHS,
        "--clock": st.sampled_from(["cpu", "wall", "x"]),
        "--chooser": st.sampled_from(["nonzero", "flatnonzero", ""]),
        "--seed": INTS,
    },
    "train": {
        "--algo": st.sampled_from(["ppo", "az", "az", "nope", ""]),
        "--env": ENVS,
        "--env-arg": PARAMS,
        "--timesteps": INTS,
        "--n-envs": INTS,
        "--opponent": AGENTS,
        "--seed": INTS,
        "--threads": INTS,
        "--out": PATHS,
        "--hidden": st.sampled_from(["64,64", "0", "10000000", "x", "", "8"]),
        "--net-arch": st.sampled_from(["64,64", "0", "10000000", "x", ""]),
        "--games": INTS,
        "--iterations": INTS,
        "--simulations": INTS,
        "--lr": NUMBERS,
        "--time-budget": NUMBERS,
        "--resume": PATHS,
    },
}
STRAY = st.one_of(
    st.sampled_from(["--bogus", "-x", "--", "-h", "--help", "--version"]), TRICKY_TEXT
)


#: Option lists that are fine on their own, per subcommand: a plausible command line picks some
#: and may add one hostile option, so the checks run inside otherwise good runs too.
GOOD: dict[str, list[list[str]]] = {
    "play": [["--param", "board_size=3"], ["--agent", "random"], ["--seat", "1"], ["--seed", "3"]],
    "evaluate": [
        ["--agents", "random", "greedy"],
        ["--agents", "random", "mcts:iterations=2", "greedy"],
        ["--games", "2"],
        ["--json", "out.json"],
        ["--quiet"],
        ["--seed", "2"],
        ["--param", "board_size=3"],
    ],
    "watch": [
        ["--agents", "random,greedy"],
        ["--param", "board_size=3"],
        ["--gif", "out.gif"],
        ["--svg", "frames"],
        ["--record", "rec.json"],
        ["--delay", "5"],
    ],
    "replay": [["--gif", "g.gif"], ["--svg", "frames"], ["--step"], ["--delay", "3"]],
    "list": [],
    "bench": [["--env", "iris"], ["--seconds", "0.1"], ["--json", "b.json"], ["--clock", "wall"]],
    "train": [["--algo", "az"], ["--env", "iris_v0"], ["--seed", "1"], ["--threads", "1"]],
}


@st.composite
def command_lines(draw: st.DrawFn, commands: list[str]) -> tuple[list[str], str]:
    """An argument list for one of ``commands`` and the text typed on stdin.

    Half the command lines are plausible (good options, at most one hostile), half anything.
    """
    command = draw(st.sampled_from(commands))
    table = dict(OPTIONS.get(command, {}))
    if command in ("play", "evaluate", "watch"):
        table.update(OPTIONS["common"])
    plausible = draw(st.booleans())
    argv = [command]
    if command == "replay":
        argv.append("game.json" if plausible else draw(RECORDS))
    if plausible and GOOD[command]:
        picks = st.lists(st.integers(0, len(GOOD[command]) - 1), max_size=4, unique=True)
        for k in draw(picks):
            argv += GOOD[command][k]
    for _ in range(draw(st.integers(0, 1 if plausible else 5))):
        if not table:
            break
        flag = draw(st.sampled_from(sorted(table)))
        values = table[flag]
        argv.append(flag)
        if values is not None:
            count = draw(st.integers(1, 3)) if flag == "--agents" else 1
            argv += [draw(values) for _ in range(count)]
    if not plausible and draw(st.integers(0, 4)) == 0:
        argv.insert(draw(st.integers(1, len(argv))), draw(STRAY))
    stdin = "\n".join(draw(st.lists(MOVES, max_size=4)))
    return argv, stdin


def run(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    """Run the command line in-process; return the exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err), time_limit():
            try:
                code: Any = cli.main(argv)
            except SystemExit as stop:
                code = stop.code
    finally:
        sys.stdin = saved
    return 0 if code is None else code, out.getvalue(), err.getvalue()


def check_run(argv: list[str], stdin: str = "") -> int:
    """Run ``argv``: exit status 0 or 2, never a traceback; status 2 says why in one line."""
    code, _, err = run(argv, stdin)
    assert code in (0, 2), f"exit status {code!r}: {err[-500:]}"
    assert "Traceback" not in err, err[-2000:]
    assert len(err) <= 20_000, f"{len(err)} characters on stderr"  # progress lines at most
    if code == 2:
        assert err.endswith("\n") and err.count("\n") == 1, f"not one line: {err[:500]!r}"
        assert len(err) <= MESSAGE_LIMIT + 200, f"{len(err)} characters on stderr"
        assert ": error: " in err or "not found" in err or "not available" in err, err
    return int(code)


# ---- the sandbox -------------------------------------------------------------------------------
@contextmanager
def sandbox(folder: Path) -> Iterator[None]:
    """Work in ``folder`` (with records, a folder and a file) with cheap runs of every command."""
    record = watch("iris_v0", ["random"], seed=1, env_kwargs={"board_size": 3})
    (folder / "adir").mkdir(exist_ok=True)
    (folder / "afile").write_text("a file\n")
    record.save(folder / "game.json")
    text = record.to_json()
    (folder / "cut.json").write_text(text[: len(text) // 2])
    data = json.loads(text)
    data["result"]["returns"] = [0.0, 0.0]
    (folder / "edited.json").write_text(json.dumps(data))
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "latin.json").write_bytes(text.replace("random", "rand\xe9m").encode("latin-1"))
    (folder / "empty.json").write_text("")
    real_evaluate, real_run_path = arena.evaluate, runpy.run_path

    def small_evaluate(config: Any, progress: Any = None) -> Any:  # two games at most, no Ray
        return real_evaluate(config.replace(games=min(config.games, 2), ray=0), progress)

    def bench_measuring_nothing(path: str, **kwargs: Any) -> dict[str, Any]:
        namespace = real_run_path(path, **kwargs)  # a copy of the script's globals
        namespace["main"].__globals__["build_subjects"] = lambda *args: ({}, [])
        return namespace

    home = Path.cwd()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arena, "evaluate", small_evaluate)
        patch.setattr(runpy, "run_path", bench_measuring_nothing)
        os.chdir(folder)
        try:
            yield
        finally:
            os.chdir(home)


@contextmanager
def training_checked_only() -> Iterator[None]:
    """Make ``train`` stop once its configuration is built (and so checked)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("tabletop_envs.training.ppo.run.train", lambda config: None)
        patch.setattr("tabletop_envs.training.az.cli.train_az", lambda config, command: None)
        yield


# ---- the tests ---------------------------------------------------------------------------------
PLAYING = ["play", "evaluate", "watch", "replay", "list"]
TOOLS = ["bench"] if train_extra_missing() else ["bench", "train"]


def _run(folder: Path, commands: list[str], examples: int) -> None:
    counts = {0: 0, 2: 0}

    @run_settings(examples)
    @given(command_lines(commands))
    def check(case: tuple[list[str], str]) -> None:
        counts[check_run(*case)] += 1

    with sandbox(folder), training_checked_only():
        check()
    print(commands, counts)


@pytest.mark.parametrize(
    "argv",
    [
        ["bench", "--env", "nope"],
        ["evaluate", "--agents", "sb3:/missing.zip", "random"],
        ["evaluate", "--agents", "random", "--json", "missing/out.json"],
        ["evaluate", "--agents", "random", "--json", "adir"],
        ["watch", "--gif", "missing/g.gif"],
        ["watch", "--gif", "adir"],
        ["watch", "--svg", "afile"],
        ["watch", "--record", "adir"],
        ["watch", "--record", "missing/r.json"],
        ["train", "--n-envs", "0"],
        ["train", "--timesteps", "-1"],
        ["train", "--algo", "az", "--hidden", "10000000"],
        ["train", "--algo", "az", "--bogus", "x" * 100_000],
        ["replay", "deep.json"],
        ["replay", "latin.json"],
        ["replay", "edited.json"],
        ["replay", "cut.json"],
        ["replay", "adir"],
        ["replay", "x" * 100_000],
        ["evaluate", "--env", "x" * 20_000_000],
        ["evaluate", "--param", "board_size=" + "x" * 1_000_000],
        ["evaluate", "--param", "x" * 1_000_000 + "=1"],
        ["evaluate", "--agents", "mcts:c=" + "[" * 100_000],
        ["play", "--seat", "9"],
        ["replay", "game.json", "--gif", "g.gif", "--delay", "99999999999999999999"],
        ["watch", "--gif", "g.gif", "--delay", "60001"],
    ],
)
def test_named_mistakes_print_one_line_and_exit_2(tmp_path: Path, argv: list[str]) -> None:
    if argv[0] == "train" and train_extra_missing():
        pytest.skip("the train extra is not installed")
    with sandbox(tmp_path), training_checked_only():
        assert check_run(argv) == 2


@pytest.mark.parametrize("line", ODD_LINES)
def test_odd_typed_lines_are_answered_not_fatal(tmp_path: Path, line: str) -> None:
    """Superscript digits pass str.isdigit() but not int(); 5000 digits pass neither limit."""
    with sandbox(tmp_path):
        assert check_run(["replay", "game.json", "--step"], f"{line}\nq\n") == 0
        assert check_run(["play", "--param", "board_size=3"], f"{line}\nquit\n") == 0


def test_good_command_lines_still_run(tmp_path: Path) -> None:
    with sandbox(tmp_path), training_checked_only():
        for argv in (
            ["watch", "--param", "board_size=3", "--record", "r.json", "--svg", "frames"],
            ["replay", "game.json", "--gif", "g.gif"],
            ["evaluate", "--agents", "random", "greedy", "--games", "2", "--json", "e.json"],
            ["list"],
        ):
            assert check_run(argv) == 0, argv
        assert check_run(["play", "--param", "board_size=3"], "quit\n") == 0
        assert check_run(["bench", "--env", "iris", "--json", "b.json"]) == 0
        if not train_extra_missing():
            assert check_run(["train", "--algo", "az", "--iterations", "1"]) == 0
        for name in ("r.json", "e.json", "g.gif", "b.json", "frames/000.svg"):
            assert (tmp_path / name).exists(), name


def test_generated_command_lines_exit_0_or_2_in_one_line(tmp_path: Path) -> None:
    _run(tmp_path, PLAYING, CI_EXAMPLES)


def test_generated_tool_command_lines_exit_0_or_2_in_one_line(tmp_path: Path) -> None:
    _run(tmp_path, TOOLS, CI_EXAMPLES)


@pytest.mark.slow
def test_generated_command_lines_slow(tmp_path: Path) -> None:
    _run(tmp_path, PLAYING, SLOW_EXAMPLES)


@pytest.mark.slow
def test_generated_tool_command_lines_slow(tmp_path: Path) -> None:
    _run(tmp_path, TOOLS, SLOW_EXAMPLES)
