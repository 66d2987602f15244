"""The command line as a newcomer meets it (issue 23, item 10): one ``--agents`` syntax in every
command, help from the registry, Pillow checked first, readable headers, progress and move lists.
"""

from __future__ import annotations

import importlib.util
import io
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from tabletop_envs import cli
from tabletop_envs.agents.human import legal_moves_text
from tabletop_envs.agents.registry import agent_names
from tabletop_envs.envs.registry import make
from tabletop_envs.evaluation.arena import run_arena
from tabletop_envs.evaluation.play import split_agents

SMALL = ["--env", "iris_v0", "--param", "board_size=3", "--seed", "1"]


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    ("given", "agents"),
    [
        (["greedy,mcts"], ["greedy", "mcts"]),
        (["greedy", "mcts"], ["greedy", "mcts"]),
        (
            ["greedy,mcts:iterations=50,c=2", "random"],
            ["greedy", "mcts:iterations=50,c=2", "random"],
        ),
        (["mcts:iterations=50", "c=2"], ["mcts:iterations=50,c=2"]),
        (["az:net.npz,simulations=8,greedy"], ["az:net.npz,simulations=8", "greedy"]),
        (["sb3:m.zip,sample,greedy"], ["sb3:m.zip,sample", "greedy"]),
        (["sb3:m.zip,sample", "greedy"], ["sb3:m.zip,sample", "greedy"]),
    ],
)
def test_agents_are_split_by_spaces_or_commas(given: list[str], agents: list[str]) -> None:
    assert split_agents(given) == agents


@pytest.mark.parametrize("agents", [["random,greedy"], ["random", "greedy"]])
def test_evaluate_and_watch_take_both_agent_syntaxes(
    agents: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(
        ["evaluate", *SMALL, "--games", "2", "--quiet", "--agents", *agents], capsys
    )
    assert code == 0, err
    rows = [line.split()[0] for line in out.splitlines() if line.startswith(("random", "greedy"))]
    assert rows[:2] == ["random", "greedy"]
    code, out, err = run(["watch", *SMALL, "--agents", *agents], capsys)
    assert code == 0, err
    assert ": random vs greedy\n" in out


@pytest.mark.parametrize("command", ["evaluate", "watch"])
def test_agents_help_lists_the_registry_and_the_rule(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        cli.main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in agent_names():
        assert name in text
    for spec in (
        "expert[:simulations=N,network=off,root=gumbel]",
        "az:PATH",
        "sb3:PATH[,sample]",
        "spaces or commas",
    ):
        assert spec in text


def test_watch_gif_without_pillow_stops_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "PIL" else real(name, *a)
    )
    monkeypatch.setitem(sys.modules, "PIL", None)  # importing it fails too

    def no_game(*args: object) -> None:
        raise AssertionError("a game was played")

    monkeypatch.setattr("tabletop_envs.watch.watch", no_game)
    code, _, err = run(["watch", *SMALL, "--gif", str(tmp_path / "g.gif")], capsys)
    assert code == 2 and "needs Pillow" in err
    assert not (tmp_path / "g.gif").exists()


def test_arena_header_shows_parameters_only_when_there_are_some() -> None:
    plain = run_arena("iris_v0", ["random", "greedy"], 2, seed=1).table()
    assert plain.startswith("iris_v0: 2 games")
    small = run_arena("iris_v0", ["random", "greedy"], 2, env_kwargs={"board_size": 3}).table()
    assert small.startswith("iris_v0(board_size=3): 2 games")


def test_progress_to_a_pipe_is_whole_lines() -> None:
    stream = io.StringIO()  # not a terminal
    progress = cli.progress_printer(stream)
    for done in range(1, 51):
        progress(done, 50)
    text = stream.getvalue()
    assert "\r" not in text and text.endswith("50/50 games\n")
    assert all(re.fullmatch(r"\d+/50 games", line) for line in text.splitlines())
    assert 2 <= len(text.splitlines()) <= 11


def test_progress_on_a_terminal_rewrites_one_line() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    progress = cli.progress_printer(stream)
    for done in range(1, 4):
        progress(done, 3)
    assert stream.getvalue() == "\r1/3 games\r2/3 games\r3/3 games\n"


def test_irk_legal_moves_are_grouped_and_wrapped() -> None:
    env = make("irk_v0")
    env.reset(seed=0)
    game = env.game
    while np.count_nonzero(game.legal_mask()) < 60:  # play the choices until placements
        game.apply(int(np.flatnonzero(game.legal_mask())[0]))
    legal = np.flatnonzero(game.legal_mask()).tolist()
    text = legal_moves_text(game)
    lines = text.splitlines()
    assert lines[0] == f"legal moves ({len(legal)}):"
    assert len(lines) > 5 and all(len(line) <= 100 for line in lines)
    ids = [int(i) for i in re.findall(r"\(#(\d+)\)", text)]
    assert ids == legal  # every legal move, each once, in order
    for line in lines[1:]:
        if not line.startswith("    "):  # a group's first line: one row of the table
            rows = set(re.findall(r"place at \((-?\d+),", line))
            assert len(rows) == 1


# ---- the README as a newcomer runs it (issue 23, item 11) ---------------------------------------
README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_installs_build_before_it_builds() -> None:
    text = README.read_text()
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        code = "\n".join(line.split("#")[0] for line in block.splitlines())  # comments aside
        if "python -m build" in code:
            assert "pip install build" in code.split("python -m build")[0], block


def test_readme_says_what_the_main_job_model_does_not_beat() -> None:
    section = README.read_text().split("Set up and run the main job", 1)[1].split("```", 1)[0]
    prose = " ".join(section.split())
    assert "beats `random`" in prose and "96.0%" in prose
    assert "does **not** beat `greedy`" in prose and "2.5%" in prose
