"""examples/train_rllib.py, CI-sized: trains on a local Ray, checkpoints, resumes, evaluates."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

if os.environ.get("CI") == "true":
    import ray  # noqa: F401  CI installs the rllib extra: missing, it must fail, not skip
else:
    pytest.importorskip("ray.rllib")
    pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]
TINY = [
    "--param", "board_size=3", "--num-env-runners", "2", "--num-cpus", "2",
    "--train-batch-size", "128", "--minibatch-size", "64", "--num-epochs", "1",
    "--hidden", "16", "--eval-games", "4", "--eval-opponents", "random",
]  # fmt: skip


def _run(*args: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}  # a local Ray
    proc = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "train_rllib.py"), *args],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_train_checkpoint_resume_evaluate(tmp_path: Path) -> None:
    out = tmp_path / "run"
    _run("--env", "iris_v0", "--iterations", "1", "--out", str(out), *TINY)
    first = json.loads((out / "results.json").read_text())
    assert first["iteration"] == 1 and first["env_kwargs"] == {"board_size": 3}
    stdout = _run(
        "--env", "iris_v0", "--iterations", "2", "--out", str(out),
        "--resume", str(out / "checkpoint"), "--eval-ray", *TINY,
        "--select-against", "random", "--select-games", "2",
    )  # fmt: skip
    assert "resumed from" in stdout and "at iteration 1" in stdout
    results = json.loads((out / "results.json").read_text())
    assert results["iteration"] == 2 and results["env_steps"] >= 2 * 128
    # checkpoint selection: the last iteration is always scored; best/ is what was evaluated
    selected = results["selected"]
    assert selected["iteration"] == 2 and selected["against"] == "random"
    assert 0.0 <= selected["score"] <= 1.0 and (out / "best").is_dir()
    assert "evaluating best/: iteration 2" in stdout
    (evaluation,) = results["evaluation"]
    assert evaluation["opponent"] == "random" and evaluation["games"] == 4
    assert evaluation["wins"] + evaluation["draws"] + evaluation["losses"] == 4
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert [r["iteration"] for r in log] == [1, 2]
    assert "score" not in log[0] and log[1]["score"] == selected["score"]
    assert all(r["steps_per_s"] > 0 for r in log)


def _readme_rllib_commands() -> list[list[str]]:
    """Return the README's RLlib command line, split at ``&&``, without its installs."""
    section = (ROOT / "README.md").read_text().split("## RLlib self-play", 1)[1]
    block = section.split("```bash\n", 1)[1].split("```", 1)[0]
    commands = [shlex.split(part) for part in block.replace("\\\n", " ").split("&&")]
    return [c for c in commands if c[:2] != ["pip", "install"]]


def test_readme_rllib_command_from_an_empty_folder(tmp_path: Path) -> None:
    """The README's RLlib command as written (scaled down by its own options) from a folder
    holding nothing, its relative ``--out`` and ``rllib:`` paths included: it trains, writes
    results.json and evaluates the checkpoint by its relative path."""
    train, evaluate = _readme_rllib_commands()
    assert train[:2] == ["python", "examples/train_rllib.py"] and "--out" in train
    assert evaluate[:2] == ["tabletop-envs", "evaluate"]
    out = Path(train[train.index("--out") + 1])
    assert not out.is_absolute(), "the README's --out is relative: that is what this tests"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}  # a local Ray
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), env.get("PYTHONPATH")]))
    script = [sys.executable, str(ROOT / train[1])]  # the clone's script; the cwd stays empty
    tiny = [*TINY, "--iterations", "1"]  # later options win: the README's stay as written
    proc = subprocess.run(
        [*script, *train[2:], *tiny], capture_output=True, text=True, timeout=900,
        cwd=tmp_path, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    results = json.loads((tmp_path / out / "results.json").read_text())
    assert results["evaluation"][0]["games"] == 4
    cli = [sys.executable, "-m", "tabletop_envs.cli", *evaluate[1:]]
    small = ["--param", "board_size=3", "--games", "2", "--quiet"]
    proc = subprocess.run(
        [*cli, *small], capture_output=True, text=True, timeout=600, cwd=tmp_path, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert evaluate[evaluate.index("--agents") + 1] in proc.stdout
