"""An agent whose network cannot play the game is refused, named, before the game's first move.

The packaged Iris expert was trained on side 5; at side 4 it has no network. Each entry point
that seats agents says so before anything is played: the terminal game (before a board is
printed and the human types moves that would be lost), the arena, ``watch``, a training
opponent of the single-agent env and the AlphaZero run's opponents (before its warm start).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tabletop_envs import cli
from tabletop_envs.agents.single_agent import SingleAgentEnv
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.evaluation import play as play_module
from tabletop_envs.evaluation.arena import run_arena
from tabletop_envs.training import az
from tabletop_envs.watch import watch
from tests.extras import need_extra

SIDE_4 = {"board_size": 4}  # the packaged Iris expert plays side 5 only
WHY = r"cannot play this game: .*board_size"


@pytest.fixture
def no_game_played(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if any game is played: the refusal must come first."""

    def played(*args: object, **kwargs: object) -> int:
        raise AssertionError("a game was played before the agents were checked")

    monkeypatch.setattr(play_module, "play_game", played)


def test_the_terminal_game_refuses_before_printing_a_board() -> None:
    out = io.StringIO()
    with pytest.raises(ValueError, match=rf"--agent 'expert' {WHY}"):
        cli.play("iris_v0", SIDE_4, agent="expert", seat=0, seed=0, stdin=io.StringIO(), stdout=out)
    assert out.getvalue() == ""
    # the command line reports it as a usage error
    code = cli.main(["play", "--env", "iris_v0", "--param", "board_size=4", "--agent", "expert"])
    assert code == 2


@pytest.mark.usefixtures("no_game_played")
def test_the_arena_names_the_agent_before_its_first_game() -> None:
    with pytest.raises(ValueError, match=rf"agent 'expert' {WHY}"):
        run_arena("iris_v0", ["greedy", "expert"], games=2, env_kwargs=SIDE_4)


@pytest.mark.usefixtures("no_game_played")
def test_watch_names_the_seat_before_the_game() -> None:
    with pytest.raises(ValueError, match=rf"seat 1 \(expert\) {WHY}"):
        watch("iris_v0", ["greedy", "expert"], env_kwargs=SIDE_4)


def test_a_training_opponent_is_refused_when_it_is_set() -> None:
    with pytest.raises(InvalidParameterError, match=rf"opponent 'expert' {WHY}"):
        SingleAgentEnv("iris_v0", opponent=["random", "expert"], env_kwargs=SIDE_4)
    env = SingleAgentEnv("iris_v0", opponent="random", env_kwargs=SIDE_4)
    expert_side_5 = SingleAgentEnv("iris_v0", opponent="expert").pool.agents[0]
    with pytest.raises(InvalidParameterError, match=WHY):
        env.add_opponent(expert_side_5)
    assert len(env.pool) == 1  # the pool is as it was
    env.add_opponent(SingleAgentEnv("iris_v0", opponent="greedy", env_kwargs=SIDE_4).pool.agents[0])
    assert len(env.pool) == 2


@pytest.mark.parametrize("field", ["opponent", "warm_start", "eval_opponents"])
def test_an_alphazero_run_refuses_its_agents_before_the_warm_start(
    field: str, tmp_path: Path
) -> None:
    value: object = ["expert"] if field == "eval_opponents" else "expert"
    with pytest.raises(InvalidParameterError, match=rf"{field}: 'expert' {WHY}"):
        az.AZConfig(env="iris_v0", env_kwargs=SIDE_4, out=str(tmp_path), **{field: value})
    az.AZConfig(env="iris_v0", out=str(tmp_path), **{field: value})  # side 5: it plays


@pytest.mark.parametrize("field", ["opponent", "eval_opponent", "imitate", "final_eval_opponents"])
def test_a_ppo_run_refuses_its_agents_before_training(field: str, tmp_path: Path) -> None:
    # Before, an agent of --final-eval-opponents was first made after the whole training
    from tabletop_envs.training.ppo.config import TrainConfig

    value: object = ["expert"] if field == "final_eval_opponents" else "expert"
    with pytest.raises(InvalidParameterError, match=rf"{field}: 'expert' {WHY}"):
        TrainConfig(env="iris_v0", env_kwargs=SIDE_4, out=str(tmp_path), **{field: value})
    TrainConfig(env="iris_v0", out=str(tmp_path), **{field: value})  # side 5: it plays


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("opponent", "greedy+sb3:nowhere/model.zip"),
        ("eval_opponent", "nowhere/model.zip"),  # a bare .zip is a saved SB3 model too
        ("imitate", "sb3:nowhere/model.zip"),
        ("final_eval_opponents", ["greedy", "az:nowhere/net.npz"]),
    ],
)
def test_a_ppo_run_refuses_a_missing_model_file_naming_field_and_path(
    field: str, value: object, tmp_path: Path
) -> None:
    from tabletop_envs.training.ppo.config import TrainConfig

    with pytest.raises(InvalidParameterError, match=rf"{field}: .*nowhere/(model\.zip|net\.npz)"):
        TrainConfig(env="iris_v0", out=str(tmp_path / "run"), **{field: value})


@pytest.mark.parametrize("field", ["opponent", "warm_start", "eval_opponents"])
def test_an_alphazero_run_refuses_a_missing_model_file(field: str, tmp_path: Path) -> None:
    value: object = ["sb3:nowhere.zip"] if field == "eval_opponents" else "sb3:nowhere.zip"
    with pytest.raises(InvalidParameterError, match=rf"{field}: .*'nowhere.zip'"):
        az.AZConfig(env="iris_v0", out=str(tmp_path), **{field: value})


@pytest.mark.parametrize("algo", [[], ["--algo", "az"]])
def test_train_reports_a_missing_model_file_in_one_line_and_trains_nothing(
    algo: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not algo:  # PPO's command line is the train extra's
        need_extra("train", "sb3_contrib")
    flag = ["--final-eval-opponents"] if not algo else ["--eval-opponents"]
    out = tmp_path / "run"
    argv = ["train", *algo, "--env", "iris_v0", *flag, "sb3:nowhere.zip", "--out", str(out)]
    try:
        code = cli.main(argv)
    except SystemExit as exit:  # the az command line reports its settings through argparse
        code = exit.code
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "error:" in err and "'nowhere.zip'" in err
    assert not out.exists()


@pytest.mark.parametrize("field", ["eval_opponent", "imitate"])
def test_a_ppo_run_still_reads_an_empty_spec_as_not_set(field: str, tmp_path: Path) -> None:
    # as the run does: no eval_opponent is the last opponent, no imitate no imitation
    from tabletop_envs.training.ppo.config import TrainConfig

    config = TrainConfig(env="iris_v0", opponent="greedy", out=str(tmp_path), **{field: ""})
    assert config.eval_opponent_spec() == "greedy"
