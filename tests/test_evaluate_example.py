"""``examples/evaluate.py``: a mistake is one line naming the option, before any game is played."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "examples" / "evaluate.py"


def _script() -> ModuleType:
    """The script as a module, imported once (its config dataclass resolves its annotations
    through ``sys.modules``)."""
    module = sys.modules.get("evaluate_example")
    if module is None:
        spec = importlib.util.spec_from_file_location("evaluate_example", SCRIPT)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["evaluate_example"] = module
        spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A tiny MaskablePPO model of Iris on a board of side 3."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from tabletop_envs.agents.single_agent import SingleAgentEnv

    env = SingleAgentEnv("iris_v0", env_kwargs={"board_size": 3})
    ppo = MaskablePPO(
        "MlpPolicy", env, seed=0, device="cpu", n_steps=64, batch_size=64, n_epochs=1,
        policy_kwargs={"net_arch": [8]},
    )  # fmt: skip
    path = tmp_path_factory.mktemp("model") / "model.zip"
    ppo.save(path)
    return str(path)


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """Run the script, expect exit status 2; return its one line on stderr (nothing played)."""
    with pytest.raises(SystemExit) as info:
        _script().main(argv)
    assert info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no game was played
    assert captured.err.startswith("evaluate.py: error: ") and captured.err.count("\n") == 1
    return captured.err


def test_a_missing_model_file_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(["missing.zip", "--env", "iris_v0"], capsys)
    assert "model: no SB3 model file 'missing.zip'" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--env", "nope"], "--env must be a registered env (iris_v0"),
        (["--games", "0"], "--games must be an integer >= 1, got 0"),
        (["--seed", "-1"], "--seed must be an integer >= 0, got -1"),
        (["--threads", "-1"], "--threads must be an integer from 0 to 4096, got -1"),
        (["--env-arg", "bord=3"], "--param: iris_v0 has no parameter 'bord'; its parameters"),
        (["--param", "board_size=2"], "--param: board_size must be from 3 to 16, got 2"),
        (["--json", "nodir/x.json"], "--json must go into an existing folder ('nodir' does not"),
        (["--sample", "--deterministic"], "--sample and --deterministic exclude each other"),
    ],
)
def test_bad_options_are_named_before_the_model_is_loaded(
    extra: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["missing.zip", "--env", "iris_v0", "--env-arg", "board_size=3", *extra]
    assert message in _error(argv, capsys)


def test_a_folder_as_json_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _error(["missing.zip", "--env", "iris_v0", "--json", str(tmp_path)], capsys)
    assert "--json is a folder, not a file" in err


@pytest.mark.parametrize(
    ("opponent", "message"),
    [
        ("randm", "--opponents: unknown agent 'randm' in 'randm'; registered agents: az,"),
        ("az:missing.npz", "--opponents: no network file at missing.npz"),
        ("mcts:iterations=-1", "--opponents: iterations must be"),
    ],
)
def test_a_bad_opponent_is_named_before_any_game(
    model: str, opponent: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = [model, "--env", "iris_v0", "--env-arg", "board_size=3", "--games", "2"]
    assert message in _error([*argv, "--opponents", "random", opponent], capsys)


def test_a_model_of_other_game_parameters_is_refused_before_any_game(
    model: str, capsys: pytest.CaptureFixture[str]
) -> None:
    err = _error([model, "--env", "iris_v0", "--games", "2"], capsys)
    assert "model: " in err and "reads observations of shape (250,)" in err
    assert "--param KEY=VALUE gives the game parameters it was trained with" in err


def test_the_model_plays_each_opponent_and_writes_the_summaries(
    model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "eval.json"
    argv = [model, "--env", "iris_v0", "--env-arg", "board_size=3", "--games", "2"]
    assert _script().main([*argv, "--opponents", "random", "greedy", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "win rate vs random" in text and "win rate vs greedy" in text
    summaries = json.loads(out.read_text())
    assert [summaries[k]["results"] for k in ("random", "greedy")] == [2, 2]
    assert summaries["random"]["name"] == f"sb3:{model}"
