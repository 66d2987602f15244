"""AlphaZero checkpoints are untrusted: ``--resume`` of a damaged or foreign run folder.

A ``checkpoint.pt`` is read with ``weights_only=True`` and a ``buffer.npz`` without pickles;
each mutation below of a real run's files is refused with one ValueError naming the file (the
command line prints it as one line), never a torch or numpy traceback, and no damaged value
(a NaN target, a negative counter) trains on.
"""

from __future__ import annotations

import copy
import io
import os
import shutil
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest

if os.environ.get("CI") == "true":  # CI installs the train extra: missing, it must fail
    import torch
else:  # a checkout tested with the test extra alone skips these
    torch = pytest.importorskip("torch")

from tabletop_envs.training import az
from tests.training.helpers import tiny_az_config

Checkpoint = dict[str, Any]


def _quiet(line: str) -> None:
    pass


@cache
def _run(folder: str) -> Path:
    """A finished one-iteration run with its buffer saved (made once per session folder)."""
    config = tiny_az_config(
        Path(folder), eval_every=0, final_eval_games=0, save_buffer=True, games=1
    )
    az.train_az(config, log=_quiet)
    return Path(config.out)


def _npz(arrays: dict[str, np.ndarray]) -> bytes:
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def _set(key: str, value: Any) -> Callable[[Checkpoint], None]:
    return lambda data: data.__setitem__(key, value)


def _set_run(key: str, value: Any) -> Callable[[Checkpoint], None]:
    return lambda data: data["run"].__setitem__(key, value)


CHECKPOINTS: dict[str, tuple[Callable[[Checkpoint], None], str]] = {
    "config a list": (_set("config", [1]), "config must be a mapping"),
    "model a list": (_set("model", [1]), "model must be a mapping"),
    "model of another network": (_set("model", {"x": torch.zeros(2)}), "do not fit"),
    "optimizer state of nothing": (_set("optimizer", {"x": 1}), "do not fit"),
    "iteration a text": (_set_run("iteration", "x"), "iteration must be an integer >= 0"),
    "iteration negative": (_set_run("iteration", -5), "iteration must be an integer >= 0"),
    "seconds NaN": (_set_run("train_seconds", float("nan")), "train_seconds must be a number"),
    "history of numbers": (_set_run("history", [1]), "history must be a list of evaluations"),
    "best a list": (_set_run("best", [1]), "best must be empty or hold"),
}

BUFFERS: dict[str, tuple[Callable[[dict[str, np.ndarray]], bytes], str]] = {
    "truncated": (lambda good: _npz(good)[:100], "not a replay buffer"),
    "not a zip": (lambda good: b"PK\x03\x04garbage", "not a replay buffer"),
    "added an array": (lambda good: _npz({**good, "added": np.arange(3)}), "added is the count"),
    "added a text": (lambda good: _npz({**good, "added": np.array("x")}), "added is the count"),
    "added too few": (lambda good: _npz({**good, "added": np.array(0)}), "added is the count"),
    "pi NaN": (
        lambda good: _npz({**good, "pi": np.full_like(good["pi"], np.nan)}),
        "must be finite",
    ),
    "pi rows of zeros": (
        lambda good: _npz({**good, "pi": np.zeros_like(good["pi"])}),
        "positive sum",
    ),
    "object array": (
        lambda good: _npz({**good, "z": np.array([object()], dtype=object)}),
        "Object arrays cannot be loaded",
    ),
}


def _resume(tmp_path: Path, folder: Path) -> None:
    config = tiny_az_config(tmp_path / "resumed", iterations=2, eval_every=0, resume=str(folder))
    az.train_az(config, log=_quiet)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(str(tmp_path_factory.mktemp("az_run")))


@pytest.mark.parametrize("case", sorted(CHECKPOINTS))
def test_damaged_checkpoints_are_refused_in_one_line(case: str, run: Path, tmp_path: Path) -> None:
    mutate, words = CHECKPOINTS[case]
    folder = tmp_path / "damaged"
    folder.mkdir()
    data = copy.deepcopy(torch.load(run / "checkpoint.pt", weights_only=True))
    mutate(data)
    torch.save(data, folder / "checkpoint.pt")
    with pytest.raises(ValueError, match=words) as caught:
        _resume(tmp_path, folder)
    assert "checkpoint.pt" in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("case", sorted(BUFFERS))
def test_damaged_buffers_are_refused_in_one_line(case: str, run: Path, tmp_path: Path) -> None:
    make, words = BUFFERS[case]
    folder = tmp_path / "damaged"
    folder.mkdir()
    shutil.copyfile(run / "checkpoint.pt", folder / "checkpoint.pt")
    with np.load(run / "buffer.npz") as saved:
        good = dict(saved)
    (folder / "buffer.npz").write_bytes(make(good))
    with pytest.raises(ValueError, match=words) as caught:
        _resume(tmp_path, folder)
    assert "buffer.npz" in str(caught.value) and "\n" not in str(caught.value)


def test_the_command_line_prints_one_line_for_a_damaged_checkpoint(
    run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "damaged"
    folder.mkdir()
    data = torch.load(run / "checkpoint.pt", weights_only=True)
    data["optimizer"] = {"x": 1}
    torch.save(data, folder / "checkpoint.pt")
    from tabletop_envs.training.train import run_command

    argv = ["--algo", "az", "--env", "iris_v0", "--hidden", "16", "--resume", str(folder)]
    assert run_command([*argv, "--out", str(tmp_path / "out")], prog="train") == 2
    err = capsys.readouterr().err
    assert err.startswith("train --algo az: error: cannot resume") and err.count("\n") == 1, err
