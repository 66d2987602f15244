"""The example scripts and the training entry point, CI-sized (tiny timesteps)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tabletop_envs

if os.environ.get("CI") == "true":
    import sb3_contrib  # noqa: F401  CI installs the train extra: missing, it must fail, not skip
else:
    pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
TINY = [
    "--timesteps", "256", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64",
    "--n-epochs", "1", "--net-arch", "32", "--eval-every", "128", "--eval-games", "4",
    "--final-eval-games", "6", "--no-progress",
]  # fmt: skip


def _run(script: str, *args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def _check_outputs(out: Path, env: str, games: int) -> dict:
    results = json.loads((out / "results.json").read_text())
    assert results["env"] == env and results["timesteps"] >= 256
    assert results["final"]["games"] == games
    assert [h["timesteps"] for h in results["history"]] == [128, 256]
    assert (out / "model.zip").stat().st_size > 0
    assert (out / "winrate.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return results


def test_train_example_then_evaluate(tmp_path: Path) -> None:
    env = tabletop_envs.registered_envs()[0]
    out = tmp_path / "run"
    text = _run("train_maskable_ppo.py", "--env", env, "--out", str(out), *TINY)
    assert "win rate vs random" in text
    results = _check_outputs(out, env, 6)
    assert results["config"]["opponent"] == "random"
    text = _run(
        "evaluate.py", str(out / "model.zip"), "--env", env, "--opponents", "random",
        "--games", "4", "--json", str(tmp_path / "eval.json"),
    )  # fmt: skip
    assert "win rate vs random" in text
    summary = json.loads((tmp_path / "eval.json").read_text())["random"]
    assert summary["results"] == 4


def test_self_play_example(tmp_path: Path) -> None:
    env = tabletop_envs.registered_envs()[0]
    out = tmp_path / "sp"
    text = _run(
        "self_play.py", "--env", env, "--out", str(out), "--snapshot-every", "64",
        "--eval-opponent", "random", "--pool-size", "2", *TINY,
    )  # fmt: skip
    assert "win rate vs random" in text
    results = _check_outputs(out, env, 6)
    assert results["config"]["self_play_every"] == 64


def test_self_play_help_shows_its_own_defaults() -> None:
    text = _run("self_play.py", "--help")
    flat = " ".join(text.split())
    assert "pool every K steps (0: none); an integer >= 0 (default: 20000)" in flat
    assert "the last one of an a+b pool) (default: greedy)" in flat
    assert "(default: runs/self_play)" in flat


def test_train_entry_point_with_env_args_and_cnn(tmp_path: Path) -> None:
    """The CLI's entry point: game parameters, a CNN policy, SubprocVecEnv, an opponent pool."""
    from tabletop_envs.training.train import main

    out = tmp_path / "cnn"
    args = [
        "--env", "iris_v0", "--env-arg", "board_size=3", "--policy", "cnn", "--vec", "subproc",
        "--opponent", "random+greedy", "--out", str(out), *TINY,
    ]  # fmt: skip
    assert main(args) == 0
    results = _check_outputs(out, "iris_v0", 6)
    assert results["config"]["env_kwargs"] == {"board_size": 3}
    assert results["opponent"] == "greedy"  # evaluated against the pool's last member
