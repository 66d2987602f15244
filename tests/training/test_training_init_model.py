"""``--init-model``: a run starts from a saved model's weights, and a model made for another run
is refused with what differs, before the run writes anything."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.training.ppo.config import TrainConfig
from tabletop_envs.training.ppo.run import train
from tabletop_envs.training.train import run_command

TINY = {
    "env": "iris_v0",
    "env_kwargs": {"board_size": 3},
    "timesteps": 32,
    "n_steps": 32,
    "batch_size": 32,
    "n_envs": 1,
    "eval_every": 0,
    "final_eval_games": 1,
    "progress_bar": False,
    "net_arch": (16,),
}


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("base")
    train(TrainConfig(**TINY, out=str(out)), log=lambda _: None)
    return out / "model.zip"


def test_a_run_starts_from_the_saved_weights(saved: Path, tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    from tabletop_envs.training.ppo.run import build_model, training_envs

    config = TrainConfig(**TINY, init_model=str(saved), out=str(tmp_path))
    model = build_model(config, training_envs(config))
    before = MaskablePPO.load(saved, device="cpu").policy.state_dict()
    after = model.policy.state_dict()
    assert before.keys() == after.keys()
    assert all(bool((before[k] == after[k]).all()) for k in before)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"env_kwargs": {"board_size": 4}},
            r"trained with the observation_space .*\(250,\).* this run has",
        ),
        (
            {"net_arch": (32,)},
            r"holds another network than this run's --policy and --net-arch make \(size mismatch",
        ),
    ],
)
def test_a_model_made_for_another_run_is_refused(
    saved: Path, tmp_path: Path, changes: dict, message: str
) -> None:
    out = tmp_path / "run"
    config = TrainConfig(**{**TINY, **changes}, init_model=str(saved), out=str(out))
    with pytest.raises(InvalidParameterError, match=message):
        train(config, log=lambda _: None)
    assert not out.exists()


def test_a_file_that_is_no_model_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes.zip").write_text("not a model")
    out = tmp_path / "run"
    argv = ["--env", "iris_v0", "--init-model", str(tmp_path / "notes.zip"), "--out", str(out)]
    assert run_command(argv, prog="train") == 2
    err = capsys.readouterr().err
    assert err.startswith("train: error: --init-model '") and "is no saved MaskablePPO model" in err
    assert err.count("\n") == 1 and not out.exists()


def test_a_model_of_other_game_parameters_is_refused_as_an_opponent_before_training(
    saved: Path, tmp_path: Path
) -> None:
    """It used to fail at its first move, once training had started and its folder existed."""
    out = tmp_path / "run"
    with pytest.raises(
        InvalidParameterError, match=r"^opponent: .* cannot play this game: .*\(250,\)"
    ):
        TrainConfig(env="iris_v0", opponent=f"sb3:{saved}", out=str(out))
    config = TrainConfig(**TINY, opponent=f"sb3:{saved}", out=str(out))  # its own parameters
    assert config.opponent.endswith("model.zip") and not out.exists()
