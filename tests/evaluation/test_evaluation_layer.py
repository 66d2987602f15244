"""The evaluation layer's place in the house, and the alias the arena left in training."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import tabletop_envs
from tabletop_envs.evaluation import arena, play, ray, stats

SRC = Path(tabletop_envs.__file__).resolve().parent


def _imported(path: Path) -> set[str]:
    """Return every tabletop_envs module ``path`` imports, at module level or in a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name.startswith("tabletop_envs")}


@pytest.mark.parametrize(
    ("files", "allowed"),
    [
        (sorted((SRC / "evaluation").glob("*.py")), ("core", "envs", "agents", "evaluation")),
        ([SRC / "watch.py"], ("core", "envs", "evaluation", "render", "replay")),
        ([SRC / "replay.py"], ("core", "envs")),
    ],
)
def test_evaluation_imports_only_lower_layers(files: list[Path], allowed: tuple[str, ...]) -> None:
    for path in files:
        for module in _imported(path):
            layer = module.split(".")[1]
            assert layer in allowed, f"{path.name} imports {module}"


def test_importing_evaluation_loads_neither_ray_nor_training() -> None:
    code = (
        "import sys, tabletop_envs.evaluation, tabletop_envs.watch, tabletop_envs.cli; "
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith("
        "('tabletop_envs.training', 'torch'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


OLD_NAMES = {
    "run_arena": arena.run_arena,
    "ArenaResult": arena.ArenaResult,
    "AgentStats": arena.AgentStats,
    "_score_game": arena.score_game,
    "play_game": play.play_game,
    "game_seeds": play.game_seeds,
    "lineups": play.lineups,
    "PlayedGame": play.PlayedGame,
    "_play_games": play.play_games,
    "_names": play.agent_names,
    "_play_on_ray": ray.play_on_ray,
    "wilson": stats.wilson,
    "bradley_terry": stats.bradley_terry,
    "Z95": stats.Z95,
    "PRIOR_DRAWS": stats.PRIOR_DRAWS,
}


@pytest.mark.parametrize("name", sorted(OLD_NAMES))
def test_every_old_arena_name_still_imports_with_a_warning(name: str) -> None:
    old = importlib.import_module("tabletop_envs.training.arena")
    with pytest.warns(DeprecationWarning, match=rf"arena\.{name} moved to tabletop_envs\.eval"):
        value = getattr(old, name)
    assert value is OLD_NAMES[name]


def test_the_alias_names_its_moves_and_refuses_unknown_names() -> None:
    old = importlib.import_module("tabletop_envs.training.arena")
    with pytest.warns(DeprecationWarning, match="removed in 0.3"):
        from tabletop_envs.training.arena import run_arena  # noqa: F401
    assert set(old.__all__) <= set(OLD_NAMES) <= set(dir(old))
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        old.nothing  # noqa: B018
