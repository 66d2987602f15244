"""The PPO and RLlib run configurations: declared once, checked, and their command lines."""

from __future__ import annotations

import argparse
import runpy
from pathlib import Path

import pytest

from tabletop_envs.core.config import from_namespace
from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.training.az.config import AZConfig
from tabletop_envs.training.ppo.cli import build_parser, config_from_args
from tabletop_envs.training.ppo.config import TrainConfig
from tabletop_envs.training.rllib_config import RLlibConfig, SelfPlaySettings
from tabletop_envs.training.train import parse_env_args, run_command
from tests.extras import TRAIN, need_extra

ROOT = Path(__file__).resolve().parents[2]

#: Every option of ``tabletop-envs train`` (PPO) before its command line was generated.
PPO_OPTIONS = (
    "--algo", "--env", "--env-arg", "--param", "--timesteps", "--opponent", "--eval-opponent",
    "--self-play-every", "--snapshot-every", "--pool-size", "--learner-seat", "--reward",
    "--reward-scale", "--n-envs", "--vec", "--policy", "--cnn-channels", "--cnn-layers",
    "--footprint-head", "--value-mixtures", "--net-arch", "--n-steps", "--batch-size",
    "--n-epochs", "--lr", "--ent-coef", "--gamma", "--gae-lambda", "--clip-range",
    "--eval-every", "--eval-games", "--final-eval-games", "--final-eval-opponents",
    "--init-model", "--imitate", "--imitate-episodes", "--imitate-rounds", "--imitate-epochs",
    "--imitate-epsilon", "--imitate-workers", "--imitate-lr", "--imitate-temperature",
    "--eval-stochastic", "--eval-deterministic", "--seed", "--threads", "--out",
    "--no-progress", "--verbose",
)  # fmt: skip
#: Every option of ``examples/train_rllib.py`` before its command line was generated.
RLLIB_OPTIONS = (
    "--env", "--param", "--iterations", "--num-env-runners", "--envs-per-env-runner",
    "--address", "--num-cpus", "--out", "--resume", "--time-budget", "--checkpoint-every",
    "--policies", "--league-size", "--snapshot-every", "--self-play-prob", "--hidden", "--lr",
    "--train-batch-size", "--minibatch-size", "--num-epochs", "--entropy-coeff", "--gamma",
    "--seed", "--torch-threads", "--eval-games", "--eval-opponents", "--sample",
    "--deterministic", "--eval-ray", "--select-against", "--select-every", "--select-games",
)  # fmt: skip


def _options(parser: argparse.ArgumentParser) -> set[str]:
    return {s for action in parser._actions for s in action.option_strings}


def _rllib_parser() -> argparse.ArgumentParser:
    script = runpy.run_path(str(ROOT / "examples" / "train_rllib.py"), run_name="example")
    return script["build_parser"]()


def test_every_option_of_the_old_command_lines_is_still_there() -> None:
    assert set(PPO_OPTIONS) <= _options(build_parser())
    assert set(RLLIB_OPTIONS) <= _options(_rllib_parser())


def test_command_line_defaults_are_the_config_defaults() -> None:
    assert config_from_args(build_parser().parse_args([])) == TrainConfig()
    args = _rllib_parser().parse_args([])
    assert from_namespace(RLlibConfig, args) == RLlibConfig()


def test_old_spellings_keep_their_meaning() -> None:
    argv = [
        "--net-arch", "64,32", "--lr", "0.001", "--no-progress", "--eval-stochastic",
        "--snapshot-every", "64", "--learner-seat", "1", "--footprint-head", "--policy", "cells",
        "--env", "irk_v0", "--final-eval-opponents",
    ]  # fmt: skip
    config = config_from_args(build_parser().parse_args(argv))
    assert config.net_arch == (64, 32) and config.learning_rate == 0.001
    assert config.progress_bar is False and config.eval_deterministic is False
    assert config.self_play_every == 64 and config.learner_seat == 1
    assert config.footprint_head and config.final_eval_opponents == ()
    args = build_parser().parse_args(["--env-arg", "board_size=3", "--param", "auto_forced=true"])
    assert config_from_args(args).env_kwargs == {"board_size": 3, "auto_forced": True}
    assert config_from_args(build_parser().parse_args(["--net-arch", ""])).net_arch == ()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--n-envs", "0"], "--n-envs must be an integer >= 1, got 0"),
        (["--timesteps", "-1"], "--timesteps must be an integer >= 0, got -1"),
        (["--timesteps", "0"], "--timesteps must be positive"),
        (["--gamma", "1.5"], "--gamma must be a number from 0 to 1, got 1.5"),
        (["--imitate-epsilon", "-0.1"], "--imitate-epsilon must be a number from 0 to 1"),
        (["--learner-seat", "middle"], "--learner-seat must be 'alternate' or 'random' or a seat"),
        (["--env", "chess_v9"], "--env must be a registered env"),
        (["--imitate-temperature", "0"], "--imitate-temperature must be positive, got 0.0"),
        (["--imitate-rounds", "0"], "--imitate-rounds must be at least 1"),
        (["--verbose", "3"], "--verbose must be an integer from 0 to 2, got 3"),
        (["--seed", str(2**32)], "--seed must be an integer from 0 to 4294967295, got 4294967296"),
    ],
)
def test_a_wrong_setting_names_the_option_and_what_is_valid(argv: list[str], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        config_from_args(build_parser().parse_args(argv))


def test_python_callers_get_the_same_checks() -> None:
    with pytest.raises(InvalidParameterError, match="n_envs"):
        TrainConfig(n_envs=0)
    with pytest.raises(InvalidParameterError, match=r"net_arch\[1\] must be an integer from 1 to"):
        TrainConfig(net_arch=(64, 0))
    with pytest.raises(InvalidParameterError, match="unknown TrainConfig field"):
        TrainConfig.from_dict({"n_env": 2})
    assert TrainConfig(learner_seat=1).learner_seat == 1
    three = {"env": "isis_osiris_v0", "env_kwargs": {"num_players": 3}}
    assert TrainConfig(learner_seat=2, **three).learner_seat == 2


def test_the_command_line_reports_a_wrong_setting_in_one_line(capsys) -> None:
    need_extra("train", *TRAIN)  # the PPO command line imports SB3
    assert run_command(["--n-envs", "0"], prog="train") == 2
    assert capsys.readouterr().err == "train: error: --n-envs must be an integer >= 1, got 0\n"


def test_seeds_are_bounded_as_the_libraries_seeding_them_are() -> None:
    # numpy.random.seed (SB3, RLlib) takes up to 2**32 - 1, torch.manual_seed up to 2**64 - 1:
    # a larger seed failed after the run was built, in their words
    assert TrainConfig(seed=2**32 - 1).seed == 2**32 - 1
    with pytest.raises(InvalidParameterError, match=r"from 0 to 4294967295, got 4294967296"):
        RLlibConfig(seed=2**32)
    assert AZConfig(seed=2**64 - 1).seed == 2**64 - 1
    with pytest.raises(InvalidParameterError, match=r"seed must be an integer from 0 to 1844"):
        AZConfig(seed=2**64)


def test_parse_env_args_is_the_one_key_value_reader() -> None:
    assert parse_env_args(["deck=[1, 2]", "x=null", "name=None", " k = 3 "]) == {
        "deck": (1, 2),
        "x": None,
        "name": None,
        "k": 3,
    }


def test_rllib_settings_are_checked(tmp_path: Path) -> None:
    (tmp_path / "taken").write_text("")
    with pytest.raises(InvalidParameterError, match="out is a file, not a folder"):
        RLlibConfig(out=str(tmp_path / "taken"))  # refused before Ray starts, not after training
    with pytest.raises(InvalidParameterError, match="league_size must be an integer >= 0"):
        SelfPlaySettings(league_size=-1)
    with pytest.raises(InvalidParameterError, match="hidden must be layer sizes >= 1"):
        SelfPlaySettings(hidden=(16, 0))
    with pytest.raises(InvalidParameterError, match="sample and deterministic exclude"):
        RLlibConfig(sample=True, deterministic=True)
    config = RLlibConfig(league_size=2, iterations=3)
    assert config.self_play() == SelfPlaySettings(league_size=2, seed=0)
    assert SelfPlaySettings().seed is None and RLlibConfig().seed == 0


def test_rllib_example_refuses_a_wrong_setting(capsys) -> None:
    script = runpy.run_path(str(ROOT / "examples" / "train_rllib.py"), run_name="example")
    with pytest.raises(SystemExit) as exit_info:
        script["main"](["--sample", "--deterministic"])
    assert exit_info.value.code == 2
    assert "sample and deterministic exclude each other" in capsys.readouterr().err


def test_an_output_folder_that_cannot_be_made_is_refused_before_training(
    tmp_path: Path, capsys
) -> None:
    need_extra("train", *TRAIN)  # the PPO command line imports SB3
    (tmp_path / "taken").write_text("")
    with pytest.raises(InvalidParameterError, match="out is a file, not a folder"):
        TrainConfig(out=str(tmp_path / "taken"))
    with pytest.raises(InvalidParameterError, match=r"out cannot be made .* is a file"):
        AZConfig(out=str(tmp_path / "taken" / "run"))
    assert run_command(["--out", str(tmp_path / "taken"), "--timesteps", "64"], prog="train") == 2
    assert "train: error: --out is a file, not a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        run_command(["--algo", "az", "--out", str(tmp_path / "taken")], prog="train")
    assert exit_info.value.code == 2
    assert "--out is a file, not a folder" in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == ["taken"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"init_model": "missing.zip"}, "init_model names no saved model file, got 'missing.zip'"),
        ({"init_model": "."}, r"init_model is a folder, not a saved model \(.zip\)"),
        ({"learner_seat": 2}, "a seat 0..1 of this 2-player game, got 2"),
        ({"opponent": "random+"}, "opponent has an empty part, got 'random[+]'"),
        ({"env": "irk_v0", "policy": "cnn"}, r"irk_v0's observation has shape \(10726,\)"),
    ],
)
def test_what_the_run_would_trip_on_is_refused_when_the_config_is_made(
    changes: dict, message: str
) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        TrainConfig(**changes)


def test_a_refused_run_leaves_no_output_folder(tmp_path: Path, capsys) -> None:
    need_extra("train", *TRAIN)  # the PPO command line imports SB3
    out = tmp_path / "run"
    for argv in (["--learner-seat", "5"], ["--init-model", str(tmp_path)], ["--opponent", "a+"]):
        assert run_command([*argv, "--out", str(out)], prog="train") == 2
        assert "train: error: --" in capsys.readouterr().err
    assert not out.exists()


def test_az_resumes_into_the_resumed_runs_folder() -> None:
    assert AZConfig().out == "runs/az"
    assert AZConfig(resume="runs/a1").out == "runs/a1"
    assert AZConfig(resume="runs/a1/checkpoint.pt").out == "runs/a1"
    assert AZConfig(resume="runs/a1", out="runs/a2").out == "runs/a2"
