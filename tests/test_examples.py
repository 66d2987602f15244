"""The demo in ``examples/`` runs, is reproducible and reports the game's result."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "examples" / "random_game.py"


def _load_demo():
    spec = importlib.util.spec_from_file_location("random_game_demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # the recipe of importlib's docs: a dataclass looks it up
    spec.loader.exec_module(module)
    return module


def test_demo_prints_turns_final_board_and_result(capsys: pytest.CaptureFixture[str]) -> None:
    result = _load_demo().play(seed=0, board_size=5)  # the env's result_details()
    out = capsys.readouterr().out
    assert "   1. Black: " in out  # the opening turn: one gray stone
    assert "game over:" in out  # the ansi render of the final board
    black, white = result["group_scores"]
    assert f"Black {black}, White {white}" in out
    winner = {None: "none (draw)", 0: "Black", 1: "White"}[result["winner"]]
    assert f"Winner: {winner}" in out


def test_demo_is_reproducible_per_seed(capsys: pytest.CaptureFixture[str]) -> None:
    demo = _load_demo()
    outs = []
    for seed in (1, 1, 2):
        demo.main(["--seed", str(seed), "--board-size", "4"])
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    assert outs[0] != outs[2]


def test_demo_board_size_and_show_boards(capsys: pytest.CaptureFixture[str]) -> None:
    _load_demo().main(["--seed", "3", "--board-size", "3", "--show-boards"])
    out = capsys.readouterr().out
    assert "board side 3" in out
    assert out.count("to move:") >= 2  # a board with its status line after each turn


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--board-size", "2"], "--board-size must be an integer from 3 to 16, got 2"),
        (["--board-size", "x"], "argument --board-size: expected an integer, got 'x'"),
        (["--seed", "-1"], "--seed must be an integer >= 0, got -1"),  # named the env's seed
    ],
)
def test_demo_refuses_a_bad_option_in_one_line_before_the_game(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _load_demo().main(argv)
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("random_game.py: error: ") and err.count("\n") == 1
    assert message in err


def test_demo_runs_as_a_script() -> None:
    result = subprocess.run(
        [sys.executable, str(DEMO), "--seed", "5", "--board-size", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "Winner:" in result.stdout
