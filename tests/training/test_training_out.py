"""A new training run never writes over an earlier one unless asked to (``overwrite``).

Each trainer declares what it writes into ``out`` (``RUN_FILES``); a folder holding any of it is
refused when the config is made and again when the run starts, naming the files and both ways
out. ``overwrite`` replaces the earlier run: its files go, so none stays beside the new run's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tabletop_envs.core.errors import InvalidParameterError
from tabletop_envs.evaluation.paths import check_new_run, clear_run, earlier_run, prepare_out
from tabletop_envs.training import az
from tabletop_envs.training.az.config import RUN_FILES as AZ_FILES
from tabletop_envs.training.az.config import AZConfig
from tabletop_envs.training.ppo.config import RUN_FILES as PPO_FILES
from tabletop_envs.training.ppo.config import TrainConfig
from tabletop_envs.training.rllib_config import RUN_FILES as RLLIB_FILES
from tabletop_envs.training.rllib_config import RLlibConfig
from tabletop_envs.training.train import run_command
from tests.extras import TRAIN, need_extra
from tests.training.helpers import tiny_az_config


def _earlier(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text("an earlier run's file")
    return folder


@pytest.mark.parametrize(
    ("make", "name"),
    [(TrainConfig, "model.zip"), (AZConfig, "checkpoint.pt"), (RLlibConfig, "train_log.jsonl")],
)
def test_a_config_is_refused_over_an_earlier_run(tmp_path: Path, make, name: str) -> None:
    out = _earlier(tmp_path / "run", name, "results.json")
    with pytest.raises(InvalidParameterError) as err:
        make(out=str(out))
    message = str(err.value)
    # the files in the order the trainer declares them (RUN_FILES), each before results.json
    assert message.startswith(f"out '{out}' holds an earlier run ({name}, results.json)")
    assert "choose another folder, or overwrite (--overwrite" in message
    assert make(out=str(out), overwrite=True).overwrite
    assert make(out=str(tmp_path / "fresh")).out == str(tmp_path / "fresh")
    assert (out / name).read_text() == "an earlier run's file"  # nothing touched by a config


def test_a_folder_with_other_files_is_no_earlier_run(tmp_path: Path) -> None:
    out = _earlier(tmp_path / "run", "notes.txt", "model.zip.bak")
    TrainConfig(out=str(out))
    AZConfig(out=str(out))
    assert earlier_run(out, PPO_FILES + AZ_FILES + RLLIB_FILES) == []


def test_a_resumed_run_goes_on_in_its_folder_but_not_over_another_run(tmp_path: Path) -> None:
    out = _earlier(tmp_path / "run", *AZ_FILES)
    assert AZConfig(resume=str(out)).out == str(out)
    assert AZConfig(resume=str(out / "checkpoint.pt"), out=str(out)).out == str(out)
    check_new_run(str(out), AZ_FILES, overwrite=False, resumed_from=str(out))
    other = _earlier(tmp_path / "other", "results.json")
    with pytest.raises(InvalidParameterError, match=r"holds an earlier run \(results.json\)"):
        AZConfig(resume=str(out), out=str(other))  # resumed here, it would write over that run
    assert AZConfig(resume=str(out), out=str(tmp_path / "new")).out == str(tmp_path / "new")
    rllib = _earlier(tmp_path / "rllib", "checkpoint", "results.json")
    RLlibConfig(out=str(rllib), resume=str(rllib / "checkpoint"))
    with pytest.raises(InvalidParameterError, match="holds an earlier run"):
        RLlibConfig(out=str(other), resume=str(rllib / "checkpoint"))


def test_overwrite_never_clears_the_folder_a_run_resumes_in(tmp_path: Path) -> None:
    out = _earlier(tmp_path / "run", *AZ_FILES)
    prepare_out(out, AZ_FILES, overwrite=True, resumed_from=str(out))
    assert sorted(p.name for p in out.iterdir()) == sorted(AZ_FILES)


def test_overwrite_removes_what_the_earlier_run_wrote_and_nothing_else(tmp_path: Path) -> None:
    out = _earlier(tmp_path / "run", "best.npz", "results.json", "notes.txt")
    (out / "checkpoint").mkdir()
    (out / "checkpoint" / "state.pkl").write_text("")
    with pytest.raises(InvalidParameterError, match="holds an earlier run"):
        prepare_out(out, ["best.npz", "checkpoint", "results.json"], overwrite=False)
    assert (out / "best.npz").exists()  # a refusal removes nothing
    prepare_out(out, ["best.npz", "checkpoint", "results.json"], overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]
    clear_run(out, ["best.npz"])  # nothing left to remove is no error
    prepare_out(tmp_path / "new" / "run", AZ_FILES, overwrite=False)
    assert (tmp_path / "new" / "run").is_dir()


def test_a_folder_filled_after_the_config_was_made_is_refused_when_the_run_starts(
    tmp_path: Path,
) -> None:
    need_extra("train", "torch")
    config = tiny_az_config(tmp_path)
    _earlier(Path(config.out), "model.npz")
    with pytest.raises(InvalidParameterError, match=r"holds an earlier run \(model.npz\)"):
        az.train_az(config, log=lambda line: None)
    assert (Path(config.out) / "model.npz").read_text() == "an earlier run's file"


def test_a_second_az_run_in_the_same_folder_needs_overwrite(tmp_path: Path) -> None:
    need_extra("train", "torch")
    config = tiny_az_config(tmp_path, keep_best=True)
    az.train_az(config, log=lambda line: None)
    out = Path(config.out)
    first = (out / "results.json").read_text()
    assert (out / "best.npz").exists()
    with pytest.raises(InvalidParameterError, match="holds an earlier run"):
        tiny_az_config(tmp_path, keep_best=False)
    assert (out / "results.json").read_text() == first
    az.train_az(tiny_az_config(tmp_path, keep_best=False, overwrite=True), log=lambda line: None)
    assert not (out / "best.npz").exists()  # the earlier run's best is not left as this one's
    assert (out / "results.json").read_text() != first


def test_the_command_line_names_the_options(tmp_path: Path, capsys) -> None:
    need_extra("train", *TRAIN)  # the PPO command line imports SB3
    out = _earlier(tmp_path / "run", "model.zip")
    assert run_command(["--out", str(out), "--timesteps", "64"], prog="train") == 2
    err = capsys.readouterr().err
    assert f"train: error: --out '{out}' holds an earlier run (model.zip)" in err
    assert "--overwrite" in err
    with pytest.raises(SystemExit) as exit_info:
        run_command(["--algo", "az", "--out", str(_earlier(out, "model.npz"))], prog="train")
    assert exit_info.value.code == 2
    assert "holds an earlier run (model.npz)" in capsys.readouterr().err
    assert (out / "model.zip").read_text() == "an earlier run's file"
